package webscan

import (
	"strings"
)

// SetCookie is the security-relevant part of one Set-Cookie header. The
// cookie value is deliberately not kept.
type SetCookie struct {
	Name     string
	Secure   bool
	HTTPOnly bool
	// SameSite is the attribute as sent, lower case ("" when absent).
	SameSite string
	Domain   string
	Path     string
	// HasPath and HasDomain report whether the attributes were present.
	HasPath   bool
	HasDomain bool
}

// ParseSetCookie parses one Set-Cookie header value (RFC 6265bis §5.6). It
// returns false when the header has no cookie name/value pair.
func ParseSetCookie(v string) (SetCookie, bool) {
	var c SetCookie
	if len(v) > 8192 {
		v = v[:8192]
	}
	pair, attrs, _ := strings.Cut(v, ";")
	name, _, ok := strings.Cut(pair, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return c, false
	}
	c.Name = name
	for a := range strings.SplitSeq(attrs, ";") {
		k, val, _ := strings.Cut(a, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		val = strings.TrimSpace(val)
		switch k {
		case "secure":
			c.Secure = true
		case "httponly":
			c.HTTPOnly = true
		case "samesite":
			c.SameSite = strings.ToLower(val)
			if c.SameSite == "" {
				c.SameSite = "invalid"
			}
		case "domain":
			c.Domain, c.HasDomain = val, true
		case "path":
			c.Path, c.HasPath = val, true
		}
	}
	return c, true
}

// isSessionCookie follows the Observatory: a name containing "login" or
// "sess" marks a session cookie.
func isSessionCookie(name string) bool {
	l := strings.ToLower(name)
	return strings.Contains(l, "login") || strings.Contains(l, "sess")
}

func isCSRFCookie(name string) bool {
	return strings.Contains(strings.ToLower(name), "csrf")
}

func validSameSite(s string) bool {
	return s == "" || s == "strict" || s == "lax" || s == "none"
}

// cookieProblems lists the problems of one cookie as short codes.
func cookieProblems(c SetCookie) []string {
	var p []string
	if !c.Secure {
		p = append(p, "missing_secure")
	}
	if isSessionCookie(c.Name) && !c.HTTPOnly {
		p = append(p, "session_missing_httponly")
	}
	if !validSameSite(c.SameSite) {
		p = append(p, "invalid_samesite")
	} else if c.SameSite == "" {
		p = append(p, "missing_samesite")
	}
	if c.SameSite == "none" && !c.Secure {
		p = append(p, "samesite_none_without_secure")
	}
	if strings.HasPrefix(c.Name, "__Host-") && (!c.Secure || c.HasDomain || c.Path != "/") {
		p = append(p, "host_prefix_violated")
	}
	if strings.HasPrefix(c.Name, "__Secure-") && !c.Secure {
		p = append(p, "secure_prefix_violated")
	}
	return p
}

// cookieProblemText says what each problem code means, for evidence a
// person reads; the codes stay in CookieSummary.Problems for programs.
var cookieProblemText = map[string]string{
	"missing_secure":               "no Secure flag (it is sent over plain http too)",
	"session_missing_httponly":     "session cookie without HttpOnly (scripts can read it)",
	"invalid_samesite":             "SameSite value that browsers do not know",
	"missing_samesite":             "no SameSite attribute",
	"samesite_none_without_secure": "SameSite=None without Secure (browsers reject it)",
	"host_prefix_violated":         "__Host- prefix broken (it needs Secure, Path=/ and no Domain)",
	"secure_prefix_violated":       "__Secure- prefix broken (it needs Secure)",
}

// cookieProblemSentence turns problem codes into one readable clause,
// the problems separated by commas.
func cookieProblemSentence(problems []string) string {
	parts := make([]string, 0, len(problems))
	for _, p := range problems {
		if t, ok := cookieProblemText[p]; ok {
			parts = append(parts, t)
		} else {
			parts = append(parts, strings.ReplaceAll(p, "_", " "))
		}
	}
	return strings.Join(parts, ", ")
}

func cookiePrefix(name string) string {
	switch {
	case strings.HasPrefix(name, "__Host-"):
		return "__Host-"
	case strings.HasPrefix(name, "__Secure-"):
		return "__Secure-"
	}
	return ""
}

// cookieTest scores the cookies as the Observatory does. hsts says whether
// the HSTS test passed (max-age of at least six months, or the host is
// preloaded), which softens a missing Secure; a shorter or invalid HSTS
// header does not.
func cookieTest(cookies []SetCookie, hsts bool) (TestResult, []CookieSummary) {
	t := TestResult{Name: "cookies"}
	sums := make([]CookieSummary, 0, len(cookies))
	if len(cookies) == 0 {
		t.Result, t.Description = "cookies-not-found", "No cookies detected."
		t.Pass = true
		return t, sums
	}
	var (
		allSecure, allSameSite                            = true, true
		sessNoSecure, sessNoHTTPOnly, badSameSite, csrfNo bool
	)
	for _, c := range cookies {
		sess := isSessionCookie(c.Name)
		s := CookieSummary{Name: c.Name, Secure: c.Secure, HTTPOnly: c.HTTPOnly, SameSite: c.SameSite,
			Session: sess, Prefix: cookiePrefix(c.Name), Problems: cookieProblems(c)}
		sums = append(sums, s)
		if !c.Secure {
			allSecure = false
			if sess {
				sessNoSecure = true
			}
		}
		if sess && !c.HTTPOnly {
			sessNoHTTPOnly = true
		}
		// SameSite=None without Secure is rejected by browsers; the
		// Observatory scores it as an invalid SameSite.
		if !validSameSite(c.SameSite) || (c.SameSite == "none" && !c.Secure) {
			badSameSite = true
		}
		if c.SameSite == "" {
			allSameSite = false
			if isCSRFCookie(c.Name) {
				csrfNo = true
			}
		}
	}
	switch {
	case sessNoSecure && !hsts:
		t.Result, t.Modifier = "cookies-session-without-secure-flag", -40
		t.Description = "A session cookie is set without the Secure flag."
	case sessNoHTTPOnly:
		t.Result, t.Modifier = "cookies-session-without-httponly-flag", -30
		t.Description = "A session cookie is set without the HttpOnly flag."
	case csrfNo:
		t.Result, t.Modifier = "cookies-anticsrf-without-samesite-flag", -20
		t.Description = "An anti-CSRF cookie is set without the SameSite flag."
	case badSameSite:
		t.Result, t.Modifier = "cookies-samesite-flag-invalid", -20
		t.Description = "A cookie sets an invalid SameSite value, or SameSite=None without Secure."
	case !allSecure && !hsts:
		t.Result, t.Modifier = "cookies-without-secure-flag", -20
		t.Description = "Cookies are set without the Secure flag."
	case sessNoSecure:
		t.Result, t.Modifier = "cookies-session-without-secure-flag-but-protected-by-hsts", -10
		t.Description = "A session cookie lacks the Secure flag, but HSTS protects it."
	case !allSecure:
		t.Result, t.Modifier = "cookies-without-secure-flag-but-protected-by-hsts", -5
		t.Description = "Cookies lack the Secure flag, but HSTS protects them."
	case allSameSite:
		t.Result, t.Modifier = "cookies-secure-with-httponly-sessions-and-samesite", 5
		t.Description = "All cookies are Secure and use SameSite; session cookies are HttpOnly."
	default:
		t.Result = "cookies-secure-with-httponly-sessions"
		t.Description = "All cookies are Secure; session cookies are HttpOnly."
	}
	t.Pass = t.Modifier >= 0
	return t, sums
}
