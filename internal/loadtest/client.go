package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config describes one load run. The zero value of each optional field is
// a sensible default.
type Config struct {
	// URL is the endpoint, http://host:port/path. Required.
	URL string
	// Body and Header make up the request sent over and over. Required.
	Body   []byte
	Header http.Header
	// ConnHeader, if set, gives connection i its own headers in place of
	// Header (a legacy session per connection, say); it runs before the
	// clock starts.
	ConnHeader func(ctx context.Context, i int) (http.Header, error)
	// Want must appear in every response body for it to count as a
	// success. Nil accepts any 200 response.
	Want []byte
	// Conns is the number of keep-alive connections, each with one
	// request outstanding at a time. Zero: 64.
	Conns int
	// Warmup runs before measuring; Duration is the measured window.
	// Zero: 1 s and 10 s.
	Warmup, Duration time.Duration
	// Timeout bounds one request. Zero: 10 s.
	Timeout time.Duration
	// CPUTime, if set, returns the CPU time the server has used so far;
	// it is read at the edges of the window to give the server's CPU cost
	// per request.
	CPUTime func() (time.Duration, error)
	// ClientCPUTime, if set, does the same for the load client itself, to
	// show whether the client rather than the server was the limit.
	ClientCPUTime func() (time.Duration, error)
}

// Result is what a run measured inside its window.
type Result struct {
	Requests  uint64        // successful responses completed in the window
	Failures  uint64        // non-200 or unexpected bodies in the window
	Window    time.Duration // length of the measured window
	PerSecond float64       // Requests / Window
	P50, P90  time.Duration
	P99, Max  time.Duration
	// ServerCPU is the server's CPU time over the window, and
	// ServerCPUPerRequest its share per successful request; zero when
	// Config.CPUTime was not set.
	ServerCPU           time.Duration
	ServerCPUPerRequest time.Duration
	// ClientCPUPerRequest is the load client's own CPU time per
	// successful request; zero when Config.ClientCPUTime was not set.
	ClientCPUPerRequest time.Duration
	// FirstFailure describes one failure, for diagnosis.
	FirstFailure string
}

// String formats the result on one line.
func (r Result) String() string {
	s := fmt.Sprintf("%.0f req/s  p50 %s  p90 %s  p99 %s  max %s  (%d ok, %d failed in %s)",
		r.PerSecond, r.P50, r.P90, r.P99, r.Max, r.Requests, r.Failures, r.Window.Round(time.Millisecond))
	if r.ServerCPU > 0 {
		s += fmt.Sprintf("  server CPU %s per request", r.ServerCPUPerRequest)
	}
	if r.ClientCPUPerRequest > 0 {
		s += fmt.Sprintf("  client CPU %s per request", r.ClientCPUPerRequest)
	}
	return s
}

// renderRequest writes the HTTP/1.1 request once; every send reuses it.
func renderRequest(u *url.URL, body []byte, header http.Header) []byte {
	var b bytes.Buffer
	path := u.RequestURI()
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", path, u.Host, len(body))
	keys := make([]string, 0, len(header))
	for k := range header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.EqualFold(k, "Host") || strings.EqualFold(k, "Content-Length") {
			continue
		}
		for _, v := range header[k] {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// Run drives the endpoint until the warm-up and the window have passed or
// ctx ends.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Conns <= 0 {
		cfg.Conns = 64
	}
	if cfg.Warmup <= 0 {
		cfg.Warmup = time.Second
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return Result{}, fmt.Errorf("loadtest: URL must be http://host:port/path, got %q", cfg.URL)
	}
	reqs := make([][]byte, cfg.Conns)
	for i := range reqs {
		h := cfg.Header
		if cfg.ConnHeader != nil {
			if h, err = cfg.ConnHeader(ctx, i); err != nil {
				return Result{}, fmt.Errorf("loadtest: connection %d: %w", i, err)
			}
		}
		reqs[i] = renderRequest(u, cfg.Body, h)
	}

	// Every connection is dialled before the clock starts.
	conns := make([]net.Conn, 0, cfg.Conns)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	var d net.Dialer
	for range cfg.Conns {
		c, err := d.DialContext(ctx, "tcp", u.Host)
		if err != nil {
			return Result{}, fmt.Errorf("loadtest: dial: %w", err)
		}
		conns = append(conns, c)
	}

	start := time.Now()
	winStart := start.Add(cfg.Warmup)
	winEnd := winStart.Add(cfg.Duration)
	ctx, cancel := context.WithDeadline(ctx, winEnd)
	defer cancel()

	workers := make([]*worker, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		w := &worker{conn: c, br: bufio.NewReaderSize(c, 64<<10), req: reqs[i], want: cfg.Want,
			timeout: cfg.Timeout, winStart: winStart, winEnd: winEnd}
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ctx)
		}()
	}

	server, client := cpuSpan{read: cfg.CPUTime}, cpuSpan{read: cfg.ClientCPUTime}
	select {
	case <-time.After(time.Until(winStart)):
	case <-ctx.Done():
	}
	server.begin()
	client.begin()
	<-ctx.Done()
	server.end()
	client.end()
	// Unblock workers waiting on a response, then collect.
	for _, c := range conns {
		_ = c.SetDeadline(time.Now())
	}
	wg.Wait()

	var h Histogram
	res := Result{Window: cfg.Duration}
	for _, w := range workers {
		h.Merge(&w.hist)
		res.Failures += w.failures
		if res.FirstFailure == "" {
			res.FirstFailure = w.firstFailure
		}
	}
	if now := time.Now(); now.Before(winEnd) { // ctx ended early
		res.Window = max(now.Sub(winStart), 0)
	}
	res.Requests = h.Count()
	if res.Window > 0 {
		res.PerSecond = float64(res.Requests) / res.Window.Seconds()
	}
	res.P50, res.P90, res.P99, res.Max = h.Quantile(0.50), h.Quantile(0.90), h.Quantile(0.99), h.Max()
	if server.ok && res.Requests > 0 {
		res.ServerCPU = server.used
		res.ServerCPUPerRequest = server.used / time.Duration(res.Requests)
	}
	if client.ok && res.Requests > 0 {
		res.ClientCPUPerRequest = client.used / time.Duration(res.Requests)
	}
	if res.Requests == 0 && res.Failures > 0 {
		return res, fmt.Errorf("loadtest: every request failed; first: %s", res.FirstFailure)
	}
	return res, nil
}

// cpuSpan reads a CPU clock at both edges of the window.
type cpuSpan struct {
	read  func() (time.Duration, error)
	start time.Duration
	used  time.Duration
	ok    bool
}

func (c *cpuSpan) begin() {
	if c.read == nil {
		return
	}
	var err error
	c.start, err = c.read()
	c.ok = err == nil
}

func (c *cpuSpan) end() {
	if !c.ok {
		return
	}
	now, err := c.read()
	c.used, c.ok = now-c.start, err == nil
}

type worker struct {
	conn     net.Conn
	br       *bufio.Reader
	req      []byte
	want     []byte
	timeout  time.Duration
	winStart time.Time
	winEnd   time.Time

	body         []byte
	hist         Histogram
	failures     uint64
	firstFailure string
}

func (w *worker) run(ctx context.Context) {
	for ctx.Err() == nil {
		t0 := time.Now()
		_ = w.conn.SetDeadline(t0.Add(w.timeout))
		status, err := w.roundTrip()
		t1 := time.Now()
		if ctx.Err() != nil {
			return // the deadline cut this request short; it is not counted
		}
		inWindow := !t1.Before(w.winStart) && t1.Before(w.winEnd)
		switch {
		case err != nil:
			if inWindow {
				w.fail(err.Error())
			}
			return // the connection is unusable
		case status != http.StatusOK:
			if inWindow {
				w.fail(fmt.Sprintf("status %d: %.200s", status, w.body))
			}
		case w.want != nil && !bytes.Contains(w.body, w.want):
			if inWindow {
				w.fail(fmt.Sprintf("unexpected body: %.200s", w.body))
			}
		case inWindow:
			w.hist.Record(t1.Sub(t0))
		}
	}
}

func (w *worker) fail(msg string) {
	w.failures++
	if w.firstFailure == "" {
		w.firstFailure = msg
	}
}

var errMalformed = errors.New("malformed HTTP response")

// maxBody caps a response body; the servers under test answer in a few
// kilobytes.
const maxBody = 16 << 20

var errTooLarge = errors.New("response body too large")

// roundTrip sends the request and reads one response into w.body. It
// understands what the servers under test send: a Content-Length body or
// a chunked one.
func (w *worker) roundTrip() (int, error) {
	if _, err := w.conn.Write(w.req); err != nil {
		return 0, err
	}
	return w.readResponse()
}

// readResponse reads one response from w.br into w.body.
func (w *worker) readResponse() (int, error) {
	line, err := w.br.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	// HTTP/1.1 200 OK
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, errMalformed
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil || status < 100 {
		return 0, errMalformed
	}
	length, chunked, closing := -1, false, false
	for {
		line, err := w.br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, errMalformed
		}
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(v)); err != nil || length < 0 {
				return 0, errMalformed
			}
			if length > maxBody {
				return 0, errTooLarge
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		case bytes.EqualFold(k, []byte("Connection")):
			closing = bytes.EqualFold(v, []byte("close"))
		}
	}
	w.body = w.body[:0]
	switch {
	case chunked:
		if err := w.readChunked(); err != nil {
			return 0, err
		}
	case length >= 0:
		if cap(w.body) < length {
			w.body = make([]byte, length)
		}
		w.body = w.body[:length]
		if _, err := io.ReadFull(w.br, w.body); err != nil {
			return 0, err
		}
	case status == http.StatusNoContent || status == http.StatusNotModified || status/100 == 1:
	default:
		return 0, errors.New("response without a length")
	}
	if closing {
		return status, errors.New("server closed the connection")
	}
	return status, nil
}

func (w *worker) readChunked() error {
	for {
		line, err := w.br.ReadSlice('\n')
		if err != nil {
			return err
		}
		line = bytes.TrimRight(line, "\r\n")
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		n, err := strconv.ParseInt(string(line), 16, 32)
		if err != nil || n < 0 {
			return errMalformed
		}
		if int64(len(w.body))+n > maxBody {
			return errTooLarge
		}
		if n == 0 {
			for { // trailers, then the blank line
				l, err := w.br.ReadSlice('\n')
				if err != nil {
					return err
				}
				if len(bytes.TrimRight(l, "\r\n")) == 0 {
					return nil
				}
			}
		}
		off := len(w.body)
		w.body = append(w.body, make([]byte, n)...)
		if _, err := io.ReadFull(w.br, w.body[off:]); err != nil {
			return err
		}
		if _, err := w.br.Discard(2); err != nil { // CRLF
			return err
		}
	}
}
