package webscan

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"html/template"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
)

var update = flag.Bool("update", false, "rewrite golden files")

// hostileReport is a scan of a site that tries to inject markup and
// terminal escapes through every text it controls.
func hostileReport(t *testing.T) *Report {
	t.Helper()
	site := siteFunc(func(h map[string]string, path string) (string, string) {
		h["Server"] = "Evil/1.0 <script>alert(1)</script>" // Go clients reject control characters in headers
		if path == "/" {
			return "text/html", `<html><head><title>"><script>alert(2)</script>` + "\x1b]0;pwned\x07" + `</title>
<meta name="generator" content="<img src=x onerror=alert(3)> 1.2"></head><body></body></html>`
		}
		return "", ""
	})
	f := newFixture(t, fixtureOpts{httpsH: site})
	return f.scan(t, "https://example.com/", nil)
}

func TestWriteText(t *testing.T) {
	f := newFixture(t, fixtureOpts{httpH: badHeadersSite(), httpsH: badHeadersSite()})
	rep := f.scan(t, "https://example.com/", nil)
	var buf bytes.Buffer
	if err := WriteText(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"Grade: F", "Why this grade:", "[HIGH] headers: CORS reflects any Origin with credentials",
		"Fix: Check Origin against an allowlist", "not tested: sslv2", "Server: Apache/2.4.41 (Ubuntu)"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	buf.Reset()
	if err := WriteText(&buf, hostileReport(t)); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(buf.String(), "\x1b\x07") {
		t.Error("terminal escape sequence reached the text report")
	}
	if !strings.Contains(buf.String(), "\uFFFD]0;pwned\uFFFD") {
		t.Error("the hostile title was dropped instead of neutralised")
	}
}

func TestWriteHTML(t *testing.T) {
	rep := hostileReport(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<script") || strings.Contains(out, "<img") {
		t.Fatal("site-controlled markup reached the HTML report unescaped")
	}
	// The hostile text is present, escaped: the test would notice if it
	// were dropped instead.
	if !strings.Contains(out, "&lt;script&gt;alert(2)") || !strings.Contains(out, "&lt;img src=x onerror=alert(3)&gt;") {
		t.Error("hostile title or generator missing from the report")
	}
	// No element may load anything: no src, no href, no external url().
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		for _, a := range tok.Attr {
			if a.Key == "src" || a.Key == "href" || strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q> in the report", tok.Data, a.Key, a.Val)
			}
		}
	}
	if strings.Contains(out, "url(") || strings.Contains(out, "@import") {
		t.Error("CSS loads a resource")
	}
	if !strings.Contains(out, `default-src 'none'; style-src 'sha256-`) {
		t.Error("the report lacks its own CSP")
	}
}

// TestReportJSONFields pins the JSON field names: fields may be added
// (refresh with -update), never renamed or removed.
func TestReportJSONFields(t *testing.T) {
	f := newFixture(t, fixtureOpts{httpsH: softNotFound(map[string]string{"/.env": envFile, "/": goodPage}, map[string]string{"/": "text/html"})})
	rep := f.scan(t, "https://example.com/", func(o *Options) {
		o.SecretScan = func(_ context.Context, _ string) []SecretFinding {
			return []SecretFinding{{Type: "t", Fingerprint: "f", Line: 1}}
		}
	})
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	collectKeys("", v, got)
	keys := slices.Sorted(maps.Keys(got))
	for _, k := range keys {
		leaf := k[strings.LastIndex(k, ".")+1:]
		if leaf != strings.ToLower(leaf) || strings.Contains(leaf, "-") {
			// Raw header names are map keys, not schema fields.
			if !strings.Contains(k, ".raw.") && !strings.Contains(k, ".banners.") && !strings.Contains(k, ".directives.") {
				t.Errorf("field %s is not snake_case", k)
			}
		}
	}
	golden := filepath.Join("testdata", "report_fields.golden")
	var schema []string
	for _, k := range keys {
		if !strings.Contains(k, ".raw.") && !strings.Contains(k, ".banners.") && !strings.Contains(k, ".directives.") {
			schema = append(schema, k)
		}
	}
	if *update {
		if err := os.WriteFile(golden, []byte(strings.Join(schema, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Fields(string(want)) {
		if !got[k] {
			t.Errorf("field %s disappeared from the report", k)
		}
	}
	if diff := cmp.Diff(strings.Fields(string(want)), schema); diff != "" {
		t.Logf("schema changed (run with -update if intended):\n%s", diff)
	}
}

// collectKeys records every object key path; array elements share "[]".
func collectKeys(prefix string, v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			collectKeys(p, val, out)
		}
	case []any:
		for _, val := range x {
			collectKeys(prefix+"[]", val, out)
		}
	}
}

// A section that was not tested says so, without an empty "()" where its
// address or error would be.
func TestWritersSayNotTested(t *testing.T) {
	for _, c := range []struct {
		tls              TLSResult
		wantText, noText string
		wantHTML         string
	}{
		{TLSResult{Error: "no_dialer"}, "\nTLS: not tested (no_dialer)\n", "()", "<p>Not tested (no_dialer).</p>"},
		{TLSResult{}, "\nTLS: not tested\n", "()", "<p>Not tested.</p>"},
		{TLSResult{Tested: true, Address: "example.com:443", Grade: "A"}, "\nTLS (example.com:443):\n  grade A", "TLS ():", ""},
	} {
		r := &Report{Result: Result{Grade: "A", TLS: c.tls}}
		var txt, page bytes.Buffer
		if err := WriteText(&txt, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteHTML(&page, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(txt.String(), c.wantText) || strings.Contains(txt.String(), c.noText) {
			t.Errorf("%+v: text report\n%s\nwant %q and no %q", c.tls, txt.String(), c.wantText, c.noText)
		}
		if !strings.Contains(page.String(), c.wantHTML) {
			t.Errorf("%+v: HTML report lacks %q", c.tls, c.wantHTML)
		}
	}
}

func TestWritersOnSparseReports(t *testing.T) {
	for name, r := range map[string]*Report{
		"zero":            {},
		"tls_not_tested":  {Result: Result{Grade: "A", TLS: TLSResult{Error: "no_dialer", NotTested: tlsNotTested}}},
		"special_grade_t": {Result: Result{Grade: "F", TLS: TLSResult{Tested: true, Grade: "T"}}},
	} {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, r); err != nil {
			t.Errorf("%s: WriteHTML: %v", name, err)
		}
		if err := WriteText(&buf, r); err != nil {
			t.Errorf("%s: WriteText: %v", name, err)
		}
	}
}

func TestHTMLKeyBreaksBetweenParts(t *testing.T) {
	fn := func(s string) string {
		var b bytes.Buffer
		tm := template.Must(template.New("k").Funcs(reportFuncs).Parse(`{{key .}}`))
		if err := tm.Execute(&b, s); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, c := range []struct{ in, want string }{
		{"csp-not-implemented", `<code class="key">csp-not-implemented</code>`},
		{"TLS_AES_128", `<code class="key">TLS_<wbr>AES_<wbr>128</code>`},
		{"/.env", `<code class="key">/.env</code>`},
		{"/.git/config", `<code class="key">/.git/<wbr>config</code>`},
		{"a_<b>", `<code class="key">a_<wbr>&lt;b&gt;</code>`},
		{"", `<code class="key"></code>`},
	} {
		if got := fn(c.in); got != c.want {
			t.Errorf("key(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// The HTML report shows, under each header test's points, what the
// Observatory's arithmetic counts for it, so a person can see why the
// reference grade differs from Warden's.
func TestWriteHTMLShowsTheObservatoryPoints(t *testing.T) {
	rep := &Report{}
	rep.Result.Headers.Tests = []TestResult{
		{Name: "content-security-policy", Result: "csp-implemented-with-unsafe-inline", Modifier: -20},
		{Name: "cross-origin-opener-policy", Result: "coop-not-implemented", Modifier: 0},
	}
	rep.Result.Reference = ReferenceResult{Score: 80, Grade: "B", Tests: []TestResult{
		{Name: "content-security-policy", Result: "csp-implemented-with-unsafe-inline", Modifier: -20},
	}}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`-20<br><span class="meta">-20</span>`, // scored by both
		`0<br><span class="meta">—</span>`,     // COOP: Warden's own test
		"its score 80, grade B",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
