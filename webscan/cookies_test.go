package webscan

import (
	"regexp"
	"testing"
)

// Every problem code cookieProblems can emit has a sentence, so cookie
// evidence never falls back to a raw code.
func TestCookieProblemsHaveSentences(t *testing.T) {
	seen := map[string]bool{}
	for _, h := range []string{
		"sess=1", "a=1; SameSite=bogus", "__Secure-a=1; SameSite=None", "__Host-a=1; Secure; Path=/x; SameSite=Lax",
	} {
		c, ok := ParseSetCookie(h)
		if !ok {
			t.Fatalf("%q did not parse", h)
		}
		for _, p := range cookieProblems(c) {
			seen[p] = true
		}
	}
	for p := range cookieProblemText {
		if !seen[p] {
			t.Errorf("no header in this test produces %q; add one", p)
		}
	}
	code := regexp.MustCompile(`\b[a-z]+_[a-z_]+\b`)
	for p := range seen {
		s := cookieProblemSentence([]string{p})
		if _, ok := cookieProblemText[p]; !ok || code.MatchString(s) {
			t.Errorf("problem %q reads %q, want a sentence", p, s)
		}
	}
}
