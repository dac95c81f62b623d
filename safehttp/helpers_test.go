package safehttp

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeResolver answers from a script. Each host has a sequence of answers;
// the n-th lookup gets the n-th entry and the last one repeats. Hosts listed
// in block never answer: the lookup waits for its context.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	errs    map[string]error
	block   map[string]bool
	calls   map[string]int
	// forbid fails the test on any lookup: for inputs that must be refused
	// before DNS.
	forbid *testing.T
}

var errNXDomain = &net.DNSError{Err: "no such host", IsNotFound: true}

func newFakeResolver() *fakeResolver {
	return &fakeResolver{
		answers: map[string][][]netip.Addr{},
		errs:    map[string]error{},
		block:   map[string]bool{},
		calls:   map[string]int{},
	}
}

// set scripts host: each argument is one lookup's answer, as
// comma-separated addresses ("" = empty answer).
func (f *fakeResolver) set(host string, answers ...string) *fakeResolver {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range answers {
		var list []netip.Addr
		for _, s := range strings.Split(a, ",") {
			if s != "" {
				list = append(list, netip.MustParseAddr(s))
			}
		}
		f.answers[host] = append(f.answers[host], list)
	}
	return f
}

func (f *fakeResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if network != "ip" {
		return nil, errors.New("fake: unexpected network " + network)
	}
	host = strings.TrimSuffix(host, ".")
	f.mu.Lock()
	f.calls[host]++
	n := f.calls[host]
	forbid := f.forbid
	seq, ok := f.answers[host]
	err := f.errs[host]
	block := f.block[host]
	f.mu.Unlock()
	if forbid != nil {
		forbid.Errorf("resolver called for %q; the input should have been refused before DNS", host)
	}
	if block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errNXDomain
	}
	if n > len(seq) {
		n = len(seq)
	}
	return append([]netip.Addr(nil), seq[n-1]...), nil
}

func (f *fakeResolver) count(host string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[host]
}

// countingListener accepts on loopback and counts connections; it serves
// nothing. A blocked target pointed at it must leave the count at zero.
type countingListener struct {
	ln       net.Listener
	accepts  atomic.Int64
	accepted chan struct{} // one token per accepted connection not yet waited for
}

func newCountingListener(t *testing.T, addr string) *countingListener {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	return startCounting(t, ln)
}

// startCounting counts the connections ln accepts until the test ends.
func startCounting(t *testing.T, ln net.Listener) *countingListener {
	cl := &countingListener{ln: ln, accepted: make(chan struct{}, 64)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			cl.accepts.Add(1)
			select {
			case cl.accepted <- struct{}{}:
			default: // nobody waits for that many
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return cl
}

func (cl *countingListener) addrPort() netip.AddrPort {
	return netip.MustParseAddrPort(cl.ln.Addr().String())
}

// dialLog records every address the control hook let through.
type dialLog struct {
	mu    sync.Mutex
	addrs []netip.AddrPort
}

// record logs ap and vetoes anything off loopback, so that no test, even a
// failing one, ever opens a connection beyond this machine.
func (d *dialLog) record(ap netip.AddrPort) error {
	d.mu.Lock()
	d.addrs = append(d.addrs, ap)
	d.mu.Unlock()
	if !ap.Addr().IsLoopback() {
		return errors.New("test vetoed a dial off loopback: " + ap.String())
	}
	return nil
}

func (d *dialLog) list() []netip.AddrPort {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]netip.AddrPort(nil), d.addrs...)
}

// newTestClient builds a client with the production policy plus the given
// options, and records dials.
func newTestClient(opts *Options) (*Client, *dialLog) {
	c := New(opts)
	log := &dialLog{}
	c.testDialed = log.record
	return c, log
}

func codeOf(err error) Code { return ErrorCode(err) }
