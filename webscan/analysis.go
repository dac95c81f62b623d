package webscan

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// analysis turns the fetched material into results and findings. Every
// method is a pure function of its fields.
type analysis struct {
	primary   *response   // the response whose headers are scored
	httpsOK   bool        // the https session ended on https
	certValid bool        // and its certificate is valid
	all       []*response // every response of both sessions, for cookies
	cors      CORSSummary
	preload   func(host string) *PreloadEntry
	page      page // parsed by headers when the response is HTML
	isHTML    bool
	// cspCapped and cookiesCapped say which caps applied, for the
	// "truncated" finding.
	cspCapped     string
	cookiesCapped int
}

// rawHeaderNames are copied into HeadersResult.Raw when present.
var rawHeaderNames = []string{
	"Content-Security-Policy", "Content-Security-Policy-Report-Only", "Strict-Transport-Security",
	"X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy", "Permissions-Policy",
	"Cross-Origin-Opener-Policy", "Cross-Origin-Embedder-Policy", "Cross-Origin-Resource-Policy",
	"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Content-Type",
}

// findingSpec describes the finding raised by a negative test result.
type findingSpec struct {
	ID, Title, Recommendation string
}

var resultFindings = map[string]findingSpec{
	"csp-not-implemented":                                             {"csp_missing", "No Content-Security-Policy", "Send a Content-Security-Policy; start from default-src 'none' and allow what the page needs, with nonces or hashes for scripts."},
	"csp-not-implemented-but-reporting-enabled":                       {"csp_report_only", "Content-Security-Policy is report-only", "Once the reports are clean, send the same policy as Content-Security-Policy so that it is enforced."},
	"csp-header-invalid":                                              {"csp_invalid", "Content-Security-Policy cannot be parsed", "Fix the policy syntax: directives separated by ';', sources by spaces, printable ASCII only."},
	"csp-implemented-with-unsafe-inline":                              {"csp_unsafe_inline", "Content-Security-Policy allows inline or unrestricted script", "Remove 'unsafe-inline', data:, wildcards and bare schemes from script-src; set object-src 'none'; use nonces or hashes."},
	"csp-implemented-with-insecure-scheme":                            {"csp_insecure_scheme", "Content-Security-Policy allows active content over http", "Allow only https: sources for scripts, styles, frames and connections."},
	"csp-implemented-with-unsafe-eval":                                {"csp_unsafe_eval", "Content-Security-Policy allows 'unsafe-eval'", "Remove 'unsafe-eval' and stop using eval(), new Function() and string timers."},
	"csp-implemented-with-insecure-scheme-in-passive-content-only":    {"csp_insecure_passive_scheme", "Content-Security-Policy allows images or media over http", "Allow only https: sources for img-src and media-src."},
	"cookies-session-without-secure-flag":                             {"cookie_session_not_secure", "Session cookie without Secure", "Set Secure on every cookie, and HttpOnly and SameSite on session cookies."},
	"cookies-session-without-httponly-flag":                           {"cookie_session_not_httponly", "Session cookie without HttpOnly", "Set HttpOnly on session cookies so that scripts cannot read them."},
	"cookies-anticsrf-without-samesite-flag":                          {"cookie_csrf_no_samesite", "Anti-CSRF cookie without SameSite", "Set SameSite=Strict or Lax on anti-CSRF cookies."},
	"cookies-samesite-flag-invalid":                                   {"cookie_samesite_invalid", "Cookie with an invalid SameSite value", "Use SameSite=Strict, Lax or None (None only with Secure)."},
	"cookies-without-secure-flag":                                     {"cookie_not_secure", "Cookies without Secure", "Set Secure on every cookie."},
	"cookies-session-without-secure-flag-but-protected-by-hsts":       {"cookie_session_not_secure_hsts", "Session cookie without Secure (HSTS mitigates)", "Set Secure on every cookie even with HSTS."},
	"cookies-without-secure-flag-but-protected-by-hsts":               {"cookie_not_secure_hsts", "Cookies without Secure (HSTS mitigates)", "Set Secure on every cookie even with HSTS."},
	"cross-origin-embedder-policy-header-invalid":                     {"coep_invalid", "Invalid Cross-Origin-Embedder-Policy", "Use require-corp or credentialless."},
	"cross-origin-opener-policy-header-invalid":                       {"coop_invalid", "Invalid Cross-Origin-Opener-Policy", "Use same-origin (or same-origin-allow-popups)."},
	"cross-origin-resource-policy-header-invalid":                     {"corp_invalid", "Invalid Cross-Origin-Resource-Policy", "Use same-origin or same-site."},
	"cross-origin-resource-sharing-implemented-with-universal-access": {"cors_reflected_with_credentials", "CORS reflects any Origin with credentials", "Check Origin against an allowlist before echoing it, and never combine a reflected Origin with Allow-Credentials: true."},
	"redirection-missing":                                             {"https_redirect_missing", "http does not redirect to https", "Redirect every http request to the same URL on https with a 301 or 308."},
	"redirection-not-to-https":                                        {"https_redirect_not_to_https", "http redirects but never reaches https", "Redirect http requests to https."},
	"redirection-not-to-https-on-initial-redirection":                 {"https_redirect_not_first", "The first redirect stays on http", "Make the first redirect go to https on the same host; redirect elsewhere only afterwards."},
	"redirection-off-host-from-http":                                  {"https_redirect_off_host", "The first redirect leaves the host", "Redirect to https on the same host first, so that the host can set HSTS."},
	"redirection-invalid-cert":                                        {"https_redirect_invalid_cert", "https is reached but its certificate is invalid", "Install a valid certificate from a trusted authority for this host."},
	"referrer-policy-header-invalid":                                  {"referrer_policy_invalid", "Invalid Referrer-Policy", "Use strict-origin-when-cross-origin, same-origin or no-referrer."},
	"referrer-policy-unsafe":                                          {"referrer_policy_unsafe", "Referrer-Policy leaks URLs", "Use strict-origin-when-cross-origin, same-origin or no-referrer."},
	"hsts-not-implemented-no-https":                                   {"hsts_no_https", "The site is not served over https", "Serve the site over https with a valid certificate, then add HSTS."},
	"hsts-invalid-cert":                                               {"hsts_invalid_cert", "HSTS is ineffective: invalid certificate", "Install a valid certificate; browsers ignore HSTS from a host with certificate errors."},
	"hsts-not-implemented":                                            {"hsts_missing", "No Strict-Transport-Security", "Send Strict-Transport-Security: max-age=63072000; includeSubDomains; preload."},
	"hsts-header-invalid":                                             {"hsts_invalid", "Invalid Strict-Transport-Security", "Send exactly one header with a numeric max-age, e.g. max-age=63072000; includeSubDomains."},
	"hsts-implemented-max-age-less-than-six-months":                   {"hsts_short_max_age", "HSTS max-age under six months", "Raise max-age to at least 15552000 (180 days); two years (63072000) is common."},
	"sri-not-implemented-and-external-scripts-not-loaded-securely":    {"sri_insecure_scripts", "Cross-origin scripts over http without integrity", "Load third-party scripts over https with an integrity attribute, or host them yourself."},
	"sri-implemented-but-external-scripts-not-loaded-securely":        {"sri_insecure_scripts_with_sri", "Cross-origin scripts over http", "Load third-party scripts over https."},
	"sri-not-implemented-but-external-scripts-loaded-securely":        {"sri_missing", "Cross-origin scripts without subresource integrity", "Add integrity and crossorigin attributes to third-party scripts."},
	"x-content-type-options-not-implemented":                          {"xcto_missing", "No X-Content-Type-Options", "Send X-Content-Type-Options: nosniff."},
	"x-content-type-options-header-invalid":                           {"xcto_invalid", "Invalid X-Content-Type-Options", "Send exactly X-Content-Type-Options: nosniff."},
	"x-frame-options-not-implemented":                                 {"clickjacking_unprotected", "No framing protection", "Send Content-Security-Policy frame-ancestors 'self' (or 'none'), or X-Frame-Options: DENY."},
	"x-frame-options-header-invalid":                                  {"xfo_invalid", "Invalid X-Frame-Options", "Send X-Frame-Options: DENY or SAMEORIGIN, or use CSP frame-ancestors."},
}

func modifierSeverity(m int) Severity {
	switch {
	case m <= -50:
		return SeverityHigh
	case m <= -20:
		return SeverityMedium
	case m < 0:
		return SeverityLow
	}
	return SeverityInfo
}

func testCategory(name string) Category {
	if name == "cookies" {
		return CategoryCookies
	}
	return CategoryHeaders
}

// headers runs every header test on the primary response.
func (a *analysis) headers(redirects RedirectResult) (HeadersResult, []Finding) {
	h := a.primary.Header
	ct := h.Get("Content-Type")
	a.isHTML = isHTML(ct) || (ct == "" && looksHTML(a.primary.Body, ""))
	if a.isHTML {
		a.page = parsePage(a.primary.Body)
	}
	out := HeadersResult{URL: a.primary.URL.String(), Raw: map[string]string{}}
	for _, n := range rawHeaderNames {
		if v := h.Values(n); len(v) > 0 {
			out.Raw[n] = truncate(strings.Join(v, ", "), 2048)
		}
	}
	var findings []Finding

	pageHTTPS := a.primary.URL.Scheme == "https"
	csp, cspSum, flags, capped := cspTest(cspInput{Enforced: h.Values("Content-Security-Policy"),
		ReportOnly: h.Values("Content-Security-Policy-Report-Only"), Meta: a.page.MetaCSP, HTTPS: pageHTTPS})
	a.cspCapped = capped
	if !cspSum.Present && len(h.Values("Content-Security-Policy-Report-Only")) > 0 {
		cspSum.ReportOnly = true
	}
	out.CSP = cspSum

	hstsHeader := http.Header{}
	if pageHTTPS {
		hstsHeader = h
	}
	var pre *PreloadEntry
	if a.preload != nil {
		pre = a.preload(a.primary.URL.Hostname())
	}
	hsts, hstsSum := hstsTest(hstsHeader, a.httpsOK, a.certValid, pre)
	if n, _ := PreloadListSize(); n == 0 && a.preload != nil && pre == nil {
		hstsSum.PreloadListed = "not_tested"
	}
	out.HSTS = hstsSum

	cookies, dropped := collectCookies(a.all)
	a.cookiesCapped = dropped
	ck, ckSum := cookieTest(cookies, hstsPasses(hsts))
	out.Cookies = ckSum
	out.CORS = a.cors
	sri, scripts := sriTest(a.primary.URL, a.isHTML, a.page.Scripts)
	out.Scripts = scripts

	refVals := append(append([]string{}, h.Values("Referrer-Policy")...), a.page.MetaReferrer...)
	out.Tests = []TestResult{
		csp, ck, coepTest(h), coopTest(h), corpTest(h), corsTest(a.cors),
		redirectionTest(redirects.HTTP, a.httpsOK, a.certValid), referrerTest(refVals),
		hsts, sri, xctoTest(h), xfoTest(h, flags.frameAncestors),
	}
	if a.isHTML && (a.primary.Truncated || a.primary.Partial) {
		// Scripts and meta tags past the cap were not seen: penalties found
		// in the part read stand, but no bonus is awarded from a partial page.
		for i, t := range out.Tests {
			switch t.Name {
			case "content-security-policy", "referrer-policy", "subresource-integrity":
				if t.Modifier > 0 {
					out.Tests[i].Result, out.Tests[i].Modifier = t.Name+"-not-credited-page-truncated", 0
					out.Tests[i].Description = t.Description + " Not credited: the page was longer than the scan reads, so what follows the cap was not analysed."
				}
			}
		}
	}
	out.Score, out.BonusApplied = scoreTests(out.Tests)
	out.Grade = scoreGrade(out.Score)

	for _, t := range out.Tests {
		spec, ok := resultFindings[t.Result]
		if !ok || t.Modifier >= 0 {
			continue
		}
		findings = append(findings, Finding{ID: spec.ID, Category: testCategory(t.Name), Severity: modifierSeverity(t.Modifier),
			Title: spec.Title, Detail: fmt.Sprintf("%s (%s, %d points).", t.Description, t.Result, t.Modifier),
			Evidence: a.testEvidence(t.Name, h, out, redirects), Recommendation: spec.Recommendation})
	}
	findings = append(findings, a.extraHeaderFindings(out)...)
	return out, findings
}

// testEvidence shows what a test read: the header, the redirect hop, the
// probe answer or the offending scripts. Cookie values are never shown.
func (a *analysis) testEvidence(test string, h http.Header, out HeadersResult, redirects RedirectResult) string {
	switch test {
	case "cookies":
		var parts []string
		for _, c := range out.Cookies {
			if len(c.Problems) > 0 {
				parts = append(parts, c.Name+": "+cookieProblemSentence(c.Problems))
			}
		}
		return truncate(strings.Join(parts, "; "), 300)
	case "cross-origin-resource-sharing":
		return truncate(fmt.Sprintf("Origin: %s -> Access-Control-Allow-Origin: %s, Access-Control-Allow-Credentials: %v",
			out.CORS.ProbeOrigin, out.CORS.AllowOrigin, out.CORS.AllowCredentials), 300)
	case "redirection":
		var parts []string
		for _, hop := range redirects.HTTP.Hops {
			parts = append(parts, fmt.Sprintf("%s -> %d", withoutQuery(hop.URL), hop.StatusCode))
		}
		return truncate(strings.Join(parts, ", "), 300)
	case "subresource-integrity":
		var parts []string
		for _, sc := range a.page.Scripts {
			u, err := a.primary.URL.Parse(sc.Src)
			if err != nil || sameOrigin(a.primary.URL, u) {
				continue
			}
			if strings.TrimSpace(sc.Integrity) == "" || u.Scheme != "https" {
				parts = append(parts, `<script src="`+truncate(sc.Src, 120)+`">`)
			}
			if len(parts) == 3 {
				break
			}
		}
		return truncate(strings.Join(parts, " "), 400)
	}
	return testEvidence(h, map[string]string{
		"content-security-policy": "Content-Security-Policy", "strict-transport-security": "Strict-Transport-Security",
		"x-content-type-options": "X-Content-Type-Options", "x-frame-options": "X-Frame-Options",
		"referrer-policy": "Referrer-Policy", "cross-origin-opener-policy": "Cross-Origin-Opener-Policy",
		"cross-origin-embedder-policy": "Cross-Origin-Embedder-Policy", "cross-origin-resource-policy": "Cross-Origin-Resource-Policy",
	}[test])
}

// testEvidence shows one header as received, or notes its absence.
func testEvidence(h http.Header, header string) string {
	if header == "" {
		return ""
	}
	v := h.Values(header)
	if len(v) == 0 {
		return header + ": (absent)"
	}
	return truncate(header+": "+strings.Join(v, ", "), 300)
}

// maxCookies bounds the cookies analysed: well above the 180 per host that
// browsers keep. Past it, cookies are counted and reported (a "truncated"
// finding), never silently ignored.
const maxCookies = 400

// collectCookies parses the Set-Cookie headers of every response; a later
// cookie with the same name replaces an earlier one. dropped counts the
// cookies past maxCookies.
func collectCookies(all []*response) (out []SetCookie, dropped int) {
	idx := map[string]int{}
	for _, r := range all {
		for _, v := range r.Header.Values("Set-Cookie") {
			c, ok := ParseSetCookie(v)
			if !ok {
				continue
			}
			if _, seen := idx[c.Name]; !seen && len(out) >= maxCookies {
				dropped++
				continue
			}
			if i, seen := idx[c.Name]; seen {
				out[i] = c
				continue
			}
			idx[c.Name] = len(out)
			out = append(out, c)
		}
	}
	return out, dropped
}

// truncatedFindings reports every cap that applied to what was analysed:
// the page body, a Content-Security-Policy and the cookie count. What lies
// past a cap is named, and no bonus was awarded from it.
func (a *analysis) truncatedFindings() []Finding {
	var parts []string
	if a.primary.Truncated {
		what := "the page body was longer than the 2 MiB the scan reads"
		if a.isHTML {
			what += fmt.Sprintf("; scripts and meta tags after it were not analysed (%d scripts seen before the cap), and the CSP, referrer and subresource-integrity tests award no bonus", len(a.page.Scripts))
		}
		parts = append(parts, what)
	}
	if a.page.TokensVisited >= maxHTMLTokens {
		parts = append(parts, fmt.Sprintf("the page has more than %d HTML tokens; the rest was not analysed", maxHTMLTokens))
	}
	if a.cspCapped != "" {
		parts = append(parts, "a Content-Security-Policy was not analysed ("+a.cspCapped+") and is scored as invalid")
	}
	if a.cookiesCapped > 0 {
		parts = append(parts, fmt.Sprintf("%d cookies past the first %d were not analysed", a.cookiesCapped, maxCookies))
	}
	if len(parts) == 0 {
		return nil
	}
	return []Finding{{ID: "truncated", Category: CategoryMetadata, Severity: SeverityLow,
		Title: "Part of the site was not analysed (a size cap applied)", Detail: upperFirst(strings.Join(parts, "; ")) + ".",
		Recommendation: "Check the parts named here by hand; the grade covers only what was analysed."}}
}

// cookieFindingProblems are the cookie problems reported one finding per
// cookie, as "cookie_<problem>", because browsers reject such cookies.
var cookieFindingProblems = []string{"host_prefix_violated", "secure_prefix_violated", "samesite_none_without_secure"}

// extraHeaderFindings reports problems that the score does not count.
func (a *analysis) extraHeaderFindings(h HeadersResult) []Finding {
	var f []Finding
	add := func(id string, cat Category, sev Severity, title, detail, ev, rec string) {
		f = append(f, Finding{ID: id, Category: cat, Severity: sev, Title: title, Detail: detail, Evidence: ev, Recommendation: rec})
	}
	if h.CSP.Present && !h.CSP.BaseURIRestricted {
		add("csp_base_uri_missing", CategoryHeaders, SeverityLow, "Content-Security-Policy does not restrict base-uri",
			"Without base-uri, injected <base> tags can redirect relative script URLs.", "", "Add base-uri 'none' (or 'self') to the policy.")
	}
	if h.CSP.Present && len(h.CSP.Duplicates) > 0 {
		add("csp_duplicate_directive", CategoryHeaders, SeverityInfo, "Content-Security-Policy repeats a directive",
			"Browsers ignore every repetition after the first.", strings.Join(h.CSP.Duplicates, ", "), "Merge the repeated directives.")
	}
	if h.CSP.Present && h.CSP.InsecureSchemes && !strings.Contains(h.Tests[0].Result, "insecure-scheme") {
		add("csp_insecure_scheme", CategoryHeaders, SeverityLow, "Content-Security-Policy allows content over http",
			"Sources with http: can be replaced in transit by an attacker on the network.", "", "Allow only https: sources.")
	}
	if h.CSP.Present && h.CSP.UnsafeEval && h.Tests[0].Result != "csp-implemented-with-unsafe-eval" {
		add("csp_unsafe_eval", CategoryHeaders, SeverityLow, "Content-Security-Policy allows 'unsafe-eval'",
			"String-to-code functions remain available to injected script.", "", "Remove 'unsafe-eval'.")
	}
	if a.primary.Header.Get("Permissions-Policy") == "" {
		add("permissions_policy_missing", CategoryHeaders, SeverityInfo, "No Permissions-Policy",
			"Permissions-Policy limits which browser features (camera, geolocation, …) the page and its frames can use. It is not scored.", "",
			"Send a Permissions-Policy that disables the features the site does not use, e.g. camera=(), microphone=(), geolocation=().")
	}
	if h.HSTS.Valid && !h.HSTS.IncludeSubDomains && a.httpsOK {
		add("hsts_no_include_subdomains", CategoryHeaders, SeverityInfo, "HSTS does not cover subdomains",
			"Subdomains can still be reached over http and set cookies for the parent domain.", "",
			"Add includeSubDomains once every subdomain serves https.")
	}
	if h.HSTS.Valid && h.HSTS.Preload && (h.HSTS.MaxAge < 31536000 || !h.HSTS.IncludeSubDomains) {
		add("hsts_preload_ineligible", CategoryHeaders, SeverityInfo, "HSTS asks for preloading but does not qualify",
			"The preload list requires max-age of at least one year (31536000) and includeSubDomains.", testEvidence(a.primary.Header, "Strict-Transport-Security"),
			"Raise max-age to 63072000 and add includeSubDomains, or drop the preload directive.")
	}
	if code := a.primary.StatusCode; !(code >= 200 && code < 400) && code != 401 && code != 403 {
		add("page_status_unexpected", CategoryHeaders, SeverityInfo, "The scanned page returned an error status",
			fmt.Sprintf("The page answered %d; error pages often carry different headers from the real site, so the header score may not be representative.", code), "",
			"Scan a URL that returns the site's normal page.")
	}
	if h.CORS.AllowOrigin == "*" && h.CORS.AllowCredentials {
		add("cors_wildcard_with_credentials", CategoryHeaders, SeverityLow, "CORS combines * with Allow-Credentials",
			"Browsers refuse this combination, which suggests the CORS configuration is being tuned by trial.", "Access-Control-Allow-Origin: *; Access-Control-Allow-Credentials: true",
			"Send a specific origin when credentials are needed, or drop Allow-Credentials.")
	}
	if h.CORS.Reflected && !h.CORS.AllowCredentials {
		add("cors_reflected_origin", CategoryHeaders, SeverityLow, "CORS reflects any Origin",
			"The site echoed a random probe Origin; responses are readable from any site (without cookies).", "Access-Control-Allow-Origin: "+h.CORS.ProbeOrigin,
			"Check Origin against an allowlist before echoing it.")
	}
	for _, c := range h.Cookies {
		for _, p := range c.Problems {
			if contains(cookieFindingProblems, p) {
				add("cookie_"+p, CategoryCookies, SeverityLow, "Cookie "+c.Name+" breaks its prefix or SameSite rules",
					"Browsers reject cookies that violate the __Host-/__Secure- prefix or SameSite=None-without-Secure rules.", c.Name+": "+cookieProblemSentence([]string{p}),
					"__Host- cookies need Secure, Path=/ and no Domain; __Secure- cookies and SameSite=None need Secure.")
			}
		}
	}
	return f
}

// metadata builds the metadata section from the page and side files.
func (a *analysis) metadata(sec SecurityTxt, robots RobotsResult) MetadataResult {
	m := MetadataResult{StatusCode: a.primary.StatusCode, Title: a.page.Title, Generator: a.page.Generator, SecurityTxt: sec, Robots: robots}
	for _, n := range bannerHeaders {
		if v := a.primary.Header.Get(n); v != "" {
			if m.Banners == nil {
				m.Banners = map[string]string{}
			}
			m.Banners[n] = truncate(v, 200)
		}
	}
	return m
}

func (a *analysis) metadataFindings(m MetadataResult) []Finding {
	var f []Finding
	for _, n := range slices.Sorted(maps.Keys(m.Banners)) {
		if v := m.Banners[n]; discloseVersion(v) {
			f = append(f, Finding{ID: "version_disclosed_" + strings.ReplaceAll(strings.ToLower(n), "-", "_"), Category: CategoryMetadata, Severity: SeverityLow,
				Title: "The " + n + " header discloses a software version", Detail: "Version numbers let attackers match the site to known vulnerabilities.",
				Evidence: n + ": " + v, Recommendation: "Remove the version from " + n + " (e.g. ServerTokens Prod, server_tokens off, expose_php Off)."})
		}
	}
	if m.Generator != "" && discloseVersion(m.Generator) {
		f = append(f, Finding{ID: "generator_version_disclosed", Category: CategoryMetadata, Severity: SeverityLow,
			Title: "The generator meta tag discloses a version", Detail: "The page names the software and version that built it.",
			Evidence: `<meta name="generator" content="` + m.Generator + `">`, Recommendation: "Remove the generator meta tag or its version."})
	}
	st := m.SecurityTxt
	switch {
	case !st.Present:
		f = append(f, Finding{ID: "security_txt_missing", Category: CategoryMetadata, Severity: SeverityInfo,
			Title: "No security.txt", Detail: "RFC 9116 /.well-known/security.txt tells researchers how to report vulnerabilities.",
			Recommendation: "Publish /.well-known/security.txt with Contact and Expires fields."})
	case st.Expired:
		f = append(f, Finding{ID: "security_txt_expired", Category: CategoryMetadata, Severity: SeverityLow,
			Title: "security.txt has expired", Detail: "Its Expires date is in the past, so its contents should be treated as stale.",
			Evidence: "Expires: " + st.Expires.Format(time.RFC3339), Recommendation: "Update the Expires field (less than a year ahead) and review the contacts."})
	}
	if st.Present && len(st.Problems) > 0 {
		f = append(f, Finding{ID: "security_txt_invalid", Category: CategoryMetadata, Severity: SeverityInfo,
			Title: "security.txt does not follow RFC 9116", Detail: "Problems: " + strings.Join(st.Problems, ", ") + ".",
			Recommendation: "Include at least one Contact and exactly one Expires (RFC 3339), served at /.well-known/security.txt."})
	}
	if len(m.Robots.Sensitive) > 0 {
		f = append(f, Finding{ID: "robots_sensitive_paths", Category: CategoryMetadata, Severity: SeverityInfo,
			Title: "robots.txt lists sensitive-looking paths", Detail: "robots.txt is public; listing private areas points attackers at them.",
			Evidence: truncate(strings.Join(m.Robots.Sensitive, ", "), 300), Recommendation: "Protect those paths with authentication instead of hiding them in robots.txt."})
	}
	return f
}

// tlsFindings turns the TLS section into findings.
func tlsFindings(r TLSResult, wanted bool) []Finding {
	var f []Finding
	add := func(id string, sev Severity, title, detail, ev, rec string) {
		f = append(f, Finding{ID: id, Category: CategoryTLS, Severity: sev, Title: title, Detail: detail, Evidence: ev, Recommendation: rec})
	}
	if !wanted {
		return f
	}
	if !r.Tested {
		if r.Error == "no_dialer" {
			return f
		}
		add("tls_unavailable", SeverityHigh, "https is not available", "No TLS handshake could be completed on "+r.Address+".", r.Error,
			"Serve the site over https with a certificate from a trusted authority.")
		return f
	}
	if r.Error == "insecure_key" {
		add("tls_key_too_weak", SeverityCritical, "The server key is too weak to connect", "crypto/tls refuses RSA keys under 1024 bits.", "", "Replace the key with RSA 2048+ or ECDSA P-256.")
	}
	if c := r.Certificate; c != nil {
		if c.Expired {
			add("cert_expired", SeverityHigh, "The certificate has expired", "Browsers show a full-page error.", "notAfter "+c.NotAfter.Format(time.RFC3339), "Renew the certificate and automate renewal (ACME).")
		}
		if c.NotYetValid {
			add("cert_not_yet_valid", SeverityHigh, "The certificate is not yet valid", "Its notBefore date is in the future.", "notBefore "+c.NotBefore.Format(time.RFC3339), "Check the server clock and the certificate dates.")
		}
		if c.SelfSigned {
			add("cert_self_signed", SeverityHigh, "The certificate is self-signed", "No browser trusts it.", "issuer = subject: "+c.Subject, "Use a certificate from a publicly trusted authority.")
		} else if !c.Trusted {
			detail := "Verification failed: " + c.TrustError + "."
			if c.ChainLength == 1 && c.TrustError == "unknown_authority" {
				detail += " The server sent only the leaf certificate; if a public CA issued it, the intermediate certificate is missing from the server configuration."
			}
			add("cert_untrusted", SeverityHigh, "The certificate chain is not trusted", detail, "issuer: "+c.Issuer, "Serve the full chain (leaf and intermediates) from a publicly trusted authority.")
		}
		if !c.HostnameMatch {
			add("cert_hostname_mismatch", SeverityHigh, "The certificate does not match the host name", "The certificate names do not cover the scanned host.", "names: "+truncate(strings.Join(c.DNSNames, ", "), 200), "Issue a certificate whose subjectAltName covers the host.")
		}
		if c.KeyType == "RSA" && c.KeyBits < 2048 {
			add("cert_weak_key", SeverityMedium, "The certificate key is weak", fmt.Sprintf("RSA %d-bit keys are below the 2048-bit minimum.", c.KeyBits), fmt.Sprintf("RSA %d", c.KeyBits), "Use RSA 2048+ or ECDSA P-256.")
		}
		if strings.Contains(c.SignatureAlgorithm, "SHA1") || strings.HasPrefix(c.SignatureAlgorithm, "MD") {
			add("cert_weak_signature", SeverityHigh, "The certificate has a weak signature", c.SignatureAlgorithm+" signatures are not accepted by browsers.", c.SignatureAlgorithm, "Reissue the certificate with SHA-256 or better.")
		}
		for _, p := range c.ChainProblems {
			switch p {
			case "incomplete":
				add("cert_chain_incomplete", SeverityMedium, "The certificate chain is incomplete",
					"The server does not send the intermediate certificate(s) between its certificate and a trusted root. Browsers may fetch them; curl, Go, Python, Java and most API clients fail.",
					"issuer not served: "+c.Chain[len(c.Chain)-1], "Configure the server to send the full chain: the leaf, then each intermediate.")
			case "wrong_order":
				add("cert_chain_wrong_order", SeverityLow, "The certificate chain is out of order",
					"A certificate is not followed by its issuer. Most clients reorder, some fail.", truncate(strings.Join(c.Chain, " | "), 300),
					"Send the leaf first, then each issuer in turn.")
			case "weak_signature":
				add("cert_chain_weak_signature", SeverityMedium, "An intermediate certificate has a weak signature",
					"An intermediate is signed with SHA-1 or MD5, which browsers no longer accept.", truncate(strings.Join(c.Chain, " | "), 300),
					"Serve the issuer's current SHA-256 intermediate.")
			case "unrelated":
				add("cert_chain_unrelated", SeverityInfo, "The chain carries a certificate that is on no path",
					"A served certificate neither issued nor was issued by the rest: it costs bytes in every handshake.", truncate(strings.Join(c.Chain, " | "), 300),
					"Remove it from the configured chain.")
			case "validity_too_long":
				add("cert_validity_too_long", SeverityLow, "The certificate is valid for more than 398 days",
					"Publicly trusted certificates may be valid for at most 398 days (CA/Browser Forum); browsers refuse longer ones issued since 2020.",
					"notBefore "+c.NotBefore.Format(time.RFC3339)+", notAfter "+c.NotAfter.Format(time.RFC3339), "Reissue with a shorter validity and automate renewal.")
			}
		}
		if !c.Expired && c.DaysRemaining < 30 {
			add("cert_expiring_soon", SeverityMedium, "The certificate expires soon", fmt.Sprintf("%d days remain.", c.DaysRemaining), "notAfter "+c.NotAfter.Format(time.RFC3339), "Renew now and automate renewal.")
		} else if !c.Expired && c.DaysRemaining < 60 {
			add("cert_expiring", SeverityInfo, "The certificate expires within 60 days", fmt.Sprintf("%d days remain.", c.DaysRemaining), "notAfter "+c.NotAfter.Format(time.RFC3339), "Check that renewal is automated.")
		}
	}
	var old []string
	noTLS13 := false
	for _, p := range r.Protocols {
		if p.Offered && p.Insecure {
			old = append(old, p.Version)
		}
		if p.Version == "TLS 1.3" && p.Tested && !p.Offered {
			noTLS13 = true
		}
	}
	if len(old) > 0 {
		add("tls_legacy_protocols", SeverityMedium, "Obsolete TLS versions are offered", "TLS 1.0 and 1.1 were deprecated by RFC 8996.", strings.Join(old, ", "), "Disable TLS 1.0 and 1.1; offer TLS 1.2 and 1.3.")
	}
	if noTLS13 {
		add("tls13_missing", SeverityLow, "TLS 1.3 is not offered", "TLS 1.3 is faster and removes legacy cryptography.", "", "Enable TLS 1.3.")
	}
	var weak []string
	for _, c := range r.CipherSuites {
		if c.Weak == "rc4" || c.Weak == "64bit_block_cipher" {
			weak = append(weak, c.Name)
		}
	}
	if len(weak) > 0 {
		add("tls_weak_ciphers", SeverityMedium, "Weak cipher suites are accepted", "RC4 and 3DES are broken or limited to 64-bit blocks (SWEET32).", truncate(strings.Join(weak, ", "), 300), "Disable RC4 and 3DES suites.")
	}
	var insecure []string
	for _, c := range r.CipherSuites {
		switch c.Weak {
		case "export", "null_cipher", "anonymous", "des":
			insecure = append(insecure, c.Name)
		}
	}
	if len(insecure) > 0 {
		add("tls_insecure_ciphers", SeverityHigh, "Broken cipher suites are accepted", "Export-grade, NULL, anonymous or single-DES suites let an attacker read or impersonate the server's traffic.", truncate(strings.Join(insecure, ", "), 300), "Disable every export, NULL, anonymous and DES suite.")
	}
	for _, p := range r.Protocols {
		if p.Version == "SSL 3.0" && p.Offered {
			add("tls_sslv3", SeverityHigh, "SSL 3.0 is offered", "SSL 3.0 is broken (POODLE) and was prohibited by RFC 7568.", "", "Disable SSL 3.0.")
		}
	}
	if r.DHBits > 0 && r.DHBits < 2048 {
		add("tls_weak_dh", SeverityMedium, "DHE uses a small group", fmt.Sprintf("A %d-bit Diffie-Hellman group is within reach of precomputation (Logjam).", r.DHBits), fmt.Sprintf("%d bits", r.DHBits), "Use a group of 2048 bits or more (RFC 7919's ffdhe2048), or ECDHE only.")
	}
	if r.Compression != nil && *r.Compression {
		add("tls_compression", SeverityHigh, "TLS compression is enabled", "Compressed TLS leaks secrets such as cookies to an attacker who can add to the requests (CRIME).", "", "Disable TLS compression.")
	}
	if r.SecureRenegotiation == "not_supported" {
		add("tls_insecure_renegotiation", SeverityMedium, "Secure renegotiation is not supported", "Without RFC 5746 an attacker can splice their own request in front of a client's.", "", "Enable the renegotiation_info extension (any current TLS library does).")
	}
	if r.FallbackSCSV == "not_supported" {
		add("tls_no_fallback_scsv", SeverityLow, "Downgraded handshakes are accepted", "A client that retries with an older version is not protected by TLS_FALLBACK_SCSV (RFC 7507).", "", "Support TLS_FALLBACK_SCSV, or offer only TLS 1.2 and 1.3.")
	}
	var nofs []string
	for _, c := range r.CipherSuites {
		if !c.ForwardSecrecy {
			nofs = append(nofs, c.Name)
		}
	}
	if len(nofs) > 0 {
		add("tls_no_forward_secrecy_suites", SeverityLow, "Suites without forward secrecy are accepted", "RSA key exchange lets a stolen key decrypt recorded traffic.", truncate(strings.Join(nofs, ", "), 300), "Accept only ECDHE suites (and TLS 1.3).")
	}
	return f
}

// exposureFindings turns confirmed exposed files into findings.
func exposureFindings(e ExposureResult) []Finding {
	var f []Finding
	for _, x := range e.Exposed {
		rule := exposureRuleByKind(x.Kind)
		if rule == nil {
			continue
		}
		ev := x.Evidence
		for i, s := range x.Secrets {
			if i == 5 {
				ev += fmt.Sprintf("; %d more secrets", len(x.Secrets)-5)
				break
			}
			ev += "; secret " + s.Type + " " + s.Fingerprint
		}
		f = append(f, Finding{ID: "exposed_" + x.Kind, Category: CategoryExposure, Severity: x.Severity,
			Title:    rule.Title + " is publicly readable at " + x.Path,
			Detail:   fmt.Sprintf("GET %s returned %d and its content was recognised as: %s. The match is on content, not status code, and no random-path baseline matches.", x.Path, x.StatusCode, strings.ToLower(rule.Title)),
			Evidence: truncate(ev, 500), Recommendation: rule.Recommendation})
	}
	return f
}

// overallGrade combines the header grade with the TLS and exposure caps.
func overallGrade(h HeadersResult, t TLSResult, e ExposureResult, httpsOK, httpsWanted bool) (string, []GradeReason) {
	g := h.Grade
	reasons := []GradeReason{{Source: "headers", Grade: h.Grade, Reason: fmt.Sprintf("header score %d (%s)", h.Score, AlgorithmVersion)}}
	apply := func(r GradeReason) {
		eff := r.Grade
		if eff == "T" || eff == "M" {
			eff = "F"
		}
		if gradeRank(eff) > gradeRank(g) {
			g = eff
			r.Applied = true
		}
		reasons = append(reasons, r)
	}
	switch {
	case httpsWanted && !httpsOK:
		apply(GradeReason{Source: "https", Grade: "F", Reason: "the site is not reachable over https"})
	case !httpsWanted:
		apply(GradeReason{Source: "https", Grade: "F", Reason: "the scanned URL is plain http on an explicit port, so https could not be checked"})
	}
	if httpsWanted && httpsOK && !t.Tested {
		apply(GradeReason{Source: "tls", Grade: "A", Reason: "TLS was not tested (" + t.Error + "); A+ needs a tested TLS configuration"})
	}
	for _, c := range t.Caps {
		apply(c)
	}
	for _, x := range e.Exposed {
		if c := exposureCap(x.Severity); c != "" {
			apply(GradeReason{Source: "exposure", Grade: c, Reason: fmt.Sprintf("%s exposed at %s (%s)", x.Kind, x.Path, x.Severity)})
		}
	}
	// The header grade itself is applied when no cap lowered it.
	if g == h.Grade {
		reasons[0].Applied = true
	}
	return g, reasons
}

// sortFindings orders findings by severity (worst first), then category and id.
func sortFindings(f []Finding) {
	slices.SortStableFunc(f, func(a, b Finding) int {
		if d := b.Severity.Rank() - a.Severity.Rank(); d != 0 {
			return d
		}
		if c := strings.Compare(string(a.Category), string(b.Category)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// withoutQuery drops a URL's query and fragment for evidence: they can
// carry single sign-on codes or session tokens.
func withoutQuery(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		return raw[:i]
	}
	return raw
}
