package safehttp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/warden-mcp/warden/errcode"
)

// Production limits. Options may lower them (tests do) but never raise them.
const (
	MaxURLLength       = 2048             // bytes of the raw URL and of its canonical form, for each hop
	MaxRedirects       = 3                // redirects followed by one fetch
	MaxBodyBytes       = 2 << 20          // bytes of (decoded) body kept per response
	MaxHeaderBytes     = 64 << 10         // bytes of response headers accepted
	DefaultDialTimeout = 15 * time.Second // TCP connect, and TLS handshake
	DefaultReadTimeout = 15 * time.Second // wait for response headers, and between body reads
	DefaultDNSTimeout  = 5 * time.Second  // one name lookup
	// DefaultFetchTimeout bounds one Get or Fetch, redirects included. A scan
	// made of several fetches should also put its own deadline on ctx.
	DefaultFetchTimeout = 30 * time.Second
	maxPinnedAddrs      = 16 // addresses kept from one DNS answer
	maxDialAttempts     = 4  // pinned addresses tried in turn by one dial
)

// DefaultUserAgent identifies the fetcher honestly to the sites it scans.
const DefaultUserAgent = "Warden-MicroDefend/0.1 (+https://github.com/warden-mcp/warden)"

// Resolver looks host names up. *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configures a Client. The zero value, and a nil *Options, give the
// production policy.
type Options struct {
	// Resolver answers DNS lookups. Nil uses net.DefaultResolver.
	Resolver Resolver

	// AllowAddrPorts lists exact address:port pairs that bypass the address
	// and port checks, so that tests can reach an httptest server on
	// loopback. FOR TESTS ONLY: production wiring never sets it, and
	// New(nil) refuses every loopback address. Host-name rules still apply.
	AllowAddrPorts []netip.AddrPort

	// AllowPrivate lets the client reach loopback, private-network (RFC
	// 1918, unique local), shared (CGNAT) and link-local addresses, and
	// host names that only mean something locally (localhost, single
	// labels, .local, .internal, .test and the like). Cloud-metadata
	// endpoints stay refused. It is for a person scanning their own
	// development site from the command line (warden scan site
	// --allow-private); no server wiring sets it. False: refused.
	AllowPrivate bool

	// AllowPorts lists ports beyond 80 and 443 the client may reach, for
	// the same command line (--allow-port). Nil: 80 and 443 only.
	AllowPorts []uint16

	// RootCAs verifies server certificates. Nil uses the system roots.
	RootCAs *x509.CertPool

	// UserAgent is sent with every request. Empty uses DefaultUserAgent.
	UserAgent string

	// Timeouts. Zero (or negative, or larger than the default) uses the
	// default of the same name.
	DialTimeout  time.Duration // DefaultDialTimeout
	ReadTimeout  time.Duration // DefaultReadTimeout
	DNSTimeout   time.Duration // DefaultDNSTimeout
	FetchTimeout time.Duration // DefaultFetchTimeout

	// MaxBodyBytes caps the body kept per response. Zero (or negative, or
	// more than MaxBodyBytes) uses MaxBodyBytes.
	MaxBodyBytes int64
}

// Client validates URLs and fetches them without reaching internal
// networks. It holds no cookies and reuses no connections, so nothing
// carries over from one target to the next. It is safe for concurrent use.
type Client struct {
	resolver  Resolver
	allow     map[netip.AddrPort]bool
	allowPort map[uint16]bool // ports of the test allowlist
	private   bool            // Options.AllowPrivate
	ports     map[uint16]bool // Options.AllowPorts
	userAgent string
	dialTO    time.Duration
	readTO    time.Duration
	dnsTO     time.Duration
	fetchTO   time.Duration
	maxBody   int64

	dialer    *net.Dialer
	transport *http.Transport // verifies certificates
	insecure  *http.Transport // InsecureSkipVerify, for posture scans

	// testDialed, set only by this package's tests, sees every address the
	// control hook lets through, i.e. every connect actually attempted, and
	// may veto it (tests never leave loopback).
	testDialed func(netip.AddrPort) error
}

// New returns a Client. opts may be nil.
func New(opts *Options) *Client {
	if opts == nil {
		opts = &Options{}
	}
	c := &Client{
		resolver:  opts.Resolver,
		allow:     map[netip.AddrPort]bool{},
		allowPort: map[uint16]bool{},
		private:   opts.AllowPrivate,
		ports:     map[uint16]bool{},
		userAgent: opts.UserAgent,
		dialTO:    clampDur(opts.DialTimeout, DefaultDialTimeout),
		readTO:    clampDur(opts.ReadTimeout, DefaultReadTimeout),
		dnsTO:     clampDur(opts.DNSTimeout, DefaultDNSTimeout),
		fetchTO:   clampDur(opts.FetchTimeout, DefaultFetchTimeout),
		maxBody:   opts.MaxBodyBytes,
	}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	if c.maxBody <= 0 || c.maxBody > MaxBodyBytes {
		c.maxBody = MaxBodyBytes
	}
	for _, p := range opts.AllowPorts {
		c.ports[p] = true
	}
	for _, ap := range opts.AllowAddrPorts {
		c.allow[ap] = true
		c.allowPort[ap.Port()] = true
	}
	c.dialer = &net.Dialer{
		Timeout:        c.dialTO,
		KeepAlive:      -1,
		ControlContext: c.control,
	}
	c.transport = c.newTransport(&tls.Config{RootCAs: opts.RootCAs})
	c.insecure = c.newTransport(&tls.Config{RootCAs: opts.RootCAs, InsecureSkipVerify: true}) //nolint:gosec // opt-in per fetch for TLS posture grading
	return c
}

func clampDur(d, def time.Duration) time.Duration {
	if d <= 0 || d > def {
		return def
	}
	return d
}

func (c *Client) newTransport(tc *tls.Config) *http.Transport {
	return &http.Transport{
		Proxy:                  nil, // a proxy would be dialled instead of the pinned address
		DialContext:            c.transportDial,
		TLSClientConfig:        tc,
		TLSHandshakeTimeout:    c.dialTO,
		ResponseHeaderTimeout:  c.readTO,
		DisableKeepAlives:      true, // a pooled connection would outlive its pin
		MaxResponseHeaderBytes: MaxHeaderBytes,
	}
}

// allowed reports whether the test allowlist names ap exactly.
func (c *Client) allowed(ap netip.AddrPort) bool {
	return len(c.allow) > 0 && c.allow[ap]
}

// checkAddrPort is the address policy shared by validation and the dial
// hook: the test allowlist first, then the port, then Classify.
func (c *Client) checkAddrPort(ap netip.AddrPort, atDial bool) *errcode.Error {
	if c.allowed(ap) {
		return nil
	}
	if p := ap.Port(); !c.portAllowed(p) {
		return newError(CodeBlockedPort, &BlockedError{Addr: ap.Addr(), Port: p, Reason: ReasonPortNotAllowed, AtDial: atDial})
	}
	if r := Classify(ap.Addr()); r.Blocked() && !(c.private && r.Local()) {
		return newError(CodeBlockedIP, &BlockedError{Addr: ap.Addr(), Reason: r, AtDial: atDial})
	}
	return nil
}

// portAllowed reports whether p is 80, 443 or one of Options.AllowPorts.
func (c *Client) portAllowed(p uint16) bool {
	return p == 80 || p == 443 || c.ports[p]
}
