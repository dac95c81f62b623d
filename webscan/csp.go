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
const (
	maxCSPLength     = 16 << 10
	maxCSPDirectives = 64
	maxCSPSources    = 256
)

// Parse errors of ParseCSP.
var (
	errCSPEmpty    = errors.New("empty policy")
	errCSPTooLong  = errors.New("policy too long")
	errCSPBadChar  = errors.New("policy contains a character outside printable ASCII")
	errCSPBadName  = errors.New("invalid directive name")
	errCSPTooLarge = errors.New("too many directives or sources")
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
// that loads code ("http:", "https:", "data:", "blob:", "filesystem:") or a
// scheme with a wildcard host.
func isBroadSource(s string) bool {
	switch s {
	case "*", "http:", "https:", "data:", "blob:", "filesystem:", "http://*", "https://*":
		return true
	}
	return false
}

func isInsecureSource(s string) bool {
	return s == "http:" || s == "ws:" || strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "ws://")
}

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
}

// analyzePolicy computes the flags of a single policy.
func analyzePolicy(p CSPPolicy) cspFlags {
	var f cspFlags
	script, scriptSet := p.Effective("script-src")
	strictDynamic := slices.Contains(script, "'strict-dynamic'")
	nonceOrHash := slices.ContainsFunc(script, isNonceOrHash)
	if !scriptSet {
		f.unsafeInline = true
		f.broadScript = true
	} else {
		// 'unsafe-inline' is ignored by browsers when a nonce or hash is present.
		if slices.Contains(script, "'unsafe-inline'") && !nonceOrHash {
			f.unsafeInline = true
		}
		if slices.Contains(script, "data:") {
			f.unsafeInline = true
		}
		if !strictDynamic && slices.ContainsFunc(script, isBroadSource) {
			f.broadScript = true
		}
		f.unsafeEval = slices.Contains(script, "'unsafe-eval'")
	}
	object, objectSet := p.Effective("object-src")
	if !objectSet || slices.ContainsFunc(object, isBroadSource) {
		f.broadObject = true
	}
	for _, d := range []string{"script-src", "object-src", "style-src", "connect-src", "frame-src", "child-src", "worker-src", "font-src"} {
		v, _ := p.Effective(d)
		if slices.ContainsFunc(v, isInsecureSource) {
			f.insecureActive = true
		}
	}
	for _, d := range []string{"img-src", "media-src"} {
		v, _ := p.Effective(d)
		if slices.ContainsFunc(v, isInsecureSource) {
			f.insecurePassive = true
		}
	}
	style, _ := p.Effective("style-src")
	f.styleUnsafeInline = slices.Contains(style, "'unsafe-inline'")
	f.defaultNone = slices.Equal(p.Directives["default-src"], []string{"'none'"})
	f.formAction = restricted(p.Directives, "form-action")
	f.baseURI = restricted(p.Directives, "base-uri")
	f.frameAncestors = restricted(p.Directives, "frame-ancestors")
	return f
}

// restricted reports whether directive d is present and allows no broad source.
func restricted(dirs map[string][]string, d string) bool {
	v, ok := dirs[d]
	return ok && len(v) > 0 && !slices.ContainsFunc(v, isBroadSource)
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
		c.defaultNone = c.defaultNone || f.defaultNone
		c.formAction = c.formAction || f.formAction
		c.baseURI = c.baseURI || f.baseURI
		c.frameAncestors = c.frameAncestors || f.frameAncestors
	}
	return c
}
