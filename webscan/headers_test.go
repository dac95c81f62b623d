package webscan

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHSTS(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    HSTS
		wantErr bool
	}{
		{"full", []string{"max-age=63072000; includeSubDomains; preload"}, HSTS{63072000, true, true}, false},
		{"quoted", []string{`max-age="31536000"`}, HSTS{MaxAge: 31536000}, false},
		{"spaces_and_case", []string{"  MAX-AGE = 300 ; PRELOAD "}, HSTS{MaxAge: 300, Preload: true}, false},
		{"zero", []string{"max-age=0"}, HSTS{}, false},
		{"sent_twice", []string{"max-age=1", "max-age=1"}, HSTS{}, true},
		{"comma_joined", []string{"max-age=15768000; includeSubDomains, max-age=15768000; includeSubDomains"}, HSTS{}, true},
		{"no_max_age", []string{"includeSubDomains"}, HSTS{}, true},
		{"negative", []string{"max-age=-1"}, HSTS{}, true},
		{"empty_value", []string{"max-age="}, HSTS{}, true},
		{"repeated_directive", []string{"max-age=1; max-age=2"}, HSTS{}, true},
		{"none", nil, HSTS{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHSTS(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestHSTSTest(t *testing.T) {
	h := func(v string) http.Header { return http.Header{"Strict-Transport-Security": {v}} }
	tests := []struct {
		name             string
		h                http.Header
		https, certValid bool
		want             string
		mod              int
	}{
		{"good", h("max-age=31536000"), true, true, "hsts-implemented-max-age-at-least-six-months", 0},
		{"short", h("max-age=86400"), true, true, "hsts-implemented-max-age-less-than-six-months", -10},
		{"missing", http.Header{}, true, true, "hsts-not-implemented", -20},
		{"invalid", h("preload"), true, true, "hsts-header-invalid", -20},
		{"no_https", h("max-age=31536000"), false, false, "hsts-not-implemented-no-https", -20},
		{"bad_cert", h("max-age=31536000"), true, false, "hsts-invalid-cert", -20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sum := hstsTest(tt.h, tt.https, tt.certValid, nil)
			if got.Result != tt.want || got.Modifier != tt.mod {
				t.Errorf("got %s %d, want %s %d", got.Result, got.Modifier, tt.want, tt.mod)
			}
			if sum.PreloadListed != "no" {
				t.Errorf("preload_listed = %q", sum.PreloadListed)
			}
		})
	}
	// A preloaded host earns the bonus whenever https answered, even with
	// a short header (the Observatory's rule).
	got, sum := hstsTest(h("max-age=300"), true, true, &PreloadEntry{Name: "example.com", IncludeSubDomains: true})
	if got.Result != "hsts-preloaded" || got.Modifier != 5 || sum.PreloadListed != "yes" {
		t.Errorf("preloaded: got %s %d %q", got.Result, got.Modifier, sum.PreloadListed)
	}
}

func TestParseSetCookie(t *testing.T) {
	tests := []struct {
		in   string
		want SetCookie
		ok   bool
	}{
		{"__Host-s=abc; Path=/; Secure; HttpOnly; SameSite=Lax", SetCookie{Name: "__Host-s", Secure: true, HTTPOnly: true, SameSite: "lax", Path: "/", HasPath: true}, true},
		{"id=1; secure; SAMESITE=STRICT; domain=example.com", SetCookie{Name: "id", Secure: true, SameSite: "strict", Domain: "example.com", HasDomain: true}, true},
		{"theme=dark; SameSite", SetCookie{Name: "theme", SameSite: "invalid"}, true},
		{"=nameless", SetCookie{}, false},
		{"noequals", SetCookie{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseSetCookie(tt.in)
		if ok != tt.ok {
			t.Errorf("%q: ok = %v", tt.in, ok)
			continue
		}
		if diff := cmp.Diff(tt.want, got); ok && diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestCookieTest(t *testing.T) {
	c := func(v string) SetCookie { s, _ := ParseSetCookie(v); return s }
	tests := []struct {
		name    string
		cookies []SetCookie
		hsts    bool
		want    string
		mod     int
	}{
		{"none", nil, false, "cookies-not-found", 0},
		{"all_good", []SetCookie{c("sessionid=1; Secure; HttpOnly; SameSite=Lax")}, false, "cookies-secure-with-httponly-sessions-and-samesite", 5},
		{"no_samesite", []SetCookie{c("sessionid=1; Secure; HttpOnly")}, false, "cookies-secure-with-httponly-sessions", 0},
		{"session_no_secure", []SetCookie{c("sessionid=1; HttpOnly")}, false, "cookies-session-without-secure-flag", -40},
		{"session_no_secure_hsts", []SetCookie{c("sessionid=1; HttpOnly; SameSite=Lax")}, true, "cookies-session-without-secure-flag-but-protected-by-hsts", -10},
		{"session_no_httponly", []SetCookie{c("login=1; Secure")}, false, "cookies-session-without-httponly-flag", -30},
		{"csrf_no_samesite", []SetCookie{c("csrftoken=1; Secure")}, false, "cookies-anticsrf-without-samesite-flag", -20},
		{"invalid_samesite", []SetCookie{c("a=1; Secure; SameSite=whatever")}, false, "cookies-samesite-flag-invalid", -20},
		{"no_secure", []SetCookie{c("theme=1")}, false, "cookies-without-secure-flag", -20},
		{"no_secure_hsts", []SetCookie{c("theme=1; SameSite=Lax")}, true, "cookies-without-secure-flag-but-protected-by-hsts", -5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := cookieTest(tt.cookies, tt.hsts)
			if got.Result != tt.want || got.Modifier != tt.mod {
				t.Errorf("got %s %d, want %s %d", got.Result, got.Modifier, tt.want, tt.mod)
			}
		})
	}
}

func TestCookieProblems(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"__Host-a=1; Secure; Path=/; SameSite=Lax", nil},
		{"__Host-a=1; Secure; Path=/app; SameSite=Lax", []string{"host_prefix_violated"}},
		{"__Host-a=1; Secure; Path=/; Domain=example.com; SameSite=Lax", []string{"host_prefix_violated"}},
		{"__Secure-a=1; SameSite=None", []string{"missing_secure", "samesite_none_without_secure", "secure_prefix_violated"}},
		{"sess=1", []string{"missing_secure", "session_missing_httponly", "missing_samesite"}},
	}
	for _, tt := range tests {
		c, _ := ParseSetCookie(tt.in)
		if diff := cmp.Diff(tt.want, cookieProblems(c)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestSimpleHeaderTests(t *testing.T) {
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Add(kv[i], kv[i+1])
		}
		return out
	}
	tests := []struct {
		name string
		got  TestResult
		want string
		mod  int
	}{
		{"xcto_nosniff", xctoTest(h("X-Content-Type-Options", "nosniff ")), "x-content-type-options-nosniff", 0},
		{"xcto_missing", xctoTest(h()), "x-content-type-options-not-implemented", -5},
		{"xcto_whimsy", xctoTest(h("X-Content-Type-Options", "whimsy")), "x-content-type-options-header-invalid", -5},
		{"xcto_twice", xctoTest(h("X-Content-Type-Options", "nosniff", "X-Content-Type-Options", "nosniff")), "x-content-type-options-header-invalid", -5},
		{"xfo_deny", xfoTest(h("X-Frame-Options", "DENY"), false), "x-frame-options-sameorigin-or-deny", 0},
		{"xfo_csp", xfoTest(h(), true), "x-frame-options-implemented-via-csp", 5},
		{"xfo_allow_from", xfoTest(h("X-Frame-Options", "ALLOW-FROM https://mozilla.org"), false), "x-frame-options-allow-from-origin", 0},
		{"xfo_missing", xfoTest(h(), false), "x-frame-options-not-implemented", -20},
		{"xfo_whimsy", xfoTest(h("X-Frame-Options", "whimsy"), false), "x-frame-options-header-invalid", -20},
		{"xfo_twice", xfoTest(h("X-Frame-Options", "SAMEORIGIN", "X-Frame-Options", "SAMEORIGIN"), false), "x-frame-options-header-invalid", -20},
		{"ref_private", referrerTest([]string{"no-referrer"}), "referrer-policy-private", 5},
		{"ref_last_valid_wins", referrerTest([]string{"no-referrer, whimsy"}), "referrer-policy-private", 5},
		{"ref_unsafe_last", referrerTest([]string{"origin-when-cross-origin, no-referrer, unsafe-url"}), "referrer-policy-unsafe", -5},
		{"ref_meta_overrides", referrerTest([]string{"unsafe-url", "same-origin"}), "referrer-policy-private", 5},
		{"ref_missing", referrerTest(nil), "referrer-policy-not-implemented", 0},
		{"ref_invalid", referrerTest([]string{"whimsy"}), "referrer-policy-header-invalid", -5},
		{"coop_same_origin", coopTest(h("Cross-Origin-Opener-Policy", "same-origin")), "cross-origin-opener-policy-implemented", 10},
		{"coop_unsafe_none", coopTest(h("Cross-Origin-Opener-Policy", "unsafe-none")), "cross-origin-opener-policy-implemented-unsafe-none", 0},
		{"coop_invalid", coopTest(h("Cross-Origin-Opener-Policy", "whimsy")), "cross-origin-opener-policy-header-invalid", -5},
		{"coep_report_to", coepTest(h("Cross-Origin-Embedder-Policy", `require-corp; report-to="default"`)), "cross-origin-embedder-policy-implemented", 10},
		{"corp_cross_origin", corpTest(h("Cross-Origin-Resource-Policy", "cross-origin")), "cross-origin-resource-policy-implemented-cross-origin", 0},
		{"cors_none", corsTest(CORSSummary{}), "cross-origin-resource-sharing-not-implemented", 0},
		{"cors_public", corsTest(CORSSummary{AllowOrigin: "*"}), "cross-origin-resource-sharing-implemented-with-public-access", 0},
		{"cors_universal", corsTest(CORSSummary{AllowOrigin: "https://x.example", Reflected: true, AllowCredentials: true}), "cross-origin-resource-sharing-implemented-with-universal-access", -50},
		{"cors_restricted", corsTest(CORSSummary{AllowOrigin: "https://partner.example"}), "cross-origin-resource-sharing-implemented-with-restricted-access", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got.Result != tt.want || tt.got.Modifier != tt.mod || tt.got.Pass != (tt.mod >= 0) {
				t.Errorf("got %s %d pass %v, want %s %d", tt.got.Result, tt.got.Modifier, tt.got.Pass, tt.want, tt.mod)
			}
		})
	}
}

func TestRedirectionTest(t *testing.T) {
	hop := func(u string, code int, loc string) Hop { return Hop{URL: u, StatusCode: code, Location: loc} }
	tests := []struct {
		name      string
		ch        Chain
		httpsOK   bool
		certValid bool
		want      string
		mod       int
	}{
		{"to_https", Chain{Tested: true, Hops: []Hop{hop("http://a.com/", 301, "https://a.com/"), hop("https://a.com/", 200, "")}}, true, true, "redirection-to-https", 0},
		{"missing", Chain{Tested: true, Hops: []Hop{hop("http://a.com/", 200, "")}}, true, true, "redirection-missing", -20},
		{"http_to_http_then_https", Chain{Tested: true, Hops: []Hop{hop("http://a.com/", 301, "http://www.a.com/"), hop("http://www.a.com/", 301, "https://www.a.com/"), hop("https://www.a.com/", 200, "")}}, true, true, "redirection-not-to-https-on-initial-redirection", -10},
		{"off_host", Chain{Tested: true, Hops: []Hop{hop("http://a.com/", 301, "https://b.com/"), hop("https://b.com/", 200, "")}}, true, true, "redirection-off-host-from-http", -5},
		{"never_https", Chain{Tested: true, Hops: []Hop{hop("http://a.com/", 301, "http://a.com/x"), hop("http://a.com/x", 200, "")}}, true, true, "redirection-not-to-https", -20},
		{"bad_cert", Chain{Tested: true, Hops: []Hop{hop("http://a.com/", 301, "https://a.com/"), hop("https://a.com/", 0, "")}}, false, false, "redirection-invalid-cert", -20},
		{"no_http", Chain{Tested: true, Hops: []Hop{hop("http://a.com/", 0, "")}}, true, true, "redirection-not-needed-no-http", 0},
		{"not_tested", Chain{}, true, true, "redirection-not-tested", 0},
		{"relative_location", Chain{Tested: true, Hops: []Hop{hop("http://a.com/x", 301, "//a.com/y"), hop("http://a.com/y", 200, "")}}, true, true, "redirection-not-to-https", -20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := redirectionTest(tt.ch, tt.httpsOK, tt.certValid)
			if got.Result != tt.want || got.Modifier != tt.mod {
				t.Errorf("got %s %d, want %s %d", got.Result, got.Modifier, tt.want, tt.mod)
			}
		})
	}
}

func TestSRITest(t *testing.T) {
	base, _ := url.Parse("https://example.com/page")
	httpBase, _ := url.Parse("http://example.com/page")
	tests := []struct {
		name    string
		base    *url.URL
		html    bool
		scripts []script
		want    string
		mod     int
	}{
		{"not_html", base, false, nil, "sri-not-implemented-response-not-html", 0},
		{"no_scripts", base, true, nil, "sri-not-implemented-but-no-scripts-loaded", 0},
		{"same_origin", base, true, []script{{Src: "/a.js"}, {Src: "https://example.com/b.js"}}, "sri-not-implemented-but-all-scripts-loaded-from-secure-origin", 0},
		{"external_https_sri", base, true, []script{{Src: "https://cdn.example.net/a.js", Integrity: "sha384-x"}}, "sri-implemented-and-external-scripts-loaded-securely", 5},
		{"external_https_no_sri", base, true, []script{{Src: "https://cdn.example.net/a.js"}}, "sri-not-implemented-but-external-scripts-loaded-securely", -5},
		{"external_http_sri", base, true, []script{{Src: "http://cdn.example.net/a.js", Integrity: "sha384-x"}}, "sri-implemented-but-external-scripts-not-loaded-securely", -20},
		{"external_http_no_sri", base, true, []script{{Src: "http://cdn.example.net/a.js"}}, "sri-not-implemented-and-external-scripts-not-loaded-securely", -50},
		{"protocol_relative_on_http", httpBase, true, []script{{Src: "//cdn.example.net/a.js", Integrity: "sha384-x"}}, "sri-implemented-but-external-scripts-not-loaded-securely", -20},
		{"other_port_is_cross_origin", base, true, []script{{Src: "https://example.com:8443/a.js"}}, "sri-not-implemented-but-external-scripts-loaded-securely", -5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := sriTest(tt.base, tt.html, tt.scripts)
			if got.Result != tt.want || got.Modifier != tt.mod {
				t.Errorf("got %s %d, want %s %d", got.Result, got.Modifier, tt.want, tt.mod)
			}
		})
	}
}

func TestParsePage(t *testing.T) {
	p := parsePage([]byte(`<!doctype html><html><head><title> Hello </title>
<meta name="generator" content="Hugo 0.120.4">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'">
<meta name="referrer" content="no-referrer">
<script src="/a.js" src="/ignored.js"></script><script>inline()</script>
<script src="https://cdn/x.js" integrity="sha384-abc" crossorigin="anonymous"></script>
</head><body><title>not this</title></body></html>`))
	want := page{Title: "Hello", Generator: "Hugo 0.120.4", MetaCSP: []string{"default-src 'self'"}, MetaReferrer: []string{"no-referrer"},
		Scripts: []script{{Src: "/a.js"}, {Src: "https://cdn/x.js", Integrity: "sha384-abc", CrossOrigin: "anonymous"}}}
	if diff := cmp.Diff(want, p, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "TokensVisited" }, cmp.Ignore())); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}
}
