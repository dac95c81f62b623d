package webscan

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The bugs found against the MDN HTTP Observatory, one test each.

// Bug 1: four same-host redirects (a login or locale chain) are followed
// and the final page is graded, not the intermediate redirect.
func TestFourRedirectsAreFollowed(t *testing.T) {
	good := goodSite()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n, ok := strings.CutPrefix(r.URL.Path, "/step"); ok && n < "4" {
			http.Redirect(w, r, "/step"+string(rune(n[0]+1)), http.StatusFound)
			return
		}
		if r.URL.Path == "/" {
			http.Redirect(w, r, "/step1", http.StatusFound)
			return
		}
		if r.URL.Path == "/step4" {
			r.URL.Path = "/"
		}
		good.ServeHTTP(w, r)
	})
	f := newFixture(t, fixtureOpts{httpsH: h})
	rep := f.scan(t, "https://example.com/", nil)
	if rep.Result.Redirects.HTTPS.Error != "" || !strings.HasSuffix(rep.Result.Headers.URL, "/step4") {
		t.Fatalf("https chain %+v, scored %s", rep.Result.Redirects.HTTPS, rep.Result.Headers.URL)
	}
	if rep.Result.Grade != "A+" || hasFinding(rep, "hsts_no_https") || hasFinding(rep, "https_redirect_invalid_cert") {
		t.Errorf("grade %s, findings %v", rep.Result.Grade, findingIDs(rep))
	}
}

// Bug 1: a fetch that fails for another reason than the certificate is
// reported as what it was, and the redirect's own headers are not scored.
func TestFetchFailureIsNotACertificateProblem(t *testing.T) {
	good := goodSite()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			http.Redirect(w, r, "/broken", http.StatusFound)
			return
		}
		if r.URL.Path == "/broken" {
			// A malformed response: the connection is hijacked and closed.
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			io.WriteString(c, "HTTP/1.1 200 OK\r\nBroken header\r\n\r\n")
			c.Close()
			return
		}
		good.ServeHTTP(w, r)
	})
	f := newFixture(t, fixtureOpts{httpsH: h, httpH: goodSite()})
	rep := f.scan(t, "https://example.com/", nil)
	if rep.Result.Redirects.HTTPS.Error != "fetch_failed" {
		t.Fatalf("https chain %+v", rep.Result.Redirects.HTTPS)
	}
	if strings.Contains(rep.Result.Redirects.HTTPS.ErrorDetail, "certificate") {
		t.Errorf("error detail %q blames the certificate", rep.Result.Redirects.HTTPS.ErrorDetail)
	}
	if testResults(rep)["redirection"] == "redirection-invalid-cert" || hasFinding(rep, "https_redirect_invalid_cert") || hasFinding(rep, "hsts_invalid_cert") {
		t.Errorf("a malformed response was reported as a certificate problem: %v", findingIDs(rep))
	}
	if u, _ := url.Parse(rep.Result.Headers.URL); u.Path == "/" && u.Scheme == "https" {
		t.Errorf("the intermediate redirect was scored: %s", rep.Result.Headers.URL)
	}
	if !hasFinding(rep, "scan_incomplete") {
		t.Errorf("no scan_incomplete finding: %v", findingIDs(rep))
	}
}

// Bug 2: a script with integrity does not soften the penalty of another,
// plain-http script without it.
func TestSRIWorstScriptWins(t *testing.T) {
	base := mustURL(t, "https://example.com/")
	got, _ := sriTest(base, true, []script{
		{Src: "https://cdn.example.net/a.js", Integrity: "sha384-x"},
		{Src: "http://cdn.example.net/b.js"},
	})
	if got.Modifier != -50 {
		t.Errorf("got %s %d, want -50", got.Result, got.Modifier)
	}
}

// Bug 3: a page over the cap says so, and earns no bonus from the part read.
func TestTruncatedPageIsReported(t *testing.T) {
	good := goodSite()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			good.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Security-Policy", goodCSP)
		w.Header().Set("Referrer-Policy", "no-referrer")
		io.WriteString(w, `<html><head><script src="https://cdn.example.net/a.js" integrity="sha384-x"></script>`)
		io.WriteString(w, strings.Repeat("<p>filler</p>\n", (3<<20)/14))
		io.WriteString(w, `<script src="http://evil.example.net/b.js"></script></html>`)
	})
	f := newFixture(t, fixtureOpts{httpsH: h})
	rep := f.scan(t, "https://example.com/", nil)
	if !hasFinding(rep, "truncated") {
		t.Fatalf("no truncated finding: %v", findingIDs(rep))
	}
	for _, tr := range rep.Result.Headers.Tests {
		switch tr.Name {
		case "subresource-integrity", "content-security-policy", "referrer-policy":
			if tr.Modifier > 0 {
				t.Errorf("%s awarded %d from a partial page", tr.Name, tr.Modifier)
			}
		}
	}
}

// Bugs 4 and 5: only a passing HSTS excuses cookies without Secure, and
// SameSite=None without Secure is an invalid SameSite (-20).
func TestCookiesAndHSTS(t *testing.T) {
	c := func(s string) SetCookie { v, _ := ParseSetCookie(s); return v }
	short, _ := hstsTest(http.Header{"Strict-Transport-Security": {"max-age=300"}}, true, true, nil)
	long, _ := hstsTest(http.Header{"Strict-Transport-Security": {"max-age=63072000"}}, true, true, nil)
	if got, _ := cookieTest([]SetCookie{c("theme=1; SameSite=Lax")}, hstsPasses(short)); got.Modifier != -20 {
		t.Errorf("short HSTS: got %s %d, want -20", got.Result, got.Modifier)
	}
	if got, _ := cookieTest([]SetCookie{c("theme=1; SameSite=Lax")}, hstsPasses(long)); got.Modifier != -5 {
		t.Errorf("long HSTS: got %s %d, want -5", got.Result, got.Modifier)
	}
	if got, _ := cookieTest([]SetCookie{c("theme=1; SameSite=None")}, hstsPasses(long)); got.Modifier != -20 || got.Result != "cookies-samesite-flag-invalid" {
		t.Errorf("SameSite=None without Secure: got %s %d, want -20", got.Result, got.Modifier)
	}
}

// Bug 8: cookies past the old cap of 100 are analysed, and a cap that
// applies is reported.
func TestManyCookies(t *testing.T) {
	var hdr http.Header = http.Header{}
	for i := range 150 {
		hdr.Add("Set-Cookie", "c"+strings.Repeat("x", i%3)+string(rune('a'+i%26))+strings.Repeat("y", i/26)+"=1; Secure; SameSite=Lax")
	}
	hdr.Add("Set-Cookie", "sessionid=1; SameSite=Lax") // the 151st: a session cookie without Secure
	cookies, dropped := collectCookies([]*response{{Header: hdr}})
	if dropped != 0 {
		t.Fatalf("dropped %d", dropped)
	}
	if got, _ := cookieTest(cookies, false); got.Modifier != -40 {
		t.Errorf("got %s %d: the cookie past 100 was ignored", got.Result, got.Modifier)
	}
	a := &analysis{primary: &response{}, cookiesCapped: 3}
	if f := a.truncatedFindings(); len(f) != 1 || !strings.Contains(f[0].Detail, "3 cookies") {
		t.Errorf("cap not reported: %+v", f)
	}
}

// Bug 9: an empty frame-ancestors means 'none' and earns the framing credit.
func TestEmptyFrameAncestors(t *testing.T) {
	_, _, f, _ := cspTest(cspInput{Enforced: []string{"default-src 'none'; frame-ancestors"}})
	if got := xfoTest(http.Header{}, f.frameAncestors); got.Modifier != 5 {
		t.Errorf("got %s %d, want +5", got.Result, got.Modifier)
	}
}

// Bug 10: COOP, COEP and CORP values are compared as browsers do.
func TestCrossOriginPoliciesAreCaseSensitive(t *testing.T) {
	for _, tc := range []struct {
		test func(http.Header) TestResult
		name string
	}{{coopTest, "Cross-Origin-Opener-Policy"}, {coepTest, "Cross-Origin-Embedder-Policy"}, {corpTest, "Cross-Origin-Resource-Policy"}} {
		val := map[string]string{"Cross-Origin-Opener-Policy": "Same-Origin", "Cross-Origin-Embedder-Policy": "Require-Corp", "Cross-Origin-Resource-Policy": "Same-Origin"}[tc.name]
		if got := tc.test(http.Header{tc.name: {val}}); got.Modifier > 0 {
			t.Errorf("%s: %s earned %d", tc.name, val, got.Modifier)
		}
	}
}

// Bug 11: a body cut off by a timeout is reported with scan_incomplete.
func TestPartialBodyIsIncomplete(t *testing.T) {
	good := goodSite()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			good.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", "100000")
		io.WriteString(w, "<html><head><title>slow</title>")
		w.(http.Flusher).Flush()
		time.Sleep(1500 * time.Millisecond)
	})
	f := newFixture(t, fixtureOpts{httpsH: h})
	rep := f.scan(t, "https://example.com/", func(o *Options) { o.RequestTimeout = time.Second; o.SkipExposure = true })
	if !hasFinding(rep, "scan_incomplete") {
		t.Errorf("no scan_incomplete: %v", findingIDs(rep))
	}
}

// Bug 12: a one-line .env with a credential is recognised.
func TestOneLineEnv(t *testing.T) {
	r := exposureRuleByKind("env_file")
	for _, body := range []string{"DATABASE_URL=postgres://u:p@db/app\n", "API_KEY=abc123\n", "export SECRET_TOKEN=x"} {
		if _, ok := r.Match([]byte(body), "text/plain"); !ok {
			t.Errorf("%q not recognised", body)
		}
	}
	if _, ok := r.Match([]byte("DEBUG=1\n"), "text/plain"); ok {
		t.Error("a harmless one-line file was reported")
	}
}
