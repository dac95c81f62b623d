package safehttp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/warden-mcp/warden/errcode"
)

// control is the net.Dialer hook. It runs after name resolution and before
// connect, on the address actually dialled, and applies the same policy as
// validation. It is the backstop against DNS rebinding and pinning bugs.
func (c *Client) control(_ context.Context, network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return newError(CodeScanFailed, fmt.Errorf("safehttp: network %q refused at dial", network))
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return newError(CodeBlockedIP, fmt.Errorf("safehttp: unparsable dial address: %w", err))
	}
	if e := c.checkAddrPort(ap, true); e != nil {
		return e
	}
	if c.testDialed != nil {
		if err := c.testDialed(ap); err != nil {
			return newError(CodeScanFailed, err)
		}
	}
	return nil
}

// dialState carries one request's pinned target to the transport's dialer
// and the connection facts back out.
type dialState struct {
	target *Target

	mu      sync.Mutex
	connect time.Duration
	remote  netip.AddrPort
}

type dialStateKey struct{}

func contextWithDialState(ctx context.Context, st *dialState) context.Context {
	return context.WithValue(ctx, dialStateKey{}, st)
}

// transportDial is http.Transport.DialContext. It dials only the addresses
// pinned for the request being sent; without a pin it refuses.
func (c *Client) transportDial(ctx context.Context, network, addr string) (net.Conn, error) {
	st, _ := ctx.Value(dialStateKey{}).(*dialState)
	if st == nil || st.target == nil {
		return nil, newError(CodeScanFailed, errors.New("safehttp: dial without a pinned target"))
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != st.target.Host || port != fmt.Sprint(st.target.Port) {
		return nil, newError(CodeScanFailed, fmt.Errorf("safehttp: dial to %q does not match pinned target", addr))
	}
	return c.dialPinned(ctx, network, st.target.pins, st.target.Port, st)
}

// dialPinned connects to the first reachable pinned address. Each attempt
// goes through the control hook.
func (c *Client) dialPinned(ctx context.Context, network string, pins []netip.Addr, port uint16, st *dialState) (net.Conn, error) {
	var lastErr error
	tried := 0
	for _, a := range pins {
		if (network == "tcp4" && !a.Is4()) || (network == "tcp6" && !a.Is6()) {
			continue
		}
		if tried == maxDialAttempts {
			break
		}
		tried++
		start := time.Now()
		conn, err := c.dialer.DialContext(ctx, "tcp", netip.AddrPortFrom(a, port).String())
		if err == nil {
			if st != nil {
				st.mu.Lock()
				st.connect = time.Since(start)
				st.remote = netip.AddrPortFrom(a, port)
				st.mu.Unlock()
			}
			return &deadlineConn{Conn: conn, timeout: c.readTO}, nil
		}
		lastErr = err
		if find(err) != nil || ctx.Err() != nil {
			break // refused by the hook, or out of time: do not try further
		}
	}
	if lastErr == nil {
		return nil, newError(CodeDNSResolutionFailed, fmt.Errorf("safehttp: no %s address pinned", network))
	}
	return nil, classifyErr(lastErr)
}

// DialContext opens a TCP connection to addr ("host:port") under the same
// policy as a fetch: the host is validated, resolved and pinned, and the
// control hook checks the dialled address. network is "tcp", "tcp4" or
// "tcp6". It is meant for TLS probes (tls.Client over the returned conn).
// Every read and write on the conn times out after the read timeout of
// idle time; a tighter deadline the caller sets (SetDeadline, as tls.Conn
// users do) is kept and wins.
func (c *Client) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if network != "tcp" && network != "tcp4" && network != "tcp6" {
		return nil, newError(CodeInvalidTarget, fmt.Errorf("safehttp: network %q not supported", network))
	}
	t, e := c.validateHostPort(ctx, addr)
	if e != nil {
		return nil, e
	}
	conn, err := c.dialPinned(ctx, network, t.pins, t.Port, nil)
	if err != nil {
		return nil, err
	}
	return conn, nil
}

// deadlineConn bounds each read and write to timeout, so a peer that
// accepts and then stalls cannot hold a fetch or a probe open. A deadline
// the caller sets is remembered and wins when it is earlier: each Read or
// Write uses the earlier of the caller's deadline and now+timeout.
type deadlineConn struct {
	net.Conn
	timeout time.Duration

	mu      sync.Mutex
	readDL  time.Time // set by the caller; zero means none
	writeDL time.Time
}

func earlier(caller time.Time, idle time.Duration) time.Time {
	d := time.Now().Add(idle)
	if !caller.IsZero() && caller.Before(d) {
		return caller
	}
	return d
}

func (d *deadlineConn) Read(p []byte) (int, error) {
	d.mu.Lock()
	dl := earlier(d.readDL, d.timeout)
	d.mu.Unlock()
	if err := d.Conn.SetReadDeadline(dl); err != nil {
		return 0, err
	}
	return d.Conn.Read(p)
}

func (d *deadlineConn) Write(p []byte) (int, error) {
	d.mu.Lock()
	dl := earlier(d.writeDL, d.timeout)
	d.mu.Unlock()
	if err := d.Conn.SetWriteDeadline(dl); err != nil {
		return 0, err
	}
	return d.Conn.Write(p)
}

// SetDeadline records the caller's deadline for reads and writes.
func (d *deadlineConn) SetDeadline(t time.Time) error {
	d.mu.Lock()
	d.readDL, d.writeDL = t, t
	d.mu.Unlock()
	return d.Conn.SetDeadline(t)
}

// SetReadDeadline records the caller's read deadline.
func (d *deadlineConn) SetReadDeadline(t time.Time) error {
	d.mu.Lock()
	d.readDL = t
	d.mu.Unlock()
	return d.Conn.SetReadDeadline(t)
}

// SetWriteDeadline records the caller's write deadline.
func (d *deadlineConn) SetWriteDeadline(t time.Time) error {
	d.mu.Lock()
	d.writeDL = t
	d.mu.Unlock()
	return d.Conn.SetWriteDeadline(t)
}

// classifyErr maps a transport-level error to an *errcode.Error, keeping
// the cause.
func classifyErr(err error) *errcode.Error {
	if e := find(err); e != nil {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ETIMEDOUT) {
		return newError(CodeTimeout, err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return newError(CodeTimeout, err)
	}
	var (
		certErr    *tls.CertificateVerificationError
		recErr     tls.RecordHeaderError
		alertErr   tls.AlertError
		unknownCA  x509.UnknownAuthorityError
		hostErr    x509.HostnameError
		invalidErr x509.CertificateInvalidError
	)
	if errors.As(err, &certErr) || errors.As(err, &recErr) || errors.As(err, &alertErr) ||
		errors.As(err, &unknownCA) || errors.As(err, &hostErr) || errors.As(err, &invalidErr) {
		return newError(CodeTLSFailed, err)
	}
	return newError(CodeScanFailed, err)
}
