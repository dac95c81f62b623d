package webscan

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCSP(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string][]string
		dups    []string
		wantErr bool
	}{
		{"simple", "default-src 'self'; img-src *", map[string][]string{"default-src": {"'self'"}, "img-src": {"*"}}, nil, false},
		{"case", "Script-Src 'SELF' HTTPS://CDN.Example.COM/Path/JS 'nonce-AbC'", map[string][]string{"script-src": {"'self'", "https://cdn.example.com/Path/JS", "'nonce-AbC'"}}, nil, false},
		{"duplicate_first_wins", "script-src 'self'; script-src *", map[string][]string{"script-src": {"'self'"}}, []string{"script-src"}, false},
		{"empty_directives_skipped", ";; default-src 'none' ;", map[string][]string{"default-src": {"'none'"}}, nil, false},
		{"valueless", "upgrade-insecure-requests", map[string][]string{"upgrade-insecure-requests": {}}, nil, false},
		{"tab_separated", "default-src\t'self'", map[string][]string{"default-src": {"'self'"}}, nil, false},
		{"empty", "  ", nil, nil, true},
		{"bad_name", "default_src 'self'", nil, nil, true},
		{"non_ascii", "default-src 'self' https://exämple.com", nil, nil, true},
		{"control_char", "default-src 'self'\x00", nil, nil, true},
		{"too_long", "default-src " + strings.Repeat("a", maxCSPLength), nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseCSP(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.want, p.Directives); diff != "" {
				t.Errorf("directives (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.dups, p.Duplicates); diff != "" {
				t.Errorf("duplicates (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCSPTest(t *testing.T) {
	tests := []struct {
		name     string
		in       cspInput
		result   string
		modifier int
	}{
		{"missing", cspInput{}, "csp-not-implemented", -25},
		{"report_only", cspInput{ReportOnly: []string{"default-src 'none'"}}, "csp-not-implemented-but-reporting-enabled", -25},
		{"invalid", cspInput{Enforced: []string{"default_src 'none'"}}, "csp-header-invalid", -25},
		{"strict", cspInput{Enforced: []string{"default-src 'none'; form-action 'self'; script-src 'self'"}}, "csp-implemented-with-no-unsafe-default-src-none", 10},
		{"strict_without_form_action", cspInput{Enforced: []string{"default-src 'none'; script-src 'self'"}}, "csp-implemented-with-no-unsafe-default-src-none", 10},
		{"self", cspInput{Enforced: []string{"default-src 'self'"}}, "csp-implemented-with-no-unsafe", 5},
		{"unsafe_inline", cspInput{Enforced: []string{"default-src 'self'; script-src 'self' 'unsafe-inline'"}}, "csp-implemented-with-unsafe-inline", -20},
		{"unsafe_inline_neutralised_by_nonce", cspInput{Enforced: []string{"default-src 'self'; script-src 'nonce-abc' 'unsafe-inline'"}}, "csp-implemented-with-no-unsafe", 5},
		{"data_script", cspInput{Enforced: []string{"default-src 'self'; script-src 'self' data:"}}, "csp-implemented-with-unsafe-inline", -20},
		{"no_script_restriction", cspInput{Enforced: []string{"img-src 'self'"}}, "csp-implemented-with-unsafe-inline", -20},
		{"broad_script_https", cspInput{Enforced: []string{"default-src 'self'; script-src https:"}}, "csp-implemented-with-unsafe-inline", -20},
		{"strict_dynamic_ignores_https", cspInput{Enforced: []string{"object-src 'none'; style-src 'self'; script-src 'nonce-x' 'strict-dynamic' https:"}}, "csp-implemented-with-no-unsafe", 5},
		{"broad_object", cspInput{Enforced: []string{"script-src 'self'; object-src *"}}, "csp-implemented-with-unsafe-inline", -20},
		{"unsafe_eval", cspInput{Enforced: []string{"default-src 'self'; script-src 'self' 'unsafe-eval'"}}, "csp-implemented-with-unsafe-eval", -10},
		{"insecure_active", cspInput{HTTPS: true, Enforced: []string{"default-src 'self'; script-src 'self' http://cdn.example.com"}}, "csp-implemented-with-insecure-scheme", -20},
		{"insecure_passive", cspInput{HTTPS: true, Enforced: []string{"default-src 'self'; img-src http:"}}, "csp-implemented-with-insecure-scheme-in-passive-content-only", -10},
		{"insecure_on_http_page_not_counted", cspInput{Enforced: []string{"default-src 'self'; img-src http:"}}, "csp-implemented-with-no-unsafe", 5},
		// Bug 6: an insecure scheme counts in every directive, not 8.
		{"insecure_form_action", cspInput{HTTPS: true, Enforced: []string{"default-src 'self'; form-action http:"}}, "csp-implemented-with-insecure-scheme", -20},
		{"insecure_report_uri", cspInput{HTTPS: true, Enforced: []string{"default-src 'self'; report-uri http://r.example/"}}, "csp-implemented-with-insecure-scheme", -20},
		{"insecure_ftp", cspInput{HTTPS: true, Enforced: []string{"default-src 'self'; img-src ftp://f.example/"}}, "csp-implemented-with-insecure-scheme-in-passive-content-only", -10},
		// Bug 7: a repeated directive and 'strict-dynamic' alone are invalid.
		{"repeated_directive", cspInput{Enforced: []string{"default-src 'none'; script-src 'self'; script-src *"}}, "csp-header-invalid", -25},
		{"repeated_report_uri_no_bonus", cspInput{Enforced: []string{"default-src 'none'; report-uri /a; report-uri /b"}}, "csp-implemented-but-duplicate-directives", 0},
		{"strict_dynamic_alone", cspInput{Enforced: []string{"default-src 'none'; script-src 'strict-dynamic'"}}, "csp-header-invalid", -25},
		{"no_known_directive", cspInput{Enforced: []string{"a"}}, "csp-header-invalid", -25},
		{"missing_style_src", cspInput{Enforced: []string{"script-src 'self'; object-src 'none'"}}, "csp-implemented-with-unsafe-inline-in-style-src-only", 0},
		{"style_unsafe_eval", cspInput{Enforced: []string{"default-src 'none'; style-src 'unsafe-eval'"}}, "csp-implemented-with-unsafe-eval", -10},
		// Bug 8: a long policy is analysed.
		{"long_policy", cspInput{Enforced: []string{"default-src 'self'; img-src " + strings.Repeat("https://a.example ", 1500)}}, "csp-implemented-with-no-unsafe", 5},
		{"style_only", cspInput{Enforced: []string{"default-src 'self'; style-src 'self' 'unsafe-inline'"}}, "csp-implemented-with-unsafe-inline-in-style-src-only", 0},
		{"two_policies_strictest_wins", cspInput{Enforced: []string{"default-src *", "default-src 'self'"}}, "csp-implemented-with-no-unsafe", 5},
		{"comma_joined_policies", cspInput{Enforced: []string{"default-src *, default-src 'self'"}}, "csp-implemented-with-no-unsafe", 5},
		{"meta_policy", cspInput{Meta: []string{"default-src 'self'"}}, "csp-implemented-with-no-unsafe", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, _, _ := cspTest(tt.in)
			if got.Result != tt.result || got.Modifier != tt.modifier || got.Pass != (tt.modifier >= 0) {
				t.Errorf("got %s (%d, pass %v), want %s (%d)", got.Result, got.Modifier, got.Pass, tt.result, tt.modifier)
			}
		})
	}
}

func TestCSPReportOnlySummary(t *testing.T) {
	got, sum, _, _ := cspTest(cspInput{ReportOnly: []string{"default-src 'self'; script-src 'self' 'unsafe-inline'; base-uri 'none'"}})
	if got.Modifier != -25 || !sum.ReportOnly || sum.Present {
		t.Fatalf("result %+v summary %+v", got, sum)
	}
	if !sum.UnsafeInline || !sum.BaseURIRestricted || sum.Directives["base-uri"] == nil {
		t.Errorf("report-only policy not described: %+v", sum)
	}
}

func TestCSPSummaryFlags(t *testing.T) {
	_, sum, flags, _ := cspTest(cspInput{Enforced: []string{"default-src 'self'; base-uri 'none'; frame-ancestors 'self'"}, Meta: []string{"frame-ancestors 'none'"}})
	if !sum.BaseURIRestricted || !flags.frameAncestors || !sum.FromMeta {
		t.Errorf("summary %+v", sum)
	}
	// frame-ancestors in <meta> is ignored by browsers.
	_, _, flags, _ = cspTest(cspInput{Meta: []string{"default-src 'self'; frame-ancestors 'none'"}})
	if flags.frameAncestors {
		t.Error("frame-ancestors from <meta> counted")
	}
}

// readLines returns the non-empty lines of a testdata file.
func readLines(tb testing.TB, name string) []string {
	tb.Helper()
	f, err := os.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func FuzzParseCSP(f *testing.F) {
	for _, l := range readLines(f, "testdata/csp.txt") {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseCSP(s)
		if err != nil {
			return
		}
		if len(p.Order) == 0 || len(p.Order) != len(p.Directives) || len(p.Order) > maxCSPDirectives {
			t.Fatalf("inconsistent policy %+v", p)
		}
		for _, name := range p.Order {
			if !validDirectiveName(name) {
				t.Fatalf("bad directive name %q", name)
			}
			for _, src := range p.Directives[name] {
				if src == "" || strings.ContainsAny(src, " \t;") {
					t.Fatalf("bad source %q", src)
				}
			}
		}
		// Analysis never panics and is deterministic.
		a, b := analyzePolicy(p, true), analyzePolicy(p, true)
		if a != b {
			t.Fatal("analysis not deterministic")
		}
		// Re-serialising and parsing again gives the same directives.
		var parts []string
		for _, name := range p.Order {
			parts = append(parts, strings.Join(append([]string{name}, p.Directives[name]...), " "))
		}
		q, err := ParseCSP(strings.Join(parts, "; "))
		if err != nil {
			t.Fatalf("reparse: %v", err)
		}
		if diff := cmp.Diff(p.Directives, q.Directives); diff != "" {
			t.Fatalf("reparse differs:\n%s", diff)
		}
	})
}
