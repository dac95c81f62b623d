package webscan

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
		"Fix: Check Origin against an allowlist", "not tested (beyond crypto/tls): sslv2", "Server: Apache/2.4.41 (Ubuntu)"} {
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

// TestWriteHTMLScreenshot renders the report in headless Chromium when it
// is installed, and keeps the PNG for a human to look at.
func TestWriteHTMLScreenshot(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("chromium not installed")
	}
	if testing.Short() {
		t.Skip("short mode")
	}
	f := newFixture(t, fixtureOpts{httpH: badHeadersSite(), httpsH: softNotFound(map[string]string{"/.env": envFile, "/": goodPage}, map[string]string{"/": "text/html"}),
		cert: certSpec{names: []string{"example.com"}, notBefore: time.Now().Add(-time.Hour), notAfter: time.Now().Add(20 * 24 * time.Hour)}})
	rep := f.scan(t, "https://example.com/", nil)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var buf bytes.Buffer
	if err := WriteHTML(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(dir, "report.png")
	if out := os.Getenv("WEBSCAN_SCREENSHOT"); out != "" {
		png = out
	}
	size := "1200,1600"
	if v := os.Getenv("WEBSCAN_WINDOW"); v != "" {
		size = v
	}
	cmd := exec.CommandContext(t.Context(), chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+png, "--window-size="+size, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	b, err := os.ReadFile(png)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10000 || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot is %d bytes, not a rendered page", len(b))
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
