package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
)

// lineWriter serialises whole messages onto one stream.
type lineWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

func (lw *lineWriter) Send(msg []byte) error { return lw.sendLine(msg) }

// sendResponse writes a success response around its result without
// copying the result into a new message first.
func (lw *lineWriter) sendResponse(id json.RawMessage, res []byte) error {
	var buf [64]byte
	return lw.sendLine(appendResponseHead(buf[:0], id), res, []byte{'}'})
}

// sendLine writes the parts of one message and ends the line. Messages
// are rendered without raw newlines (encoding/json escapes them inside
// strings), so one message is one line.
func (lw *lineWriter) sendLine(parts ...[]byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	for _, p := range parts {
		if _, err := lw.w.Write(p); err != nil {
			lw.err = err
			return err
		}
	}
	if err := lw.w.WriteByte('\n'); err != nil {
		lw.err = err
		return err
	}
	lw.err = lw.w.Flush()
	return lw.err
}

// StdioOptions configure ServeStdio. The zero value is a safe default.
type StdioOptions struct {
	// MaxMessageBytes caps one line. Zero: 4 MiB.
	MaxMessageBytes int
	// MaxInFlight caps the requests served at once. Zero: 64.
	MaxInFlight int
}

// ServeStdio serves newline-delimited JSON-RPC on r and w until r ends or
// ctx is cancelled. Both eras are served: a process switches to a legacy
// session when it receives initialize without modern _meta. When r ends,
// calls already running finish and their responses are written before
// ServeStdio returns; only listen streams and questions to the departed
// client are cut short.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer, opts *StdioOptions) error {
	var o StdioOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = MaxMessageBytes
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 64
	}
	out := &lineWriter{w: bufio.NewWriterSize(w, 64<<10)}
	st := &stdioState{s: s, out: out, inflight: map[string]*flight{},
		sem: make(chan struct{}, o.MaxInFlight), queue: make(chan struct{}, 4*o.MaxInFlight)}
	ctx, stop := context.WithCancel(ctx)
	defer stop()

	br := bufio.NewReaderSize(r, 64<<10)
	var readErr error
	for {
		line, over, err := readLine(br, o.MaxMessageBytes)
		if over != nil {
			st.tooLarge(ctx, over, o.MaxMessageBytes)
		} else if len(bytes.TrimSpace(line)) > 0 {
			st.handleLine(ctx, line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	st.drain()
	if readErr != nil {
		return readErr
	}
	return ctx.Err()
}

// readLine reads one line of at most max bytes. An over-long line is
// consumed and never buffered whole: what was read of it is dropped, and
// the rest streams through an idScan, which over reports.
func readLine(br *bufio.Reader, max int) (line []byte, over *idScan, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if over == nil && len(buf)+len(chunk) > max+1 {
			over = &idScan{}
			over.feed(buf)
			buf = nil
		}
		if over != nil {
			over.feed(chunk)
		} else {
			buf = append(buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return buf, over, err
	}
}

// tooLarge answers a message over the size cap. A request whose id could
// be read gets request_too_large with that id, so the client's call ends
// at once instead of at its timeout; a message that cannot be answered
// by id (no id, an id that cannot be read, a notification or a response)
// is reported in the log, and, unless it is a notification or response,
// answered with a null id as JSON-RPC prescribes.
func (st *stdioState) tooLarge(ctx context.Context, over *idScan, max int) {
	e := &Error{Code: CodeInvalidRequest, Kind: KindTooLarge, Message: "request too large",
		Data: map[string]any{"code": "request_too_large", "limitBytes": max}}
	if id, ok := over.requestID(); ok {
		_ = st.out.Send(appendError(nil, id, e))
		return
	}
	what := "its id could not be read, so the client cannot match the error to its request"
	switch {
	case over.response:
		what = "it was a response to the server, which waits for it until its own deadline"
	case over.method && over.ids == 0:
		what = "it was a notification, which gets no answer"
	}
	st.s.log.LogAttrs(ctx, slog.LevelWarn, "stdio: a message over the size limit was dropped; "+what,
		slog.Int("limitBytes", max), slog.Int64("bytes", over.n))
	if !over.response && !(over.method && over.ids == 0) {
		_ = st.out.Send(appendError(nil, nil, e))
	}
}

type flight struct {
	cancel context.CancelFunc
	listen bool
	// cancelled is set, under stdioState.mu, when the client cancels the
	// request: nothing more is sent for its id, which the client may
	// already be reusing.
	cancelled bool
}

type stdioState struct {
	s        *Server
	out      *lineWriter
	mu       sync.Mutex
	sess     *Session
	inflight map[string]*flight
	wg       sync.WaitGroup
	sem      chan struct{} // calls running
	queue    chan struct{} // calls running or waiting to run
}

func (st *stdioState) handleLine(ctx context.Context, line []byte) {
	m, perr := ParseMessage(line)
	if perr != nil {
		var id []byte
		if m != nil {
			id = m.ID
		}
		_ = st.out.Send(appendError(nil, id, perr))
		return
	}
	st.mu.Lock()
	sess := st.sess
	st.mu.Unlock()
	switch {
	case m.IsResponse():
		if sess != nil {
			sess.Deliver(m)
		}
		return
	case m.IsNotification():
		if m.Method == "notifications/cancelled" {
			st.cancel(m)
		}
		if sess != nil {
			sess.HandleNotification(m)
		}
		return
	}
	p, err := splitParams(m.Params)
	if err != nil {
		_ = st.out.Send(appendError(nil, m.ID, err))
		return
	}
	modern := p.hasMeta && p.meta.hasVersion
	if !modern && m.Method == "initialize" {
		st.mu.Lock()
		if st.sess == nil {
			st.sess = st.s.NewSession("")
			st.sess.SetPush(st.out)
		}
		sess = st.sess
		st.mu.Unlock()
		// Served before the next line is read: a client may send its
		// next requests without waiting for this response, and they
		// must find the session initialized.
		if res, rerr := sess.Handle(ctx, m, st.out); rerr != nil {
			_ = st.out.Send(appendError(nil, m.ID, rerr))
		} else {
			_ = st.out.sendResponse(m.ID, res)
		}
		return
	}
	// Requests queue (bounded) for an in-flight slot in their own
	// goroutine, so the read loop goes on reading the client's answers and
	// cancellations that calls in flight may be waiting for. Only a full
	// queue slows the reader down.
	st.queue <- struct{}{}
	rctx, cancel := context.WithCancel(ctx)
	key := string(m.ID)
	fl := &flight{cancel: cancel, listen: m.Method == "subscriptions/listen"}
	st.mu.Lock()
	st.inflight[key] = fl
	st.mu.Unlock()
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		defer func() { <-st.queue }()
		select {
		case st.sem <- struct{}{}:
		case <-rctx.Done():
			return
		}
		defer func() { <-st.sem }()
		defer func() {
			cancel()
			st.mu.Lock()
			if st.inflight[key] == fl { // a reused id belongs to a newer call
				delete(st.inflight, key)
			}
			st.mu.Unlock()
		}()
		var res []byte
		var rerr *Error
		switch {
		case modern || sess == nil:
			if rerr = checkModernMeta(&p); rerr == nil {
				if rerr = checkVersion(p.meta.version); rerr == nil {
					res, rerr = st.s.serveModern(rctx, m, &p, st.out)
				}
			}
		default:
			res, rerr = sess.Handle(rctx, m, st.out)
		}
		st.mu.Lock()
		cancelled := fl.cancelled
		st.mu.Unlock()
		if cancelled {
			return // the client gave up on this id
		}
		if rerr != nil {
			_ = st.out.Send(appendError(nil, m.ID, rerr))
			return
		}
		if res == nil || rctx.Err() != nil && m.Method == "subscriptions/listen" {
			return // a cancelled listen stream ends without a result
		}
		_ = st.out.sendResponse(m.ID, res)
	}()
}

func (st *stdioState) cancel(m *Message) {
	var id []byte
	_ = eachParam(m.Params, "requestId", func(v []byte) { id = v })
	if id == nil {
		return
	}
	st.mu.Lock()
	if f, ok := st.inflight[string(id)]; ok {
		f.cancelled = true
		f.cancel()
	}
	st.mu.Unlock()
}

// drain ends listen streams and questions to the client, which can no
// longer be answered, then waits for every other call to write its
// response.
func (st *stdioState) drain() {
	st.mu.Lock()
	for _, f := range st.inflight {
		if f.listen {
			f.cancel()
		}
	}
	sess := st.sess
	st.mu.Unlock()
	if sess != nil {
		sess.failPending()
	}
	st.wg.Wait()
	if sess != nil {
		sess.Close()
	}
}
