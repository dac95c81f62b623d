package webscan

import (
	"errors"
	"slices"
	"strings"
)

// CSPPolicy is one parsed Content-Security-Policy (one header value or one
// <meta http-equiv> tag). Directive names are lower case; keyword sources
// ('self', 'unsafe-inline', …) and scheme sources are lower case too.
type CSPPolicy struct {
	// Directives maps a directive name to its source list. When a directive
	// is repeated, the first one wins, as in browsers.
	Directives map[string][]string
	// Order lists the directive names in the order they first appear.
	Order []string
	// Duplicates lists directive names that appeared more than once.
	Duplicates []string
}

// Limits on what ParseCSP accepts, to bound the work on hostile input.
// They are above what real sites send (the largest policies seen are
// around 30 KiB with a few thousand sources); a policy over them is
// reported as not analysed (a "truncated" finding), never passed.
const (
	maxCSPLength     = 64 << 10
	maxCSPDirectives = 128
	maxCSPSources    = 4096
)

// Parse errors of ParseCSP.
var (
	errCSPEmpty    = errors.New("empty policy")
	errCSPTooLong  = errors.New("policy longer than 64 KiB")
	errCSPBadChar  = errors.New("policy contains a character outside printable ASCII")
	errCSPBadName  = errors.New("invalid directive name")
	errCSPTooLarge = errors.New("more than 128 directives or 4096 sources")
)

// ParseCSP parses one serialized policy as in CSP Level 3 §2.2.1: directives
// are separated by ';', a directive is a name followed by space-separated
// source expressions. It returns an error for an empty policy, a policy
// with characters outside printable ASCII, or a malformed directive name.
func ParseCSP(s string) (CSPPolicy, error) {
	p := CSPPolicy{Directives: map[string][]string{}}
	if len(s) > maxCSPLength {
		return p, errCSPTooLong
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\t' {
			continue
		}
		if c < 0x20 || c > 0x7e {
			return p, errCSPBadChar
		}
	}
	for raw := range strings.SplitSeq(s, ";") {
		fields := strings.Fields(raw)
		if len(fields) == 0 {
			continue
		}
		name := strings.ToLower(fields[0])
		if !validDirectiveName(name) {
			return p, errCSPBadName
		}
		if _, dup := p.Directives[name]; dup {
			if !slices.Contains(p.Duplicates, name) {
				p.Duplicates = append(p.Duplicates, name)
			}
			continue
		}
		if len(p.Order) >= maxCSPDirectives || len(fields)-1 > maxCSPSources {
			return p, errCSPTooLarge
		}
		srcs := make([]string, 0, len(fields)-1)
		for _, f := range fields[1:] {
			srcs = append(srcs, normalizeSource(f))
		}
		p.Directives[name] = srcs
		p.Order = append(p.Order, name)
	}
	if len(p.Order) == 0 {
		return p, errCSPEmpty
	}
	return p, nil
}

func validDirectiveName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// normalizeSource lower-cases keywords and scheme sources. Nonces and
// hashes keep their case after the prefix because base64 is case-sensitive.
func normalizeSource(s string) string {
	l := strings.ToLower(s)
	if strings.HasPrefix(l, "'nonce-") || strings.HasPrefix(l, "'sha256-") ||
		strings.HasPrefix(l, "'sha384-") || strings.HasPrefix(l, "'sha512-") {
		i := strings.IndexByte(s, '-')
		return l[:i+1] + s[i+1:]
	}
	if strings.HasPrefix(l, "'") || strings.HasSuffix(l, ":") {
		return l
	}
	// Host sources: the scheme and host are case-insensitive, the path is not.
	if i := strings.Index(l, "://"); i >= 0 {
		rest := s[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return l[:i+3+j] + rest[j:]
		}
		return l
	}
	if j := strings.IndexByte(s, '/'); j >= 0 {
		return l[:j] + s[j:]
	}
	return l
}

// fetchDirectives fall back to default-src when absent.
var fetchDirectives = map[string]bool{
	"child-src": true, "connect-src": true, "font-src": true, "frame-src": true,
	"img-src": true, "manifest-src": true, "media-src": true, "object-src": true,
	"script-src": true, "style-src": true, "worker-src": true,
	"script-src-elem": true, "script-src-attr": true, "style-src-elem": true, "style-src-attr": true,
}

// Effective returns the source list that governs directive d, following
// the default-src fallback for fetch directives, and whether any directive
// governs it at all.
func (p CSPPolicy) Effective(d string) ([]string, bool) {
	if v, ok := p.Directives[d]; ok {
		return v, true
	}
	if fetchDirectives[d] {
		if v, ok := p.Directives["default-src"]; ok {
			return v, true
		}
	}
	return nil, false
}

func isNonceOrHash(s string) bool {
	return strings.HasPrefix(s, "'nonce-") || strings.HasPrefix(s, "'sha256-") ||
		strings.HasPrefix(s, "'sha384-") || strings.HasPrefix(s, "'sha512-")
}

// isBroadSource reports a source that allows any host: "*", a bare scheme
// that loads code ("http:", "https:", "ftp:", "data:", "blob:",
// "filesystem:") or a scheme with a wildcard host. The MDN HTTP Observatory
// counts data: only in script-src and not blob: or filesystem: at all;
// treating every scheme that can carry attacker-chosen code as broad is a
// deliberate, stricter reading (docs/microdefend.md, deviations).
func isBroadSource(s string) bool {
	switch s {
	case "*", "http:", "https:", "ftp:", "data:", "blob:", "filesystem:", "http://*", "https://*", "http://*.*", "https://*.*":
		return true
	}
	return false
}

// isInsecureSource reports a source on a scheme without transport
// security: http:, ftp: (as the Observatory) and ws: (stricter).
func isInsecureSource(s string) bool {
	return strings.HasPrefix(s, "http:") || strings.HasPrefix(s, "ftp:") || strings.HasPrefix(s, "ws:")
}

// passiveDirectives load content that cannot run script.
var passiveDirectives = map[string]bool{"img-src": true, "media-src": true}

// cspFlags is the analysis of one or more policies.
type cspFlags struct {
	unsafeInline      bool // script-src allows inline script (or is unrestricted)
	unsafeEval        bool
	broadScript       bool
	broadObject       bool
	insecureActive    bool
	insecurePassive   bool
	styleUnsafeInline bool
	defaultNone       bool
	formAction        bool
	baseURI           bool
	frameAncestors    bool
	// strictDynamicAlone is 'strict-dynamic' without a nonce or hash: it
	// disables every host source and allows no script at all, which is a
	// broken policy rather than a strict one.
	strictDynamicAlone bool
	// noKnownDirective is a policy none of whose directives browsers know.
	noKnownDirective bool
}

// knownDirectives are the CSP Level 3 directives (and the deprecated ones
// browsers still read).
var knownDirectives = map[string]bool{
	"default-src": true, "script-src": true, "script-src-elem": true, "script-src-attr": true,
	"style-src": true, "style-src-elem": true, "style-src-attr": true, "img-src": true, "media-src": true,
	"font-src": true, "connect-src": true, "object-src": true, "frame-src": true, "child-src": true,
	"worker-src": true, "manifest-src": true, "prefetch-src": true, "fenced-frame-src": true,
	"base-uri": true, "form-action": true, "frame-ancestors": true, "sandbox": true,
	"navigate-to": true, "report-uri": true, "report-to": true, "upgrade-insecure-requests": true,
	"block-all-mixed-content": true, "require-trusted-types-for": true, "trusted-types": true,
	"require-sri-for": true, "plugin-types": true, "webrtc": true,
}

// sourceList returns directive d's sources as a browser reads them: an
// empty list means 'none' (CSP3 §2.3.1), so "frame-ancestors;" forbids
// framing altogether.
func (p CSPPolicy) sourceList(d string) ([]string, bool) {
	v, ok := p.Effective(d)
	if ok && len(v) == 0 {
		return []string{"'none'"}, true
	}
	return v, ok
}

// analyzePolicy computes the flags of a single policy. https says whether
// the page was served over https: insecure sources are counted only there,
// as the Observatory does (on an http page every load is already insecure).
func analyzePolicy(p CSPPolicy, https bool) cspFlags {
	var f cspFlags
	f.noKnownDirective = !slices.ContainsFunc(p.Order, func(d string) bool { return knownDirectives[d] })
	script, scriptSet := p.sourceList("script-src")
	style, styleSet := p.sourceList("style-src")
	if !styleSet {
		style = []string{"*"} // no style restriction at all
	}
	script, style = slices.Clone(script), slices.Clone(style)
	// 'unsafe-inline' is ignored by browsers when a nonce or hash is present.
	if slices.ContainsFunc(script, isNonceOrHash) {
		script = slices.DeleteFunc(script, func(s string) bool { return s == "'unsafe-inline'" })
	}
	if slices.ContainsFunc(style, isNonceOrHash) {
		style = slices.DeleteFunc(style, func(s string) bool { return s == "'unsafe-inline'" })
	}
	if slices.Contains(script, "'strict-dynamic'") {
		if slices.ContainsFunc(script, isNonceOrHash) {
			// Host sources, 'self' and 'unsafe-inline' are ignored.
			script = slices.DeleteFunc(script, func(s string) bool {
				return isBroadSource(s) || s == "'self'" || s == "'unsafe-inline'"
			})
		} else {
			f.strictDynamicAlone = true
		}
	}
	if !scriptSet {
		f.unsafeInline = true
		f.broadScript = true
	} else {
		f.unsafeInline = slices.Contains(script, "'unsafe-inline'") || slices.Contains(script, "data:")
		f.broadScript = slices.ContainsFunc(script, isBroadSource)
	}
	f.unsafeEval = slices.Contains(script, "'unsafe-eval'") || slices.Contains(style, "'unsafe-eval'")
	object, objectSet := p.sourceList("object-src")
	if !objectSet || slices.ContainsFunc(object, isBroadSource) {
		f.broadObject = true
	}
	if https {
		for _, d := range p.Order {
			if passiveDirectives[d] || d == "script-src" {
				continue
			}
			if slices.ContainsFunc(p.Directives[d], isInsecureSource) {
				f.insecureActive = true
			}
		}
		if slices.ContainsFunc(script, isInsecureSource) {
			f.insecureActive = true
		}
		for d := range passiveDirectives {
			v, _ := p.sourceList(d)
			if slices.ContainsFunc(v, isInsecureSource) {
				f.insecurePassive = true
			}
		}
	}
	f.styleUnsafeInline = slices.Contains(style, "'unsafe-inline'") || slices.ContainsFunc(style, isBroadSource)
	f.defaultNone = slices.Equal(p.Directives["default-src"], []string{"'none'"})
	f.formAction = restricted(p, "form-action")
	f.baseURI = restricted(p, "base-uri")
	f.frameAncestors = restricted(p, "frame-ancestors")
	return f
}

// restricted reports whether directive d is present and allows no broad source.
func restricted(p CSPPolicy, d string) bool {
	v, ok := p.sourceList(d)
	return ok && !slices.ContainsFunc(v, isBroadSource)
}

// combineFlags merges the flags of several enforced policies. Browsers
// enforce every policy, so a weakness counts only if every policy has it,
// and a restriction counts if any policy has it.
func combineFlags(fs []cspFlags) cspFlags {
	if len(fs) == 0 {
		return cspFlags{}
	}
	c := fs[0]
	for _, f := range fs[1:] {
		c.unsafeInline = c.unsafeInline && f.unsafeInline
		c.unsafeEval = c.unsafeEval && f.unsafeEval
		c.broadScript = c.broadScript && f.broadScript
		c.broadObject = c.broadObject && f.broadObject
		c.insecureActive = c.insecureActive && f.insecureActive
		c.insecurePassive = c.insecurePassive && f.insecurePassive
		c.styleUnsafeInline = c.styleUnsafeInline && f.styleUnsafeInline
		c.strictDynamicAlone = c.strictDynamicAlone || f.strictDynamicAlone
		c.noKnownDirective = c.noKnownDirective && f.noKnownDirective
		c.defaultNone = c.defaultNone || f.defaultNone
		c.formAction = c.formAction || f.formAction
		c.baseURI = c.baseURI || f.baseURI
		c.frameAncestors = c.frameAncestors || f.frameAncestors
	}
	return c
}
