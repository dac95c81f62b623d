package webscan

import (
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/warden-mcp/warden/errcode"
)

func FuzzParseHSTS(f *testing.F) {
	for _, l := range readLines(f, "testdata/hsts.txt") {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHSTS([]string{s})
		if err != nil {
			return
		}
		if h.MaxAge < 0 {
			t.Fatalf("negative max-age from %q", s)
		}
		if !strings.Contains(strings.ToLower(s), "max-age") {
			t.Fatalf("accepted %q without max-age", s)
		}
		if strings.Contains(s, ",") {
			t.Fatalf("accepted comma-joined %q", s)
		}
	})
}

func FuzzParseSetCookie(f *testing.F) {
	for _, l := range readLines(f, "testdata/setcookie.txt") {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := ParseSetCookie(s)
		if !ok {
			return
		}
		if c.Name == "" || strings.ContainsAny(c.Name, ";=") {
			t.Fatalf("bad name %q from %q", c.Name, s)
		}
		if c.SameSite != strings.ToLower(c.SameSite) {
			t.Fatalf("SameSite not normalised: %q", c.SameSite)
		}
		_ = cookieProblems(c)
		if r, _ := cookieTest([]SetCookie{c}, false); r.Result == "" {
			t.Fatal("empty result")
		}
	})
}

func FuzzParseSecurityTxt(f *testing.F) {
	b, err := os.ReadFile("testdata/security.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("Contact: x\nExpires: 2030-01-01T00:00:00Z\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st := ParseSecurityTxt(b)
		if len(st.Contact) > 10 {
			t.Fatalf("%d contacts kept", len(st.Contact))
		}
		if len(st.Contact) == 0 && !contains(st.Problems, "missing_contact") {
			t.Fatal("missing contact not reported")
		}
	})
}

func FuzzParseRobots(f *testing.F) {
	b, err := os.ReadFile("testdata/robots.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		n, sens := ParseRobots(b)
		if len(sens) > n || len(sens) > 20 {
			t.Fatalf("%d sensitive of %d entries", len(sens), n)
		}
	})
}

func FuzzParsePage(f *testing.F) {
	f.Add([]byte(goodPage))
	f.Add([]byte(`<meta http-equiv="content-security-policy" content="default-src 'none'"><script src=x integrity=y>`))
	f.Add([]byte("<title>unterminated"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := parsePage(b)
		if p.TokensVisited > maxHTMLTokens {
			t.Fatalf("visited %d tokens", p.TokensVisited)
		}
		if len(p.Title) > 200 || len(p.Generator) > 200 {
			t.Fatal("unbounded title or generator")
		}
		if utf8.ValidString(string(b)) && !utf8.ValidString(p.Title) && len(p.Title) < 200 {
			t.Fatalf("invalid UTF-8 title from valid input")
		}
	})
}

var reEnvEvidence = regexp.MustCompile(`^\d+ variables: [A-Z][A-Z0-9_]*=\*\*\*(, [A-Z][A-Z0-9_]*=\*\*\*)*$`)

func FuzzExposureMatchers(f *testing.F) {
	f.Add([]byte(envFile), "text/plain")
	f.Add([]byte(gitConfig), "text/plain")
	f.Add([]byte("PK\x03\x04"), "application/zip")
	f.Add([]byte("admin:$apr1$x$y\n"), "")
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nAAAA"), "")
	f.Fuzz(func(t *testing.T, body []byte, ct string) {
		for _, r := range exposureRules {
			ev, ok := r.Match(body, ct)
			if !ok {
				continue
			}
			if ev == "" || len(ev) > 512 {
				t.Fatalf("%s: evidence of %d bytes", r.Kind, len(ev))
			}
			if r.Kind == "env_file" && !reEnvEvidence.MatchString(ev) {
				t.Fatalf("env evidence %q shows more than names", ev)
			}
		}
	})
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"https://example.com/", "http://EXAMPLE.com:80/a?b#c", "https://[::1]:8443/", "http://user@x/", "ftp://x/", "https://x.:443"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := parseTarget(s)
		if err != nil {
			if errcode.CodeOf(err) == "" {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		u := tg.URL
		if (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Fragment != "" || tg.Host == "" || tg.Host != strings.ToLower(tg.Host) {
			t.Fatalf("accepted %q as %+v", s, u)
		}
		if _, err := url.Parse(u.String()); err != nil {
			t.Fatalf("normalised URL %q does not parse: %v", u, err)
		}
	})
}
