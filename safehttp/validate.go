package safehttp

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/warden-mcp/warden/errcode"
)

// Target is a URL that passed validation, with the addresses it resolved to.
// Only a Target returned by the same Client's Validate can be fetched.
type Target struct {
	// URL is the canonical form: host in lowercase ASCII (punycode for IDN,
	// dotted-quad for every IPv4 notation), no trailing dot, no user-info,
	// no fragment, and the port only when it is not the scheme's default.
	URL *url.URL
	// Host is the canonical host name or IP literal, without brackets.
	Host string
	// Port is the effective port (80 or 443 in production).
	Port uint16
	// Addrs are the pinned addresses, in resolver order: the only ones the
	// fetch will dial. A copy; changing it changes nothing.
	Addrs []netip.Addr

	client  *Client
	pins    []netip.Addr
	dnsTime time.Duration
}

// Validate checks rawURL against the policy in the fixed order given in the
// package documentation, resolves its host and pins the answers. Errors are
// *errcode.Error with the code of the first failing step.
func (c *Client) Validate(ctx context.Context, rawURL string) (*Target, error) {
	t, err := c.validate(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (c *Client) validate(ctx context.Context, rawURL string) (*Target, *errcode.Error) {
	// 1. Length.
	if len(rawURL) > MaxURLLength {
		return nil, newError(CodeURLTooLong, nil)
	}
	// 2. Syntax. Spaces and control bytes are refused outright rather than
	// trimmed or escaped: parsers disagree about them.
	for i := 0; i < len(rawURL); i++ {
		if b := rawURL[i]; b <= ' ' || b == 0x7f {
			return nil, newError(CodeInvalidTarget, errors.New("safehttp: space or control byte in URL"))
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, newError(CodeInvalidTarget, err)
	}
	// 3. Scheme (url.Parse lowercases it).
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, newError(CodeInvalidScheme, nil)
	}
	// 4. User-info, even an empty one ("http://@host/").
	if u.User != nil {
		return nil, newError(CodeCredentialsInURL, nil)
	}
	if u.Opaque != "" {
		return nil, newError(CodeInvalidTarget, errors.New("safehttp: opaque URL"))
	}
	// 5. Host syntax.
	name, ip, err := canonicalHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
	if err != nil {
		return nil, newError(CodeInvalidTarget, err)
	}
	// 6. Port.
	port, perr := c.checkPort(u)
	if perr != nil {
		return nil, perr
	}
	t := &Target{Host: name, Port: port, client: c}
	t.URL = canonicalURL(u, name, ip.Is6(), port)
	// 7. Canonical length. The URL sent on the wire is the canonical one,
	// and it can be longer than the input: url.URL.String percent-encodes
	// raw bytes outside ASCII (one byte becomes three) and IDNA turns a
	// Unicode host into longer punycode. Step 1 bounds the work done on
	// the input; this step bounds what is sent, and keeps every accepted
	// Target re-validatable from its own URL.
	if len(t.URL.String()) > MaxURLLength {
		return nil, newError(CodeURLTooLong, errors.New("safehttp: canonical URL longer than the cap"))
	}
	// 8. IP literals, in every notation.
	if ip.IsValid() {
		if e := c.checkAddrPort(netip.AddrPortFrom(ip, port), false); e != nil {
			return nil, e
		}
		t.pins = []netip.Addr{ip}
		t.Addrs = []netip.Addr{ip}
		return t, nil
	}
	// 9. Host-name rules.
	r := checkHostName(name)
	if r.Blocked() && !(c.private && r.Local()) {
		return nil, newError(CodeBlockedHostname, &BlockedError{Host: name, Reason: r})
	}
	// 10. DNS: every answer must pass; the answers are pinned. The
	// trailing dot makes the name fully qualified, so no resolver search
	// domain is ever appended to it; a local name allowed by AllowPrivate
	// is looked up as the person typed it, so that the hosts file and the
	// search domains answer it as they do for their other tools.
	lookup := name + "."
	if r.Blocked() {
		lookup = name
	}
	start := time.Now()
	addrs, e := c.resolve(ctx, lookup, port)
	if e != nil {
		return nil, e
	}
	t.dnsTime = time.Since(start)
	t.pins = addrs
	t.Addrs = append([]netip.Addr(nil), addrs...)
	return t, nil
}

// checkPort returns the effective port. Ports other than 80 and 443 are
// refused unless the test allowlist names that port for some address; the
// address check then decides.
func (c *Client) checkPort(u *url.URL) (uint16, *errcode.Error) {
	ps := u.Port()
	if ps == "" {
		if u.Scheme == "https" {
			return 443, nil
		}
		return 80, nil
	}
	// url.Parse guarantees digits only; too many of them is still a port.
	n, err := strconv.ParseUint(ps, 10, 16)
	if err != nil {
		return 0, newError(CodeBlockedPort, &BlockedError{Host: u.Hostname(), Reason: ReasonPortNotAllowed})
	}
	p := uint16(n)
	if !c.portAllowed(p) && !c.allowPort[p] {
		return 0, newError(CodeBlockedPort, &BlockedError{Host: u.Hostname(), Port: p, Reason: ReasonPortNotAllowed})
	}
	return p, nil
}

func canonicalURL(u *url.URL, host string, v6 bool, port uint16) *url.URL {
	cu := *u
	cu.User = nil
	cu.Fragment, cu.RawFragment = "", ""
	hp := host
	if v6 {
		hp = "[" + host + "]"
	}
	if !(cu.Scheme == "http" && port == 80) && !(cu.Scheme == "https" && port == 443) {
		hp = net.JoinHostPort(host, strconv.Itoa(int(port)))
	}
	cu.Host = hp
	if cu.Path == "" && cu.RawPath == "" {
		cu.Path = "/"
	}
	return &cu
}

// resolve looks name up once, with a timeout, and checks every answer.
func (c *Client) resolve(ctx context.Context, name string, port uint16) ([]netip.Addr, *errcode.Error) {
	lctx, cancel := context.WithTimeout(ctx, c.dnsTO)
	defer cancel()
	answers, err := c.resolver.LookupNetIP(lctx, "ip", name)
	if err != nil {
		if ctx.Err() != nil {
			return nil, newError(CodeTimeout, err)
		}
		return nil, newError(CodeDNSResolutionFailed, err)
	}
	if len(answers) == 0 {
		return nil, newError(CodeDNSResolutionFailed, errors.New("safehttp: empty DNS answer"))
	}
	pins := make([]netip.Addr, 0, min(len(answers), maxPinnedAddrs))
	for _, a := range answers {
		// The Go resolver may return ::ffff:a.b.c.d for an A record.
		a = a.Unmap()
		if e := c.checkAddrPort(netip.AddrPortFrom(a, port), false); e != nil {
			return nil, e
		}
		if len(pins) < maxPinnedAddrs && !containsAddr(pins, a) {
			pins = append(pins, a)
		}
	}
	return pins, nil
}

func containsAddr(list []netip.Addr, a netip.Addr) bool {
	for _, b := range list {
		if a == b {
			return true
		}
	}
	return false
}

// validateHostPort validates a bare "host:port" as the host of an https URL.
func (c *Client) validateHostPort(ctx context.Context, hostport string) (*Target, *errcode.Error) {
	if len(hostport) > MaxURLLength {
		return nil, newError(CodeURLTooLong, nil)
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || host == "" || port == "" || strings.ContainsAny(host, "/\\?#@[]") {
		return nil, newError(CodeInvalidTarget, errors.New("safehttp: bad host:port"))
	}
	return c.validate(ctx, "https://"+net.JoinHostPort(host, port)+"/")
}
