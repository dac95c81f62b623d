package redact

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/warden-mcp/warden/privacy"
)

// Strict's pass over free text: the host names, IP addresses, e-mail
// addresses and local paths in any string of a result get the pseudonyms
// their typed fields get. Free text is not typed, so each is recognised by
// its shape, and the shapes are narrow on purpose: a false match mangles
// what a reader needs (a version number, a Go package path, a C++ name,
// a URL's path), a miss leaves one identity in clear.
//
//   - A URL's host, after "scheme://": any host name or address; a file:
//     URL's path as a path.
//   - An e-mail address: a local part, "@", and a domain of two or more
//     labels ending in letters ("pkg@v1.2.3" and "image@sha256:..." are
//     not addresses).
//   - An IPv4 address: four decimal octets, not inside a longer dotted
//     number or a word ("v1.2.3.4", "1.3.6.1.4.1" stay); a port or a
//     prefix length after it stays. An IPv6 address: hex groups and
//     colons that parse as one, with at least one digit and letters of one
//     case ("fe80::1", "2001:db8::5"; C++'s "CDC::Add" is not one).
//   - A host name: lower-case labels ending in a top-level domain of
//     identityTLDs, standing alone (not inside a word, a path or an
//     identifier). One followed by "/" is kept: written without a scheme
//     before a path it is a Go package or module path far more often than
//     a link ("github.com/warden-mcp/warden").
//   - A local path: one starting "C:\", "C:/", "\\", "~/", or "/" and a
//     first directory of pathRoots ("/home/alice/...", "/Users/...",
//     "/tmp/..."); "/api/v1/users" and "text/html" are not paths. A
//     ":line" after it stays.
//
// Pseudonyms, localhost, loopback and unspecified addresses and markers
// match no shape or keep their form, so the pass is idempotent.

// identityTLDs are the top-level domains a bare host name in free text
// must end in: common ones that are not also common file extensions
// (.md, .sh, .py, .rs, .pl, .so, .zip, .app, .ai are not here).
var identityTLDs = map[string]bool{
	"com": true, "net": true, "org": true, "edu": true, "gov": true, "mil": true, "int": true, "io": true,
	"dev": true, "cloud": true, "info": true, "biz": true, "co": true, "uk": true, "de": true, "fr": true,
	"nl": true, "eu": true, "jp": true, "cn": true, "ru": true, "br": true, "ca": true, "au": true,
	"ch": true, "se": true, "es": true, "it": true, "us": true, "internal": true, "corp": true, "lan": true,
	"local": true, "localdomain": true, "home": true, "arpa": true, "test": true, "example": true,
	"onion": true, "xyz": true, "online": true, "site": true, "tech": true,
}

// pathRoots are the first directories that make "/dir/..." in free text a
// local path.
var pathRoots = map[string]bool{
	"home": true, "Users": true, "root": true, "tmp": true, "var": true, "etc": true, "opt": true, "usr": true,
	"srv": true, "mnt": true, "media": true, "private": true, "Volumes": true, "data": true, "workspace": true,
	"workspaces": true, "builds": true, "build": true, "src": true, "go": true, "proc": true, "sys": true,
	"dev": true, "lib": true, "lib64": true, "bin": true, "sbin": true, "snap": true, "nix": true, "run": true,
	"export": true, "Library": true, "Applications": true, "System": true, "cygdrive": true,
}

// idScan is one string's identity pass.
type idScan struct {
	p     *pseudonymizer
	memo  *pseudoMemo
	s     string
	tok   int32
	cuts  []cut
	urls  [][2]int // the spans of URLs: no path or bare host inside
	auths [][2]int // their authorities: no e-mail address inside
}

// pseudoMemo keeps the pseudonyms made in one Result pass, by kind: one
// result names the same few hosts again and again.
type pseudoMemo struct {
	n                 int
	host, email, path map[string]string
	urls, auths       [][2]int // idScan's buffers, reused
}

func (m *pseudoMemo) of(kind string) map[string]string {
	switch kind {
	case privacy.Host:
		if m.host == nil {
			m.host = map[string]string{}
		}
		return m.host
	case privacy.Email:
		if m.email == nil {
			m.email = map[string]string{}
		}
		return m.email
	}
	if m.path == nil {
		m.path = map[string]string{}
	}
	return m.path
}

func (m *pseudoMemo) reset() {
	clear(m.host)
	clear(m.email)
	clear(m.path)
	m.n = 0
}

func (x *idScan) add(st, en int, typ, repl string) {
	if repl != "" && repl != x.s[st:en] {
		x.cuts = append(x.cuts, cut{tok: x.tok, start: int32(st), end: int32(en), typ: typ, repl: repl})
	}
}

// pseudonym returns the pseudonym of v of a kind, remembered for the
// pass.
func (x *idScan) pseudonym(kind, v string) string {
	var m map[string]string
	if x.memo != nil {
		m = x.memo.of(kind)
		if ps, ok := m[v]; ok {
			return ps
		}
	}
	var ps string
	switch kind {
	case privacy.Host:
		ps = x.p.hostPort(v)
	case privacy.Email:
		ps = x.p.email(v)
	case privacy.Path:
		ps = x.p.path(v)
	}
	if m != nil && x.memo.n < 4096 {
		m[v] = ps
		x.memo.n++
	}
	return ps
}

// identityCuts appends to dst, in Strict, the cuts that replace every host
// name, address, e-mail address and path of s (string tok) by its
// pseudonym, sorted and apart; nothing in other modes. memo, when not
// nil, keeps the pseudonyms made for reuse within one result.
func (r *Redactor) identityCuts(dst []cut, s string, tok int32, memo *pseudoMemo) []cut {
	if r.mode != Strict || len(s) < 3 || indexClass(s, 0, &idTrigger) < 0 {
		return dst
	}
	x := idScan{p: r.pseudo, memo: memo, s: s, tok: tok, cuts: dst}
	if memo != nil {
		x.urls, x.auths = memo.urls[:0], memo.auths[:0]
	}
	x.run(len(dst))
	if memo != nil {
		memo.urls, memo.auths = x.urls[:0], x.auths[:0]
	}
	return x.cuts
}

// run finds the cuts, appending them to x.cuts from index from on.
func (x *idScan) run(from int) {
	s := x.s
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], "://")
		if k < 0 {
			break
		}
		k += i
		st := k
		for st > 0 && isSchemeByte(s[st-1]) {
			st--
		}
		for st < k && !isLetter(s[st]) {
			st++
		}
		a := k + 3
		e := a
		for e < len(s) && !isDelim(s[e]) && s[e] != '/' && s[e] != '?' && s[e] != '#' {
			e++
		}
		end := e
		for end < len(s) && !isDelim(s[end]) {
			end++
		}
		if st < k {
			x.urls = append(x.urls, [2]int{st, end})
			x.auths = append(x.auths, [2]int{a, e})
			h := a
			if at := strings.LastIndexByte(s[a:e], '@'); at >= 0 {
				h = a + at + 1
			}
			if h < e {
				x.add(h, e, privacy.Host, x.pseudonym(privacy.Host, s[h:e]))
			}
			if strings.EqualFold(s[st:k], "file") && e < end && s[e] == '/' {
				pe := trimPathEnd(s, e, end)
				x.add(e, pe, privacy.Path, x.pseudonym(privacy.Path, s[e:pe]))
			}
		}
		i = max(end, k+3)
	}
	if strings.IndexByte(s, '@') >= 0 {
		x.emails()
	}
	if strings.IndexByte(s, '.') >= 0 {
		x.ipv4s()
		x.hosts()
	}
	if strings.IndexByte(s, ':') >= 0 {
		x.ipv6s()
	}
	x.paths()
	mine := x.cuts[from:]
	if len(mine) < 2 {
		return
	}
	// By start, the longer first: an e-mail address wins over the IP
	// address or host it starts with.
	slices.SortFunc(mine, func(a, b cut) int {
		if a.start != b.start {
			return int(a.start - b.start)
		}
		return int(b.end - a.end)
	})
	out := mine[:1]
	for _, c := range mine[1:] {
		if c.start >= out[len(out)-1].end {
			out = append(out, c)
		}
	}
	x.cuts = x.cuts[:from+len(out)]
}

// Byte classes of the identity pass.
var (
	idTrigger   = byteClass(".@:/\\~")          // a string without one holds no identity
	pathTrigger = byteClass("/~\\:")            // where a path may start
	segEnd      = byteClass("/ \t\n\"'`<>|,;)") // where a path's first directory ends
)

func byteClass(chars string) (t [256]bool) {
	for i := 0; i < len(chars); i++ {
		t[chars[i]] = true
	}
	return
}

// indexClass returns the first index at or after i of a byte in class,
// or -1.
func indexClass(s string, i int, class *[256]bool) int {
	for ; i < len(s); i++ {
		if class[s[i]] {
			return i
		}
	}
	return -1
}

// within reports whether i lies in one of spans.
func within(spans [][2]int, i int) bool {
	for _, u := range spans {
		if i >= u[0] && i < u[1] {
			return true
		}
	}
	return false
}

func isSchemeByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

// isDelim reports whether c ends a word of free text: white space,
// quotes, brackets and the separators of lists.
func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '`', '<', '>', '(', ')', '[', ']', '{', '}', ',', ';', '|', '\\':
		return true
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLabelByte(c byte) bool { return c >= 'a' && c <= 'z' || isDigit(c) || c == '-' }

func isLocalByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-'
}

// emails finds e-mail addresses.
func (x *idScan) emails() {
	s := x.s
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '@')
		if k < 0 {
			return
		}
		k += i
		i = k + 1
		if within(x.auths, k) {
			continue // a URL's userinfo, not an address
		}
		st := k
		for st > 0 && isLocalByte(s[st-1]) {
			st--
		}
		for st < k && s[st] == '.' {
			st++
		}
		en := k + 1
		for en < len(s) && (isLetter(s[en]) || isDigit(s[en]) || s[en] == '-' || s[en] == '.') {
			en++
		}
		for en > k+1 && (s[en-1] == '.' || s[en-1] == '-') {
			en--
		}
		if st == k || st > 0 && s[st-1] == '@' || !domainLike(s[k+1:en]) && !ipv4Literal(s[k+1:en]) {
			continue // no local part, one that is another address's domain, or no domain
		}
		x.add(st, en, privacy.Email, x.pseudonym(privacy.Email, s[st:en]))
		i = en
	}
}

// ipv4Literal reports whether d is a dotted-quad IPv4 address (an
// e-mail address's domain may be one).
func ipv4Literal(d string) bool {
	a, err := netip.ParseAddr(d)
	return err == nil && a.Is4()
}

// domainLike reports whether d has two or more non-empty labels and ends
// in two or more letters.
func domainLike(d string) bool {
	dot := strings.LastIndexByte(d, '.')
	if dot <= 0 || len(d)-dot-1 < 2 || strings.Contains(d, "..") {
		return false
	}
	for i := dot + 1; i < len(d); i++ {
		if !isLetter(d[i]) {
			return false
		}
	}
	return true
}

// ipv4s finds dotted-quad IPv4 addresses.
func (x *idScan) ipv4s() {
	s := x.s
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '.')
		if k < 0 {
			return
		}
		k += i
		i = k + 1
		if k == 0 || k+1 >= len(s) || !isDigit(s[k-1]) || !isDigit(s[k+1]) {
			continue
		}
		st := k - 1
		for st > 0 && isDigit(s[st-1]) {
			st--
		}
		if st > 0 && (isLetter(s[st-1]) || isDigit(s[st-1]) || s[st-1] == '.' || s[st-1] == '_' || s[st-1] == '-') {
			continue
		}
		en, dots := st, 0
		for en < len(s) && (isDigit(s[en]) || s[en] == '.' && dots < 3 && en+1 < len(s) && isDigit(s[en+1])) {
			if s[en] == '.' {
				dots++
			}
			en++
		}
		i = max(i, en)
		if dots != 3 || en < len(s) && (isLetter(s[en]) || s[en] == '_' || s[en] == '-' || s[en] == '@' ||
			s[en] == '.' && en+1 < len(s) && isDigit(s[en+1])) {
			continue
		}
		a, err := netip.ParseAddr(s[st:en])
		if err != nil || !a.Is4() {
			continue
		}
		x.add(st, en, privacy.IP, x.pseudonym(privacy.Host, s[st:en]))
	}
}

// ipv6s finds IPv6 addresses.
func (x *idScan) ipv6s() {
	s := x.s
	isV6 := func(c byte) bool { _, ok := hexDigit(c); return ok || c == ':' || c == '.' }
	for i := 0; ; {
		k := strings.IndexByte(s[i:], ':')
		if k < 0 {
			return
		}
		k += i
		st := k
		for st > 0 && isV6(s[st-1]) {
			st--
		}
		en := k
		for en < len(s) && isV6(s[en]) {
			en++
		}
		i = en
		for en > st && s[en-1] == '.' {
			en--
		}
		c := s[st:en]
		if strings.Count(c, ":") < 2 || st > 0 && (isLetter(s[st-1]) || isDigit(s[st-1]) || s[st-1] == '_' || s[st-1] == '@') ||
			en < len(s) && (isLetter(s[en]) || isDigit(s[en]) || s[en] == '_' || s[en] == '@') {
			continue
		}
		if !strings.Contains(c, "::") && strings.Count(c, ":") != 7 {
			continue
		}
		var digit, lower, upper bool
		for j := 0; j < len(c); j++ {
			digit = digit || isDigit(c[j])
			lower = lower || c[j] >= 'a' && c[j] <= 'f'
			upper = upper || c[j] >= 'A' && c[j] <= 'F'
		}
		if !digit || lower && upper {
			continue
		}
		a, err := netip.ParseAddr(c)
		if err != nil || !a.Is6() {
			continue
		}
		x.add(st, en, privacy.IP, x.pseudonym(privacy.Host, c))
	}
}

// paths finds local paths.
func (x *idScan) paths() {
	s := x.s
	startsWord := func(i int) bool {
		if i == 0 {
			return true
		}
		c := s[i-1]
		return isDelim(c) && c != '\\' || c == '=' || c == ':' && (i < 2 || !isLetter(s[i-2]))
	}
	end := func(i int) int {
		e := i
		for e < len(s) && !isDelim(s[e]) || e < len(s) && s[e] == '\\' {
			e++
		}
		return trimPathEnd(s, i, e)
	}
	for pos := 0; pos < len(s); pos++ {
		if pos = indexClass(s, pos, &pathTrigger); pos < 0 {
			return
		}
		i := pos // where the path would start: a drive letter's colon starts at the letter
		if s[pos] == ':' {
			if pos == 0 || !isLetter(s[pos-1]) {
				continue
			}
			i = pos - 1
		}
		c := s[i]
		var rootLen int
		switch {
		case c == '/' && startsWord(i) && !within(x.urls, i):
			seg := s[i+1:]
			j := indexClass(seg, 0, &segEnd)
			if j < 0 || seg[j] != '/' || !pathRoots[seg[:j]] {
				continue
			}
			rootLen = 1
		case c == '~' && i+1 < len(s) && s[i+1] == '/' && startsWord(i):
			rootLen = 2
		case c == '\\' && i+2 < len(s) && s[i+1] == '\\' && (isLetter(s[i+2]) || isDigit(s[i+2])) && (i == 0 || isDelim(s[i-1]) && s[i-1] != '\\'):
			rootLen = 2
		case isLetter(c) && i+3 < len(s) && s[i+1] == ':' && (s[i+2] == '\\' || s[i+2] == '/') && s[i+3] != '/' && s[i+3] != '\\' &&
			(i == 0 || isDelim(s[i-1]) && s[i-1] != '\\' || s[i-1] == '='):
			rootLen = 3
		default:
			continue
		}
		e := end(i)
		if e-i <= rootLen {
			continue
		}
		x.add(i, e, privacy.Path, x.pseudonym(privacy.Path, s[i:e]))
		pos = max(pos, e-1)
	}
}

// trimPathEnd returns where a path that runs from i to e ends: without a
// ":line[:col]" and trailing punctuation.
func trimPathEnd(s string, i, e int) int {
	for {
		j := e
		for j > i && isDigit(s[j-1]) {
			j--
		}
		if j < e && j > i && s[j-1] == ':' {
			e = j - 1
			continue
		}
		break
	}
	for e > i && strings.IndexByte(".,:;!?", s[e-1]) >= 0 {
		e--
	}
	return e
}

// hosts finds bare host names.
func (x *idScan) hosts() {
	s := x.s
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '.')
		if k < 0 {
			return
		}
		k += i
		i = k + 1
		if k == 0 || k+1 >= len(s) || !isLabelByte(s[k-1]) || !isLabelByte(s[k+1]) {
			continue
		}
		st := k
		for st > 0 && (isLabelByte(s[st-1]) || s[st-1] == '.') {
			st--
		}
		en := k + 1
		for en < len(s) && (isLabelByte(s[en]) || s[en] == '.') {
			en++
		}
		i = max(i, en)
		for en > st && s[en-1] == '.' {
			en--
		}
		if st > 0 {
			if p := s[st-1]; isLetter(p) || isDigit(p) || strings.IndexByte("_/\\@$%.:-", p) >= 0 {
				continue
			}
		}
		if en < len(s) {
			if n := s[en]; isLetter(n) || n == '_' || n == '/' || n == '(' || n == '@' || n == '\\' || n == '.' && en+1 < len(s) && !isDelim(s[en+1]) {
				continue
			}
		}
		h := s[st:en]
		if within(x.urls, st) || !hostLike(h) {
			continue
		}
		pe := en
		if pe+1 < len(s) && s[pe] == ':' && isDigit(s[pe+1]) {
			for pe++; pe < len(s) && isDigit(s[pe]); pe++ {
			}
			if pe < len(s) && (isLetter(s[pe]) || s[pe] == '.') {
				pe = en
			}
		}
		x.add(st, pe, privacy.Host, x.pseudonym(privacy.Host, s[st:pe]))
	}
}

// hostLike reports whether h (lower-case labels and dots) is a host name
// whose top-level domain is one of identityTLDs.
func hostLike(h string) bool {
	dot := strings.LastIndexByte(h, '.')
	if dot <= 0 || !identityTLDs[h[dot+1:]] {
		return false
	}
	for i := 0; i < len(h); i++ {
		if h[i] == '.' || h[i] == '-' {
			if i == 0 || i == len(h)-1 || h[i] == '.' && (h[i-1] == '.' || h[i-1] == '-' || h[i+1] == '-') {
				return false
			}
		}
	}
	return true
}
