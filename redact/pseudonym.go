package redact

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"net/netip"
	"strings"
	"sync"
)

// Strict mode's pseudonyms. Every pseudonym is a keyed token,
// HMAC-SHA-256(PseudonymKey, "warden-redact/v1" 0x00 kind 0x00 value)
// truncated to 48 bits (12 hex digits), so equal values give equal tokens
// under one key and nothing links them across keys. They are shaped to stay
// usable where the value stood: host names and IP addresses become host
// names under the reserved .invalid top-level domain (RFC 2606), which
// never resolves, so a URL stays a URL and a pseudonym can never reach a
// real machine; e-mail addresses stay addresses; paths stay paths.

const (
	pseudoVersion = "warden-redact/v1"
	tokenBytes    = 6 // 48 bits, 12 hex digits
	invalidTLD    = ".invalid"
)

// pseudonymizer derives tokens under one key. It is safe for concurrent
// use.
type pseudonymizer struct {
	pool sync.Pool // *macState
}

// macState is an HMAC-SHA-256 under the key and its buffers, reused.
type macState struct {
	h   hash.Hash
	msg []byte
	sum [sha256.Size]byte
}

func newPseudonymizer(key []byte) *pseudonymizer {
	k := append([]byte(nil), key...)
	p := &pseudonymizer{}
	p.pool.New = func() any { return &macState{h: hmac.New(sha256.New, k)} }
	return p
}

// token returns the 12 hex digits of kind and canonical value.
func (p *pseudonymizer) token(kind, canonical string) string {
	m := p.pool.Get().(*macState)
	msg := append(m.msg[:0], pseudoVersion...)
	msg = append(msg, 0)
	msg = append(msg, kind...)
	msg = append(msg, 0)
	msg = append(msg, canonical...)
	m.h.Reset()
	m.h.Write(msg)
	sum := m.h.Sum(m.sum[:0])
	var out [2 * tokenBytes]byte
	hex.Encode(out[:], sum[:tokenBytes])
	if cap(msg) <= 4096 {
		m.msg = msg
	}
	p.pool.Put(m)
	return string(out[:])
}

// host returns the pseudonym of a host name or IP address without a port:
// "host-<12 hex>.invalid", or the IP form. Loopback names and addresses,
// the unspecified address and names under .invalid (pseudonyms among
// them) are kept: they identify nothing.
func (p *pseudonymizer) host(h string) string {
	if h == "" {
		return h
	}
	inner := h
	if len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' {
		inner = h[1 : len(h)-1]
	}
	if maybeIP(inner) {
		a, err := netip.ParseAddr(inner)
		if err != nil {
			return "host-" + p.token("host", strings.ToLower(h)) + invalidTLD
		}
		if ps := p.ip(a); ps != "" {
			return ps
		}
		return h
	}
	lower := strings.ToLower(strings.TrimSuffix(h, "."))
	if keptHost(lower) {
		return h
	}
	if rest, ok := strings.CutPrefix(lower, "*."); ok {
		if keptHost(rest) {
			return h
		}
		return "*.host-" + p.token("host", rest) + invalidTLD
	}
	return "host-" + p.token("host", lower) + invalidTLD
}

// maybeIP reports whether s could be an IP address: digits and dots, or
// anything with a colon. It spares host names a failed parse, which
// allocates.
func maybeIP(s string) bool {
	if strings.IndexByte(s, ':') >= 0 {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '.' && (c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// keptHost reports whether a lower-case host name identifies nothing:
// localhost (RFC 6761) and the .invalid domain, where pseudonyms live.
func keptHost(h string) bool {
	return h == "localhost" || strings.HasSuffix(h, ".localhost") ||
		h == "invalid" || strings.HasSuffix(h, invalidTLD)
}

// ip returns the pseudonym of an address, "ip4-<12 hex>.<class>.invalid"
// or "ip6-...", where class is private, linklocal, public or other, so a
// reader still sees an internal address disclosed; or "" for loopback and
// unspecified addresses, which are kept. The zone is dropped.
func (p *pseudonymizer) ip(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if a.IsLoopback() || a.IsUnspecified() {
		return ""
	}
	fam := "ip6-"
	if a.Is4() {
		fam = "ip4-"
	}
	return fam + p.token("ip", a.String()) + "." + ipClass(a) + invalidTLD
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

func ipClass(a netip.Addr) string {
	switch {
	case a.IsPrivate() || cgnat.Contains(a):
		return "private"
	case a.IsLinkLocalUnicast():
		return "linklocal"
	case a.IsGlobalUnicast():
		return "public"
	}
	return "other"
}

// hostPort pseudonymizes a host with an optional port ("h", "h:443",
// "[v6]:443", a bare IPv6 address), keeping the port.
func (p *pseudonymizer) hostPort(v string) string {
	if v == "" {
		return v
	}
	if h, port, ok := splitHostPort(v); ok {
		ps := p.host(h)
		if ps == h {
			return v
		}
		return ps + ":" + port // a pseudonym has no colon
	}
	return p.host(v)
}

// splitHostPort splits "host:port" and "[v6]:port" with a numeric port;
// ok is false for anything else (a bare IPv6 address among them). Unlike
// net.SplitHostPort it does not allocate.
func splitHostPort(v string) (host, port string, ok bool) {
	i := strings.LastIndexByte(v, ':')
	if i < 0 || !digits(v[i+1:]) {
		return "", "", false
	}
	host = v[:i]
	if strings.HasPrefix(host, "[") {
		if !strings.HasSuffix(host, "]") || strings.IndexByte(host[1:], '[') >= 0 {
			return "", "", false
		}
		return host[1 : len(host)-1], v[i+1:], true
	}
	if strings.IndexByte(host, ':') >= 0 || strings.ContainsAny(host, "[]") {
		return "", "", false // a bare IPv6 address, or malformed
	}
	return host, v[i+1:], true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// email returns "user-<12 hex>@host-<12 hex>.invalid": the local part is
// keyed on the whole address (lower-cased), the domain gets its host
// pseudonym, so addresses at one domain stay visibly related. A display
// name ("Alice <alice@example.com>") is dropped. A value with no "@" is
// still replaced.
func (p *pseudonymizer) email(v string) string {
	if v == "" {
		return v
	}
	addr := strings.TrimSpace(v)
	if i := strings.LastIndexByte(addr, '<'); i >= 0 {
		if j := strings.IndexByte(addr[i:], '>'); j > 0 {
			addr = addr[i+1 : i+j]
		}
	}
	at := strings.LastIndexByte(addr, '@')
	if at <= 0 || at == len(addr)-1 {
		return "user-" + p.token("email", strings.ToLower(addr)) + "@unknown" + invalidTLD
	}
	local, domain := addr[:at], addr[at+1:]
	if isPseudoLabel(local, "user-") && p.host(domain) == domain && addr == v {
		return v // already a pseudonym
	}
	return "user-" + p.token("email", strings.ToLower(addr)) + "@" + p.host(domain)
}

// isPseudoLabel reports whether s is prefix followed by 12 hex digits.
func isPseudoLabel(s, prefix string) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || len(rest) != 2*tokenBytes {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !isHexDigit(rest[i]) {
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// path returns "path-<12 hex>" keyed on the whole path, keeping what
// identifies nothing: the root form ("/", "C:\", "\\" for UNC), the file
// extension (up to 10 letters and digits) and a trailing separator.
// "/home/alice/acme-report.pdf" becomes "/path-3f9a1c2b7d00.pdf".
func (p *pseudonymizer) path(v string) string {
	if v == "" {
		return v
	}
	root, rest := splitRoot(v)
	trail := ""
	if n := len(rest); n > 0 && (rest[n-1] == '/' || rest[n-1] == '\\') {
		trail = rest[n-1:]
		rest = rest[:n-1]
	}
	if rest == "" {
		return v // a root alone
	}
	base := rest
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	ext := ""
	if i := strings.LastIndexByte(base, '.'); i > 0 && len(base)-i-1 <= 10 && alnum(base[i+1:]) {
		ext = base[i:]
	}
	if base == rest && isPseudoLabel(strings.TrimSuffix(base, ext), "path-") {
		return v // already a pseudonym
	}
	return root + "path-" + p.token("path", v) + ext + trail
}

// splitRoot separates a path's root: "/" (POSIX), "C:\" or "C:/"
// (Windows drive), "\\" (UNC; the server name is not kept) or "~/".
func splitRoot(v string) (root, rest string) {
	switch {
	case strings.HasPrefix(v, `\\`) || strings.HasPrefix(v, "//"):
		return v[:2], v[2:]
	case strings.HasPrefix(v, "~/"):
		return v[:2], v[2:]
	case len(v) >= 3 && isLetter(v[0]) && v[1] == ':' && (v[2] == '\\' || v[2] == '/'):
		return v[:3], v[3:]
	case v[0] == '/' || v[0] == '\\':
		return v[:1], v[1:]
	}
	return "", v
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func alnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && (c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}
