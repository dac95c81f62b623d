package webscan

import (
	"net/http"
	"slices"
	"strings"
)

// cspInput is what the CSP test reads.
type cspInput struct {
	Enforced   []string // Content-Security-Policy header values
	ReportOnly []string // Content-Security-Policy-Report-Only values
	Meta       []string // <meta http-equiv="Content-Security-Policy"> contents
	// HTTPS says the page was served over https; insecure sources are
	// counted only then.
	HTTPS bool
}

// cspDuplicatesAllowed may repeat without making the policy invalid, as in
// the Observatory: reporting endpoints only.
var cspDuplicatesAllowed = map[string]bool{"report-uri": true, "report-to": true}

// cspTest scores the policy and returns its summary and flags. capped is
// non-empty when a policy was over a size cap and so not analysed.
func cspTest(in cspInput) (t TestResult, sum CSPSummary, f cspFlags, capped string) {
	t = TestResult{Name: "content-security-policy"}
	var flags []cspFlags
	valid := true
	why := ""
	for i, raw := range append(append([]string{}, in.Enforced...), in.Meta...) {
		for part := range strings.SplitSeq(raw, ",") { // comma-joined headers are separate policies
			p, err := ParseCSP(part)
			if err != nil {
				valid = false
				if why == "" {
					why = err.Error()
				}
				if err == errCSPTooLong || err == errCSPTooLarge {
					capped = err.Error()
				}
				continue
			}
			if i >= len(in.Enforced) {
				sum.FromMeta = true
				// frame-ancestors, report-uri and sandbox are ignored in <meta>.
				for _, d := range []string{"frame-ancestors", "report-uri", "sandbox"} {
					delete(p.Directives, d)
					p.Order = slices.DeleteFunc(p.Order, func(s string) bool { return s == d })
				}
			}
			if sum.Directives == nil {
				sum.Directives = p.Directives
			}
			for _, d := range p.Duplicates {
				if !cspDuplicatesAllowed[d] {
					valid = false
					if why == "" {
						why = "the directive " + d + " is repeated (browsers ignore the repetition)"
					}
				}
			}
			sum.Duplicates = append(sum.Duplicates, p.Duplicates...)
			flags = append(flags, analyzePolicy(p, in.HTTPS))
		}
	}
	sum.Present = len(flags) > 0
	if !sum.Present {
		switch {
		case !valid:
			t.Result, t.Modifier = "csp-header-invalid", -25
			t.Description = "The Content-Security-Policy header cannot be parsed: " + why + "."
		case len(in.ReportOnly) > 0:
			sum.ReportOnly = true
			// Show what the report-only policy would enforce, without scoring it.
			if p, err := ParseCSP(strings.Split(in.ReportOnly[0], ",")[0]); err == nil {
				f := analyzePolicy(p, in.HTTPS)
				sum.Directives = p.Directives
				sum.UnsafeInline, sum.UnsafeEval = f.unsafeInline, f.unsafeEval
				sum.BroadScriptSrc, sum.BroadObjectSrc = f.broadScript, f.broadObject
				sum.InsecureSchemes = f.insecureActive || f.insecurePassive
				sum.BaseURIRestricted, sum.DefaultNone, sum.FormAction = f.baseURI, f.defaultNone, f.formAction
			}
			t.Result, t.Modifier = "csp-not-implemented-but-reporting-enabled", -25
			t.Description = "Only Content-Security-Policy-Report-Only is set: nothing is enforced."
		default:
			t.Result, t.Modifier = "csp-not-implemented", -25
			t.Description = "Content-Security-Policy is not set."
		}
		return t, sum, cspFlags{}, capped
	}
	f = combineFlags(flags)
	sum.UnsafeInline, sum.UnsafeEval = f.unsafeInline, f.unsafeEval
	sum.BroadScriptSrc, sum.BroadObjectSrc = f.broadScript, f.broadObject
	sum.InsecureSchemes = f.insecureActive || f.insecurePassive
	sum.BaseURIRestricted, sum.FrameAncestors = f.baseURI, f.frameAncestors
	sum.DefaultNone, sum.FormAction = f.defaultNone, f.formAction
	switch {
	case !valid:
		t.Result, t.Modifier = "csp-header-invalid", -25
		t.Description = "The Content-Security-Policy is invalid: " + why + "."
	case f.noKnownDirective:
		t.Result, t.Modifier = "csp-header-invalid", -25
		t.Description = "The Content-Security-Policy names no directive that browsers know, so it restricts nothing."
	case f.strictDynamicAlone:
		t.Result, t.Modifier = "csp-header-invalid", -25
		t.Description = "The policy uses 'strict-dynamic' without a nonce or hash, so no script can load: the policy is broken, not strict."
	case f.unsafeInline || f.broadScript || f.broadObject:
		t.Result, t.Modifier = "csp-implemented-with-unsafe-inline", -20
		t.Description = "The policy allows inline or unrestricted script, or unrestricted plugins (object-src)."
	case f.insecureActive:
		t.Result, t.Modifier = "csp-implemented-with-insecure-scheme", -20
		t.Description = "The policy allows sources over an insecure scheme (http:, ftp:, ws:) outside images and media."
	case f.unsafeEval:
		t.Result, t.Modifier = "csp-implemented-with-unsafe-eval", -10
		t.Description = "The policy allows 'unsafe-eval'."
	case f.insecurePassive:
		t.Result, t.Modifier = "csp-implemented-with-insecure-scheme-in-passive-content-only", -10
		t.Description = "The policy allows images or media over http:."
	case f.styleUnsafeInline:
		t.Result = "csp-implemented-with-unsafe-inline-in-style-src-only"
		t.Description = "The policy is strict except for inline or unrestricted styles."
	case f.defaultNone:
		t.Result, t.Modifier = "csp-implemented-with-no-unsafe-default-src-none", 10
		t.Description = "The policy starts from default-src 'none' with no unsafe sources."
	default:
		t.Result, t.Modifier = "csp-implemented-with-no-unsafe", 5
		t.Description = "The policy blocks inline script and has no unsafe sources."
	}
	if t.Modifier >= 0 && len(sum.Duplicates) > 0 {
		// A repeated reporting directive is tolerated, but earns no bonus,
		// so that it gets noticed (the Observatory's rule).
		t.Result, t.Modifier = "csp-implemented-but-duplicate-directives", 0
		t.Description = "The policy is sound but repeats " + strings.Join(sum.Duplicates, ", ") + "; browsers ignore the repetition."
	}
	if !valid || f.noKnownDirective {
		f.frameAncestors = false // an unparsable policy earns no framing credit
	}
	t.Pass = t.Modifier >= 0
	return t, sum, f, capped
}

// xctoTest checks X-Content-Type-Options.
func xctoTest(h http.Header) TestResult {
	t := TestResult{Name: "x-content-type-options"}
	v := h.Values("X-Content-Type-Options")
	switch {
	case len(v) == 0:
		t.Result, t.Modifier = "x-content-type-options-not-implemented", -5
		t.Description = "X-Content-Type-Options is not set."
	case len(v) == 1 && strings.EqualFold(strings.TrimSpace(v[0]), "nosniff"):
		t.Result = "x-content-type-options-nosniff"
		t.Description = "X-Content-Type-Options is nosniff."
	default:
		t.Result, t.Modifier = "x-content-type-options-header-invalid", -5
		t.Description = "X-Content-Type-Options is set to an invalid value."
	}
	t.Pass = t.Modifier >= 0
	return t
}

// xfoTest checks X-Frame-Options, crediting CSP frame-ancestors.
func xfoTest(h http.Header, frameAncestors bool) TestResult {
	t := TestResult{Name: "x-frame-options"}
	v := h.Values("X-Frame-Options")
	val := ""
	if len(v) == 1 {
		val = strings.ToUpper(strings.TrimSpace(v[0]))
	}
	switch {
	case frameAncestors:
		t.Result, t.Modifier = "x-frame-options-implemented-via-csp", 5
		t.Description = "Framing is restricted by CSP frame-ancestors."
	case len(v) == 0:
		t.Result, t.Modifier = "x-frame-options-not-implemented", -20
		t.Description = "Neither X-Frame-Options nor CSP frame-ancestors is set."
	case val == "DENY" || val == "SAMEORIGIN":
		// No bonus: the Observatory gives one only to CSP frame-ancestors.
		t.Result = "x-frame-options-sameorigin-or-deny"
		t.Description = "X-Frame-Options is " + val + "."
	case strings.HasPrefix(val, "ALLOW-FROM "):
		t.Result = "x-frame-options-allow-from-origin"
		t.Description = "X-Frame-Options uses the obsolete ALLOW-FROM."
	default:
		t.Result, t.Modifier = "x-frame-options-header-invalid", -20
		t.Description = "X-Frame-Options is set to an invalid value."
	}
	t.Pass = t.Modifier >= 0
	return t
}

var referrerValues = map[string]int{
	"no-referrer": 1, "same-origin": 1, "strict-origin": 1, "strict-origin-when-cross-origin": 1,
	"origin": -1, "origin-when-cross-origin": -1, "unsafe-url": -1, "no-referrer-when-downgrade": -1,
}

// ParseReferrerPolicy returns the policy a browser would apply from a list
// of header and meta values: the last recognised token wins. ok is false
// when no token is recognised.
func ParseReferrerPolicy(values []string) (policy string, ok bool) {
	for _, v := range values {
		for tok := range strings.SplitSeq(v, ",") {
			tok = strings.ToLower(strings.TrimSpace(tok))
			if _, known := referrerValues[tok]; known {
				policy, ok = tok, true
			}
		}
	}
	return policy, ok
}

// referrerTest checks Referrer-Policy (header values, then <meta> values).
func referrerTest(values []string) TestResult {
	t := TestResult{Name: "referrer-policy"}
	p, ok := ParseReferrerPolicy(values)
	switch {
	case len(values) == 0:
		t.Result = "referrer-policy-not-implemented"
		t.Description = "Referrer-Policy is not set; browsers default to strict-origin-when-cross-origin."
	case !ok:
		t.Result, t.Modifier = "referrer-policy-header-invalid", -5
		t.Description = "Referrer-Policy is set to an invalid value."
	case referrerValues[p] > 0:
		t.Result, t.Modifier = "referrer-policy-private", 5
		t.Description = "Referrer-Policy is " + p + "."
	default:
		t.Result, t.Modifier = "referrer-policy-unsafe", -5
		t.Description = "Referrer-Policy " + p + " leaks URLs to other origins."
	}
	t.Pass = t.Modifier >= 0
	return t
}

// crossOriginTest scores COOP, COEP and CORP, which share one shape.
func crossOriginTest(name string, h http.Header, header string, good []string, neutral []string) TestResult {
	t := TestResult{Name: name}
	v := h.Values(header)
	val := ""
	if len(v) == 1 {
		// Values are tokens compared case-sensitively, as browsers do:
		// "Same-Origin" is not same-origin and isolates nothing.
		val = strings.TrimSpace(v[0])
		// Structured-field parameters such as ;report-to="x" are allowed.
		val, _, _ = strings.Cut(val, ";")
		val = strings.TrimSpace(val)
	}
	switch {
	case len(v) == 0:
		t.Result = name + "-not-implemented"
		t.Description = header + " is not set."
	case contains(good, val):
		t.Result, t.Modifier = name+"-implemented", 10
		t.Description = header + " is " + val + "."
	case contains(neutral, val):
		t.Result = name + "-implemented-" + val
		t.Description = header + " is " + val + ", which adds no isolation."
	default:
		t.Result, t.Modifier = name+"-header-invalid", -5
		t.Description = header + " is set to an invalid value."
	}
	t.Pass = t.Modifier >= 0
	return t
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func coopTest(h http.Header) TestResult {
	return crossOriginTest("cross-origin-opener-policy", h, "Cross-Origin-Opener-Policy",
		[]string{"same-origin", "same-origin-allow-popups", "noopener-allow-popups"}, []string{"unsafe-none"})
}

func coepTest(h http.Header) TestResult {
	return crossOriginTest("cross-origin-embedder-policy", h, "Cross-Origin-Embedder-Policy",
		[]string{"require-corp", "credentialless"}, []string{"unsafe-none"})
}

func corpTest(h http.Header) TestResult {
	return crossOriginTest("cross-origin-resource-policy", h, "Cross-Origin-Resource-Policy",
		[]string{"same-origin", "same-site"}, []string{"cross-origin"})
}

// hstsTest scores Strict-Transport-Security on the final https response.
// https says the https session ended on an https response; certValid that
// its certificate is valid; preload is the preload-list entry of the host
// (nil when it is not listed), which earns the Observatory's bonus
// whenever https answered at all.
func hstsTest(h http.Header, https, certValid bool, preload *PreloadEntry) (TestResult, HSTSSummary) {
	t := TestResult{Name: "strict-transport-security"}
	sum := HSTSSummary{PreloadListed: "no"}
	if preload != nil {
		sum.PreloadListed = "yes"
	}
	vals := h.Values("Strict-Transport-Security")
	sum.Present = len(vals) > 0
	var parsed HSTS
	var err error
	if sum.Present {
		parsed, err = ParseHSTS(vals)
		if err == nil {
			sum.Valid = true
			sum.MaxAge, sum.IncludeSubDomains, sum.Preload = parsed.MaxAge, parsed.IncludeSubDomains, parsed.Preload
		}
	}
	switch {
	case https && preload != nil:
		t.Result, t.Modifier = "hsts-preloaded", 5
		t.Description = "The host is on the browsers' HSTS preload list (" + preload.Name + ")."
	case !https:
		t.Result, t.Modifier = "hsts-not-implemented-no-https", -20
		t.Description = "HSTS cannot be set: the site is not served over https."
	case !certValid:
		t.Result, t.Modifier = "hsts-invalid-cert", -20
		t.Description = "HSTS is ineffective: the certificate is not valid."
	case !sum.Present:
		t.Result, t.Modifier = "hsts-not-implemented", -20
		t.Description = "Strict-Transport-Security is not set."
	case err != nil:
		t.Result, t.Modifier = "hsts-header-invalid", -20
		t.Description = "Strict-Transport-Security is invalid: " + err.Error() + "."
	case parsed.MaxAge < hstsSixMonths:
		t.Result, t.Modifier = "hsts-implemented-max-age-less-than-six-months", -10
		t.Description = "HSTS max-age is under six months."
	default:
		t.Result = "hsts-implemented-max-age-at-least-six-months"
		t.Description = "HSTS max-age is at least six months."
	}
	t.Pass = t.Modifier >= 0
	return t, sum
}

// hstsPasses reports an HSTS result that protects cookies: a max-age of
// at least six months or a preloaded host, as the Observatory requires.
func hstsPasses(t TestResult) bool {
	return t.Result == "hsts-implemented-max-age-at-least-six-months" || t.Result == "hsts-preloaded"
}

// corsTest scores the answer to the probe Origin.
func corsTest(c CORSSummary) TestResult {
	t := TestResult{Name: "cross-origin-resource-sharing"}
	switch {
	case c.AllowOrigin == "":
		t.Result = "cross-origin-resource-sharing-not-implemented"
		t.Description = "No Access-Control-Allow-Origin header was returned to a foreign Origin."
	case c.Reflected && c.AllowCredentials:
		t.Result, t.Modifier = "cross-origin-resource-sharing-implemented-with-universal-access", -50
		t.Description = "Any origin may read credentialed responses: the Origin is echoed with Allow-Credentials: true."
	case c.AllowOrigin == "*":
		t.Result = "cross-origin-resource-sharing-implemented-with-public-access"
		t.Description = "Public resources are readable by any origin (Access-Control-Allow-Origin: *)."
	default:
		t.Result = "cross-origin-resource-sharing-implemented-with-restricted-access"
		t.Description = "Cross-origin access is limited to specific origins."
	}
	t.Pass = t.Modifier >= 0
	return t
}
