// Package httplimit holds what an HTTP handler does against slow and
// greedy clients: each caller gets a bounded share of a server-wide cap
// (CallerShares), taken before its body is read, and a body must arrive
// within a deadline that moves on only as its bytes come in (PaceBody),
// so that a client that stalls or trickles loses its place instead of
// holding it. The MCP endpoint (package mcp) and the upload endpoint
// (package toolset) use it both, so the two paths hold slow clients to
// one mechanism.
package httplimit

import (
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// CallerShares counts each caller's requests in flight, so that one
// caller holds at most its share of a server-wide cap. The zero value is
// ready to use; it is safe for concurrent use.
type CallerShares struct {
	mu sync.Mutex
	n  map[string]int
}

// Take makes room for one more request of caller, or reports false when
// caller already has max in flight. The unauthenticated caller "" is not
// counted: without authentication there are no callers to tell apart.
func (c *CallerShares) Take(caller string, max int) bool {
	if caller == "" {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[caller] >= max {
		return false
	}
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[caller]++
	return true
}

// Give returns a share Take gave.
func (c *CallerShares) Give(caller string) {
	if caller == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[caller]--; c.n[caller] <= 0 {
		delete(c.n, caller)
	}
}

// BodyPace bounds how long a request body may take to arrive.
type BodyPace struct {
	// Timeout is how long the whole body may take when MinRate is zero,
	// and otherwise the grace the body gets before MinRate counts.
	Timeout time.Duration
	// MinRate, when positive, is the slowest a body may arrive, in bytes
	// per second: by any moment, the body must have arrived at MinRate
	// since Timeout after it began. A body of n bytes thus takes at most
	// Timeout + n/MinRate, and a client that stalls is cut off within
	// Timeout of its last bytes' allowance. Zero: Timeout bounds the whole
	// body.
	MinRate int64
}

// PacedBody is a request body read under a BodyPace. Reads that run past
// the deadline fail with an error for which IsBodyTimeout reports true.
type PacedBody struct {
	rc    *http.ResponseController
	body  io.Reader
	pace  BodyPace
	start time.Time
	n     int64
	timed bool
	set   time.Time // the deadline last set
}

// PaceBody sets the read deadline of r's connection by p and returns r's
// body, which moves the deadline on as bytes arrive. Call Done once the
// body is in. When the connection's deadline cannot be set (a
// ResponseWriter that does not reach it), the body is read without one.
func PaceBody(w http.ResponseWriter, r *http.Request, p BodyPace) *PacedBody {
	b := &PacedBody{rc: http.NewResponseController(w), body: r.Body, pace: p, start: time.Now()}
	b.set = b.deadline()
	b.timed = b.rc.SetReadDeadline(b.set) == nil
	return b
}

// deadline is when the body must have arrived up to what came so far.
func (b *PacedBody) deadline() time.Time {
	d := b.start.Add(b.pace.Timeout)
	if b.pace.MinRate > 0 {
		d = d.Add(time.Duration(float64(b.n) / float64(b.pace.MinRate) * float64(time.Second)))
	}
	return d
}

// Read implements io.Reader.
func (b *PacedBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.n += int64(n)
	if n > 0 && b.timed && b.pace.MinRate > 0 {
		// Moved on by whole milliseconds at least: one system call per
		// read of a fast body would be wasted.
		if d := b.deadline(); d.Sub(b.set) >= time.Millisecond {
			b.set = d
			_ = b.rc.SetReadDeadline(d)
		}
	}
	return n, err
}

// Received is how many bytes have arrived.
func (b *PacedBody) Received() int64 { return b.n }

// Longest is the most time a body of size bytes may take under p.
func (p BodyPace) Longest(size int64) time.Duration {
	if p.MinRate <= 0 {
		return p.Timeout
	}
	return p.Timeout + time.Duration(float64(size)/float64(p.MinRate)*float64(time.Second))
}

// Done lifts the deadline once the body is in: the connection's reads
// (net/http watches for the client leaving) must not end with it. A body
// refused keeps its deadline, so that net/http does not wait for the
// rest of it.
func (b *PacedBody) Done() {
	if b.timed {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
}

// IsBodyTimeout reports whether err is a read that ran past a body's
// deadline.
func IsBodyTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
