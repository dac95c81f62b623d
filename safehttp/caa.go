package safehttp

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// CAA is one Certification Authority Authorization record (RFC 8659).
type CAA struct {
	// Critical is the issuer-critical flag: a CA that does not know Tag
	// must not issue.
	Critical bool
	// Tag is the property, lower-cased: issue, issuewild, iodef, or
	// another.
	Tag string
	// Value is the property's value as the record holds it.
	Value string
}

// CAALookuper answers CAA queries for one name, without climbing to its
// parents (the caller walks the tree, RFC 8659 §3). A name with no CAA
// records, or that does not exist, gives none and no error; an error means
// the answer is not known.
type CAALookuper interface {
	LookupCAA(ctx context.Context, name string) ([]CAA, error)
}

// ErrCAAUnsupported is LookupCAA's error when the client's Resolver is not
// the system's and cannot answer CAA queries: the scan then says CAA was
// not tested rather than query another resolver than its fetches use.
var ErrCAAUnsupported = errors.New("resolver_without_caa")

// CAAError is a failed CAA look-up. Its text is a short public code
// (dns_timeout, dns_unreachable, dns_server_failure, dns_refused, dns_bad_name,
// dns_malformed, dns_failed) that names no server or address; the cause
// stays reachable through errors.Unwrap for the logs.
type CAAError struct {
	Code string
	Err  error
}

func (e *CAAError) Error() string { return e.Code }
func (e *CAAError) Unwrap() error { return e.Err }

// caaError classifies a look-up's failure.
func caaError(err error) *CAAError {
	var ne net.Error
	var op *net.OpError
	code := "dns_failed"
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		code = "dns_timeout"
	case errors.As(err, &op) && op.Op == "dial", errors.Is(err, syscall.ECONNREFUSED):
		code = "dns_unreachable"
	case errors.Is(err, errServerFailure):
		code = "dns_server_failure"
	case errors.Is(err, errRefused):
		code = "dns_refused"
	case errors.Is(err, errMalformed):
		code = "dns_malformed"
	}
	return &CAAError{Code: code, Err: err}
}

var (
	errServerFailure = errors.New("the name server answered SERVFAIL")
	errRefused       = errors.New("the name server refused the query")
	errMalformed     = errors.New("malformed or mismatched answer")
)

// LookupCAA answers a CAA query for name through the same resolver as the
// client's fetches: the Resolver of its Options when that implements
// CAALookuper, else, when Options left the Resolver to the system, the
// system's name servers (/etc/resolv.conf) over DNS.
func (c *Client) LookupCAA(ctx context.Context, name string) ([]CAA, error) {
	if l, ok := c.resolver.(CAALookuper); ok {
		return l.LookupCAA(ctx, name)
	}
	if c.resolver != net.DefaultResolver {
		return nil, ErrCAAUnsupported
	}
	ctx, cancel := context.WithTimeout(ctx, c.dnsTO)
	defer cancel()
	return (&DNSClient{Servers: systemNameServers()}).LookupCAA(ctx, name)
}

// DNSClient sends CAA queries to name servers over UDP, and over TCP when
// an answer is truncated. It is the CAALookuper for the system resolver.
type DNSClient struct {
	// Servers are the name servers, host:port, tried in turn.
	Servers []string
	// Timeout bounds each query to one server. Zero means 3 s.
	Timeout time.Duration
}

// caaType is the CAA resource record type (RFC 8659 §4.1).
const caaType dnsmessage.Type = 257

// maxCAARecords bounds the records kept from one answer.
const maxCAARecords = 64

// LookupCAA implements CAALookuper.
func (d *DNSClient) LookupCAA(ctx context.Context, name string) ([]CAA, error) {
	if len(d.Servers) == 0 {
		return nil, &CAAError{Code: "dns_unreachable", Err: errors.New("no name server configured")}
	}
	q, err := dnsmessage.NewName(strings.TrimSuffix(name, ".") + ".")
	if err != nil {
		return nil, &CAAError{Code: "dns_bad_name", Err: err}
	}
	var last error
	for _, srv := range d.Servers {
		recs, err := d.query(ctx, srv, q)
		if err == nil {
			return recs, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, caaError(last)
}

// query asks one server, over UDP then, if the answer was truncated, TCP.
func (d *DNSClient) query(ctx context.Context, server string, name dnsmessage.Name) ([]CAA, error) {
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var idb [2]byte
	_, _ = rand.Read(idb[:])
	id := binary.BigEndian.Uint16(idb[:])
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: id, RecursionDesired: true})
	b.EnableCompression()
	_ = b.StartQuestions()
	if err := b.Question(dnsmessage.Question{Name: name, Type: caaType, Class: dnsmessage.ClassINET}); err != nil {
		return nil, err
	}
	msg, err := b.Finish()
	if err != nil {
		return nil, err
	}
	for _, network := range []string{"udp", "tcp"} {
		resp, err := exchange(ctx, network, server, msg)
		if err != nil {
			return nil, err
		}
		recs, truncated, err := parseCAAAnswer(resp, id, name)
		if err != nil || !truncated {
			return recs, err
		}
	}
	return nil, errors.New("the answer was truncated over TCP")
}

// exchange sends msg and reads one answer.
func exchange(ctx context.Context, network, server string, msg []byte) ([]byte, error) {
	var dl net.Dialer
	conn, err := dl.DialContext(ctx, network, server)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if network == "udp" {
		if _, err := conn.Write(msg); err != nil {
			return nil, err
		}
		buf := make([]byte, 4096)
		n, err := conn.Read(buf)
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
	framed := binary.BigEndian.AppendUint16(nil, uint16(len(msg)))
	if _, err := conn.Write(append(framed, msg...)); err != nil {
		return nil, err
	}
	var n [2]byte
	if _, err := readFull(conn, n[:]); err != nil {
		return nil, err
	}
	buf := make([]byte, binary.BigEndian.Uint16(n[:]))
	if _, err := readFull(conn, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

func readFull(c net.Conn, b []byte) (int, error) {
	got := 0
	for got < len(b) {
		n, err := c.Read(b[got:])
		got += n
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

// parseCAAAnswer reads the CAA records of an answer to the query id for
// name. NXDOMAIN and an empty answer give no records; another failure code
// is an error.
func parseCAAAnswer(msg []byte, id uint16, name dnsmessage.Name) (recs []CAA, truncated bool, err error) {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", errMalformed, err)
	}
	if h.ID != id || !h.Response {
		return nil, false, fmt.Errorf("%w: an answer to another query", errMalformed)
	}
	if h.Truncated {
		return nil, true, nil
	}
	switch h.RCode {
	case dnsmessage.RCodeSuccess, dnsmessage.RCodeNameError:
	case dnsmessage.RCodeServerFailure:
		return nil, false, errServerFailure
	case dnsmessage.RCodeRefused:
		return nil, false, errRefused
	default:
		return nil, false, fmt.Errorf("the name server answered %s: %w", h.RCode, errMalformed)
	}
	qs, err := p.AllQuestions()
	if err != nil || len(qs) != 1 || !strings.EqualFold(qs[0].Name.String(), name.String()) || qs[0].Type != caaType {
		return nil, false, fmt.Errorf("%w: an answer to another question", errMalformed)
	}
	for {
		ah, err := p.AnswerHeader()
		if errors.Is(err, dnsmessage.ErrSectionDone) {
			return recs, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("%w: %w", errMalformed, err)
		}
		// A CNAME chain's records come first; the CAA records at its end
		// are the name's (RFC 8659 §3 follows aliases as resolvers do).
		if ah.Type != caaType || ah.Class != dnsmessage.ClassINET {
			if err := p.SkipAnswer(); err != nil {
				return nil, false, fmt.Errorf("%w: %w", errMalformed, err)
			}
			continue
		}
		u, err := p.UnknownResource()
		if err != nil {
			return nil, false, fmt.Errorf("%w: %w", errMalformed, err)
		}
		r, ok := parseCAA(u.Data)
		if ok && len(recs) < maxCAARecords {
			recs = append(recs, r)
		}
	}
}

// parseCAA reads a CAA record's data: flags, tag length, tag, value (RFC
// 8659 §4.1). A record whose tag is empty or not alphanumeric is dropped.
func parseCAA(b []byte) (CAA, bool) {
	if len(b) < 2 {
		return CAA{}, false
	}
	n := int(b[1])
	if n == 0 || 2+n > len(b) {
		return CAA{}, false
	}
	tag := string(b[2 : 2+n])
	for i := 0; i < len(tag); i++ {
		c := tag[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return CAA{}, false
		}
	}
	return CAA{Critical: b[0]&0x80 != 0, Tag: strings.ToLower(tag), Value: string(b[2+n:])}, true
}

// systemNameServers reads the name servers of /etc/resolv.conf, as the
// standard library's resolver does; with none, the local one.
func systemNameServers() []string {
	var out []string
	if f, err := os.Open("/etc/resolv.conf"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() && len(out) < 3 {
			fields := strings.Fields(sc.Text())
			if len(fields) < 2 || fields[0] != "nameserver" {
				continue
			}
			if a, err := netip.ParseAddr(fields[1]); err == nil {
				out = append(out, netip.AddrPortFrom(a.WithZone(""), 53).String())
			}
		}
	}
	if len(out) == 0 {
		out = []string{"127.0.0.1:53", "[::1]:53"}
	}
	return out
}
