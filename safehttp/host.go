package safehttp

import (
	"errors"
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// Host-name reasons, used in *BlockedError for blocked_hostname and
// blocked_port.
const (
	ReasonLocalhost      Reason = "localhost"        // localhost and *.localhost
	ReasonSingleLabel    Reason = "single_label"     // a name without a dot
	ReasonSpecialUseName Reason = "special_use_name" // .local, .internal, .arpa, .onion, ...
	ReasonNonICANNTLD    Reason = "non_icann_tld"    // last label is not an ICANN top-level domain
	ReasonPortNotAllowed Reason = "port_not_allowed" // port other than 80 and 443
)

// specialSuffixes are refused with all their subdomains. Some are ICANN TLDs
// in the public-suffix list (arpa, onion) or private conventions under a real
// TLD, so the ICANN check alone would miss them; the others are listed so the
// reason stays precise if the public-suffix snapshot ever learns them.
var specialSuffixes = []string{
	"local",         // mDNS (RFC 6762)
	"localdomain",   // common resolver default
	"internal",      // private use (ICANN 2024), GCP and Docker names
	"arpa",          // reverse DNS and home.arpa (RFC 8375)
	"onion",         // Tor (RFC 7686)
	"test",          // RFC 2606
	"example",       // RFC 2606
	"invalid",       // RFC 2606
	"alt",           // RFC 9476
	"lan",           // de-facto home networks
	"home",          // de-facto home networks
	"corp",          // de-facto enterprise networks
	"intranet",      // de-facto enterprise networks
	"private",       // de-facto
	"svc",           // Kubernetes service names
	"cluster.local", // Kubernetes (also covered by local)
}

// checkHostName applies the name rules to a canonical host (ASCII, lowercase,
// no trailing dot). It returns ReasonPublic when the name may be resolved.
func checkHostName(host string) Reason {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return ReasonLocalhost
	}
	if !strings.Contains(host, ".") {
		return ReasonSingleLabel
	}
	for _, s := range specialSuffixes {
		if host == s || strings.HasSuffix(host, "."+s) {
			return ReasonSpecialUseName
		}
	}
	tld := host[strings.LastIndexByte(host, '.')+1:]
	if _, icann := publicsuffix.PublicSuffix(tld); !icann {
		return ReasonNonICANNTLD
	}
	return ReasonPublic
}

var errHostSyntax = errors.New("safehttp: bad host syntax")

// canonicalHost turns the host of a parsed URL (percent-decoded, without
// brackets or port) into its canonical ASCII form and says whether it is an
// IP literal in any notation. It fails with errHostSyntax-wrapped errors for
// empty hosts, zone ids, IDNA failures, bad label lengths and hosts that end
// in a number but are not a valid IPv4 address.
func canonicalHost(host string, bracketed bool) (name string, ip netip.Addr, err error) {
	if host == "" {
		return "", netip.Addr{}, hostErr("empty host")
	}
	if bracketed {
		if strings.ContainsRune(host, '%') {
			return "", netip.Addr{}, hostErr("IPv6 zone id")
		}
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() {
			return "", netip.Addr{}, hostErr("bad IPv6 literal")
		}
		return a.String(), a, nil
	}
	if !utf8.ValidString(host) {
		return "", netip.Addr{}, hostErr("invalid UTF-8")
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", netip.Addr{}, hostErr("IDNA: " + err.Error())
	}
	// The result must be a fixed point: punycode labels that decode to
	// something Lookup would refuse are refused now, not after the fetch.
	if again, err := idna.Lookup.ToASCII(ascii); err != nil || again != ascii {
		return "", netip.Addr{}, hostErr("IDNA result is not canonical")
	}
	ascii = strings.TrimSuffix(strings.ToLower(ascii), ".")
	if ascii == "" || len(ascii) > 253 {
		return "", netip.Addr{}, hostErr("empty or overlong name")
	}
	for _, label := range strings.Split(ascii, ".") {
		if label == "" || len(label) > 63 {
			return "", netip.Addr{}, hostErr("empty or overlong label")
		}
	}
	if endsInNumber(ascii) {
		a, ok := parseIPv4(ascii)
		if !ok {
			return "", netip.Addr{}, hostErr("numeric host is not a valid IPv4 address")
		}
		return a.String(), a, nil
	}
	return ascii, netip.Addr{}, nil
}

func hostErr(detail string) error { return &hostSyntaxError{detail} }

type hostSyntaxError struct{ detail string }

func (e *hostSyntaxError) Error() string { return "safehttp: bad host syntax: " + e.detail }
func (e *hostSyntaxError) Unwrap() error { return errHostSyntax }

// endsInNumber reports whether the last label of host (no trailing dot) is a
// number in the sense of the WHATWG URL standard: all decimal digits, or 0x
// followed by hex digits, whatever its size. Such hosts are IPv4 addresses or invalid;
// they are never looked up in DNS, because the cgo resolver (inet_aton)
// would turn "2130706433" or "0x7f.1" into 127.0.0.1 while the Go resolver
// would not.
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if len(last) >= 2 && (last[:2] == "0x" || last[:2] == "0X") {
		last = last[2:]
		return strings.Trim(last, "0123456789abcdefABCDEF") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// parseIPv4 is the WHATWG IPv4 parser: one to four parts, each decimal,
// 0-prefixed octal or 0x-prefixed hexadecimal; the last part fills the
// remaining bytes. It accepts every form inet_aton accepts for dotted input
// ("127.1", "0x7f.1", "0177.0.0.1", "2130706433").
func parseIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// parseIPv4Number parses one part. Values are capped well above 2^32 so
// overflow cannot wrap round to a small address.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		d := digitVal(s[i])
		if d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 1<<40 {
			return 0, false
		}
	}
	return v, true
}

func digitVal(c byte) uint64 {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0')
	case 'a' <= c && c <= 'f':
		return uint64(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return uint64(c-'A') + 10
	}
	return 99
}
