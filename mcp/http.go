package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HTTPOptions configure the streamable HTTP handler. The zero value of
// each field is a safe default.
type HTTPOptions struct {
	// Path is the protocol endpoint. Default "/mcp".
	Path string
	// MaxBodyBytes caps a request body, checked while reading. Default
	// 4 MiB.
	MaxBodyBytes int64
	// AllowedOrigins lists the Origin values accepted from browsers
	// ("https://app.example"). Requests without Origin always pass. Nil:
	// only loopback origins when LoopbackHosts is set, none otherwise.
	AllowedOrigins []string
	// LoopbackHosts, when set, is the listen address's port: the Host
	// header must then name localhost, 127.0.0.1 or [::1] on it (DNS
	// rebinding protection for a server bound to loopback).
	LoopbackPort string
	// MaxInFlight caps requests served at once; more answer 503. Default
	// 256.
	MaxInFlight int
	// MaxSessions caps legacy sessions. Default 1000.
	MaxSessions int
	// SessionIdle ends a legacy session unused this long. Default 30
	// minutes.
	SessionIdle time.Duration
	// KeepAlive is the comment interval on long SSE streams. Default 15 s.
	KeepAlive time.Duration
	// DetachedCallTimeout bounds a legacy call that runs on after its
	// stream closed, waiting to be resumed. Default 10 minutes.
	DetachedCallTimeout time.Duration
	// Extra serves other paths (the /.well-known/ documents, say).
	Extra map[string]http.Handler
	// Wrap, if set, wraps the protocol endpoint (authentication, rate
	// limits). It runs after the Origin and Host checks.
	Wrap func(http.Handler) http.Handler
	// Logger receives one line per request; nil uses the server's.
	Logger *slog.Logger
	// Ready, if set, is asked by /readyz: an error (a store or key set
	// that cannot be evaluated) answers 503.
	Ready func(ctx context.Context) error
}

// HTTPHandler serves a Server over streamable HTTP: the 2026-07-28
// stateless revision and legacy sessions on one endpoint, with health
// checks beside it.
type HTTPHandler struct {
	s        *Server
	opts     HTTPOptions
	log      *slog.Logger
	sem      chan struct{}
	mcp      http.Handler
	draining atomic.Bool

	mu       sync.Mutex
	sessions map[string]*Session
}

// NewHTTPHandler returns the HTTP handler for s.
func NewHTTPHandler(s *Server, opts *HTTPOptions) *HTTPHandler {
	h := &HTTPHandler{s: s, sessions: map[string]*Session{}}
	if opts != nil {
		h.opts = *opts
	}
	o := &h.opts
	if o.Path == "" {
		o.Path = "/mcp"
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = MaxMessageBytes
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 256
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 1000
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = 30 * time.Minute
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.DetachedCallTimeout <= 0 {
		o.DetachedCallTimeout = 10 * time.Minute
	}
	h.log = o.Logger
	if h.log == nil {
		h.log = s.log
	}
	h.sem = make(chan struct{}, o.MaxInFlight)
	h.mcp = http.HandlerFunc(h.serveMCP)
	if o.Wrap != nil {
		h.mcp = o.Wrap(h.mcp)
	}
	return h
}

// Drain marks the handler as shutting down: /readyz fails, open listen
// streams and legacy sessions' GET streams end, so http.Server.Shutdown
// is not held up by them, while calls in flight run on to their end.
func (h *HTTPHandler) Drain() {
	h.draining.Store(true)
	h.s.Close()
	h.mu.Lock()
	for _, sess := range h.sessions {
		sess.endStreams()
	}
	h.mu.Unlock()
}

// Close ends every legacy session, cancelling what still runs in them.
// Call it after the server has shut down.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, sess := range h.sessions {
		sess.Close()
		delete(h.sessions, id)
	}
}

// maxSessionsPerCaller bounds the legacy sessions one credential holds, so
// one caller cannot take every session of the server. Without
// authentication there are no callers to tell apart, and only the
// server-wide cap applies.
const maxSessionsPerCaller = 32

type releaseKey struct{}

// releaseSlot gives back the request's in-flight slot early.
func releaseSlot(ctx context.Context) {
	if f, ok := ctx.Value(releaseKey{}).(func()); ok {
		f()
	}
}

var correlationRE = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

type correlationKey struct{}

// CorrelationID returns the request's correlation id.
func CorrelationID(ctx context.Context) string {
	id, _ := ctx.Value(correlationKey{}).(string)
	return id
}

// WithCorrelationID records a correlation id in ctx.
func WithCorrelationID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, correlationKey{}, id)
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusWriter records the status for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// ServeHTTP routes the protocol path, health checks and extra documents.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cid := r.Header.Get("X-Correlation-Id")
	if len(r.Header.Values("X-Correlation-Id")) != 1 || !correlationRE.MatchString(cid) {
		cid = newID()
	}
	w.Header().Set("X-Correlation-Id", cid)
	ctx := WithCorrelationID(r.Context(), cid)
	r = r.WithContext(ctx)
	sw := &statusWriter{ResponseWriter: w}
	start := time.Now()
	defer func() {
		h.log.LogAttrs(ctx, slog.LevelInfo, "http request",
			slog.String("correlation_id", cid), slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.Int("status", sw.status),
			slog.String("mcp_method", r.Header.Get("Mcp-Method")),
			slog.Duration("duration", time.Since(start)))
	}()
	switch r.URL.Path {
	case h.opts.Path:
		if !h.checkHostOrigin(sw, r) {
			return
		}
		select {
		case h.sem <- struct{}{}:
		default:
			writeBusy(sw, nil, "server busy", 1)
			return
		}
		// A request that turns into a long stream (a legacy GET stream,
		// subscriptions/listen) gives its slot back: the cap bounds work
		// in flight, and long streams have caps of their own.
		var once sync.Once
		release := func() { once.Do(func() { <-h.sem }) }
		defer release()
		h.mcp.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), releaseKey{}, release)))
	case "/healthz":
		sw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(sw, "ok\n")
	case "/readyz":
		sw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if h.draining.Load() {
			sw.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(sw, "draining\n")
			return
		}
		if h.opts.Ready != nil {
			rctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			err := h.opts.Ready(rctx)
			cancel()
			if err != nil {
				sw.WriteHeader(http.StatusServiceUnavailable)
				_, _ = io.WriteString(sw, "not ready\n")
				return
			}
		}
		_, _ = io.WriteString(sw, "ready\n")
	default:
		if x, ok := h.opts.Extra[r.URL.Path]; ok {
			x.ServeHTTP(sw, r)
			return
		}
		http.NotFound(sw, r)
	}
}

func isLoopbackName(host string) bool {
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1", "[::1]":
		return true
	}
	return false
}

func (h *HTTPHandler) checkHostOrigin(w http.ResponseWriter, r *http.Request) bool {
	if h.opts.LoopbackPort != "" {
		host, port, err := net.SplitHostPort(r.Host)
		if err != nil || port != h.opts.LoopbackPort || !isLoopbackName(host) {
			writeJSONError(w, http.StatusForbidden, nil, &Error{Code: CodeInvalidRequest, Message: "host not allowed", Data: map[string]string{"code": "host_not_allowed"}})
			return false
		}
	}
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return true
	}
	if len(origins) == 1 && h.originAllowed(origins[0]) {
		return true
	}
	writeJSONError(w, http.StatusForbidden, nil, &Error{Code: CodeInvalidRequest, Message: "origin not allowed", Data: map[string]string{"code": "origin_not_allowed"}})
	return false
}

func (h *HTTPHandler) originAllowed(origin string) bool {
	for _, o := range h.opts.AllowedOrigins {
		if strings.EqualFold(o, origin) {
			return true
		}
	}
	if h.opts.AllowedOrigins == nil && h.opts.LoopbackPort != "" {
		rest, ok := strings.CutPrefix(origin, "http://")
		if !ok {
			rest, ok = strings.CutPrefix(origin, "https://")
		}
		if !ok {
			return false
		}
		host, port, err := net.SplitHostPort(rest)
		return err == nil && port == h.opts.LoopbackPort && isLoopbackName(host)
	}
	return false
}

func writeJSONError(w http.ResponseWriter, status int, id json.RawMessage, e *Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(appendError(nil, id, e))
}

// writeBusy answers 503 to a request a retry will serve: Retry-After,
// and the same hint as retryAfterSeconds in the error's data.
func writeBusy(w http.ResponseWriter, id json.RawMessage, msg string, secs int) {
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	e := rpcErr(CodeInternalError, 0, msg)
	e.Data = map[string]int{"retryAfterSeconds": secs}
	writeJSONError(w, http.StatusServiceUnavailable, id, e)
}

func statusOf(e *Error) int {
	if e.Status == 0 {
		return http.StatusOK
	}
	return e.Status
}

func (h *HTTPHandler) serveMCP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "POST")
		writeJSONError(w, http.StatusMethodNotAllowed, nil, rpcErr(CodeInvalidRequest, 0, "method not allowed"))
	}
}

// readBody reads at most max bytes; a longer body, announced or chunked,
// is refused without being buffered whole.
func readBody(r *http.Request, max int64) ([]byte, bool, error) {
	if r.ContentLength > max {
		return nil, true, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > max {
		return nil, true, nil
	}
	return b, false, nil
}

// isJSONMediaType reports whether a Content-Type names application/json.
// The common exact spelling is recognised without mime.ParseMediaType,
// which allocates a parameter map on every call.
func isJSONMediaType(ct string) bool {
	if ct == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// mediaType returns the media type of one Accept element, lower-cased and
// without parameters; ok is false when the element does not parse.
func mediaType(part string) (mt string, ok bool) {
	switch part {
	case "application/json", "text/event-stream", "*/*", "application/*":
		return part, true // the common spellings, without allocating
	}
	mt, _, err := mime.ParseMediaType(part)
	return mt, err == nil
}

func acceptsJSON(r *http.Request) (json, sse bool) {
	acc := r.Header.Values("Accept")
	if len(acc) == 0 {
		return true, false
	}
	for _, a := range acc {
		for part := range strings.SplitSeq(a, ",") {
			mt, ok := mediaType(strings.TrimSpace(part))
			if !ok {
				continue
			}
			switch mt {
			case "application/json":
				json = true
			case "text/event-stream":
				sse = true
			case "*/*", "application/*":
				json = true
			}
		}
	}
	return json, sse
}

func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	if !isJSONMediaType(r.Header.Get("Content-Type")) {
		writeJSONError(w, http.StatusUnsupportedMediaType, nil, &Error{Code: CodeInvalidRequest, Message: "content type must be application/json", Data: map[string]string{"code": "unsupported_media_type"}})
		return
	}
	okJSON, okSSE := acceptsJSON(r)
	if !okJSON && !okSSE {
		writeJSONError(w, http.StatusNotAcceptable, nil, &Error{Code: CodeInvalidRequest, Message: "Accept must include application/json or text/event-stream", Data: map[string]string{"code": "not_acceptable"}})
		return
	}
	body, tooLarge, err := readBody(r, h.opts.MaxBodyBytes)
	if tooLarge {
		writeJSONError(w, http.StatusRequestEntityTooLarge, nil, &Error{Code: CodeInvalidRequest, Message: "request body too large",
			Data: map[string]any{"code": "request_too_large", "limitBytes": h.opts.MaxBodyBytes}})
		return
	}
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, nil, rpcErr(CodeParseError, 0, "parse error: the body could not be read"))
		return
	}
	m, perr := ParseMessage(body)
	if perr != nil {
		var id json.RawMessage
		if m != nil {
			id = m.ID
		}
		st := perr.Status
		if st == 0 || st == 413 {
			st = http.StatusBadRequest
		}
		writeJSONError(w, st, id, perr)
		return
	}
	p, splitErr := splitParams(m.Params)
	if splitErr != nil {
		writeJSONError(w, http.StatusBadRequest, m.ID, splitErr)
		return
	}
	sid := r.Header.Values("Mcp-Session-Id")
	hv := r.Header.Values("Mcp-Protocol-Version")
	legacyHeader := len(hv) == 0 || isLegacyVersion(hv[0])
	if len(sid) > 0 || (!p.hasMeta && legacyHeader) {
		h.postLegacy(w, r, m, &p, sid, okSSE)
		return
	}
	h.postModern(w, r, m, &p, hv, okSSE)
}

func isLegacyVersion(v string) bool {
	for _, l := range LegacyVersions {
		if v == l {
			return true
		}
	}
	return false
}

func headerMismatch(msg string) *Error {
	return rpcErr(CodeHeaderMismatch, 400, "header mismatch: "+msg)
}

// postModern applies the validation order of the 2026-07-28 revision.
func (h *HTTPHandler) postModern(w http.ResponseWriter, r *http.Request, m *Message, p *params, hv []string, okSSE bool) {
	if m.IsResponse() {
		writeJSONError(w, http.StatusBadRequest, m.ID, rpcErr(CodeInvalidRequest, 0, "invalid request: the server sent no request to answer"))
		return
	}
	if m.IsNotification() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	fail := func(e *Error) { writeJSONError(w, statusOf(e), m.ID, e) }
	if len(hv) == 0 {
		fail(headerMismatch("MCP-Protocol-Version is required"))
		return
	}
	if len(hv) > 1 {
		fail(headerMismatch("MCP-Protocol-Version given more than once"))
		return
	}
	if e := checkModernMeta(p); e != nil {
		fail(e)
		return
	}
	if hv[0] != p.meta.version {
		fail(headerMismatch("MCP-Protocol-Version does not match _meta"))
		return
	}
	if e := checkVersion(p.meta.version); e != nil {
		fail(e)
		return
	}
	if e := h.checkMirrored(r, m, p); e != nil {
		fail(e)
		return
	}
	sink := &httpSink{w: w, sse: okSSE, keepAlive: h.opts.KeepAlive}
	if m.Method == "subscriptions/listen" {
		releaseSlot(r.Context())
		if !okSSE {
			fail(rpcErr(CodeInvalidRequest, 406, "subscriptions/listen needs an Accept of text/event-stream"))
			return
		}
		sink.long = true
	}
	res, rerr := h.s.serveModern(r.Context(), m, p, sink)
	sink.finish(m.ID, res, rerr)
}

// checkMirrored is step 10: Mcp-Method, Mcp-Name and Mcp-Param-* must
// equal the body.
func (h *HTTPHandler) checkMirrored(r *http.Request, m *Message, p *params) *Error {
	mv := r.Header.Values("Mcp-Method")
	if len(mv) != 1 {
		return headerMismatch("Mcp-Method is required once")
	}
	if strings.TrimSpace(mv[0]) != m.Method {
		return headerMismatch("Mcp-Method does not match the body")
	}
	var want []byte
	switch m.Method {
	case "tools/call", "prompts/get":
		want = p.name
	case "resources/read":
		want = p.uri
	case "tasks/get", "tasks/update", "tasks/cancel":
		_ = eachParam(m.Params, "taskId", func(v []byte) { want = v })
		if want == nil {
			return nil // the dispatcher answers the missing taskId
		}
	default:
		return nil
	}
	bodyName, ok := nameOf(want)
	if !ok {
		return rpcErr(CodeInvalidParams, 400, "invalid params: name must be a string")
	}
	nv := r.Header.Values("Mcp-Name")
	if len(nv) != 1 {
		return headerMismatch("Mcp-Name is required once")
	}
	hn, ok := decodeHeaderValue(strings.TrimSpace(nv[0]))
	if !ok || hn != bodyName {
		return headerMismatch("Mcp-Name does not match the body")
	}
	if m.Method != "tools/call" {
		return nil
	}
	t, ok := h.s.reg.Lookup(bodyName)
	if !ok {
		return nil // the dispatcher answers unknown tools
	}
	for _, hp := range t.HeaderParams() {
		var val []byte
		_ = eachParam(p.arguments, hp.Arg, func(v []byte) { val = v })
		if val == nil || string(val) == "null" {
			continue
		}
		name := "Mcp-Param-" + hp.Header
		vals := r.Header.Values(name)
		if len(vals) != 1 {
			return headerMismatch(name + " is required once")
		}
		hv, ok := decodeHeaderValue(strings.TrimSpace(vals[0]))
		if !ok || !headerEquals(hp.Kind, hv, val) {
			return headerMismatch(name + " does not match the argument")
		}
	}
	return nil
}

// httpSink delivers a request's related messages and its response: plain
// JSON when nothing precedes the response, an SSE stream otherwise.
type httpSink struct {
	w         http.ResponseWriter
	sse       bool
	long      bool
	keepAlive time.Duration
	mu        sync.Mutex
	started   bool
	done      bool
	stopKA    chan struct{}

	// Resumable legacy streams: events are numbered and logged; after
	// detach the response writer is gone and events are only logged
	// and forwarded to followers.
	log      *streamLog
	stream   uint64
	seq      uint64
	detached bool
	closed   chan struct{} // closed when the server ends the stream early
}

func (s *httpSink) startLocked() {
	hd := s.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
	// Send the headers now: a client may wait for them before it goes on
	// (the official Go SDK's Connect waits for its legacy GET stream), and
	// the first event or keep-alive can be far off.
	_ = http.NewResponseController(s.w).Flush()
	s.started = true
	if s.log != nil && s.stream != 0 {
		// A priming event: an id to resume from, and how soon to retry.
		_, _ = io.WriteString(s.w, "id: "+eventID(s.stream, 0)+"\nretry: 500\ndata: \n\n")
		_ = http.NewResponseController(s.w).Flush()
	}
	if s.long {
		// Long streams outlive the server's write timeout.
		_ = http.NewResponseController(s.w).SetWriteDeadline(time.Time{})
		s.stopKA = make(chan struct{})
		go s.keepalive(s.stopKA)
	}
}

// keepalive writes comments until stop closes. It gets the channel as an
// argument because finish and detach clear s.stopKA under s.mu, which
// this goroutine does not hold while it waits.
func (s *httpSink) keepalive(stop <-chan struct{}) {
	t := time.NewTicker(s.keepAlive)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.mu.Lock()
			if !s.done && !s.detached {
				_, _ = io.WriteString(s.w, ":\n\n")
				_ = http.NewResponseController(s.w).Flush()
			}
			s.mu.Unlock()
		}
	}
}

// Send writes one related message as an SSE event. A client that did not
// accept SSE gets none: its response will come as plain JSON.
func (s *httpSink) Send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.sse || s.done {
		return nil
	}
	if !s.started {
		s.startLocked()
	}
	return s.event(msg)
}

func (s *httpSink) event(msg []byte) error {
	if s.log != nil && s.stream != 0 {
		s.seq++
		id := eventID(s.stream, s.seq)
		for _, f := range s.log.record(s.stream, s.seq, msg) {
			f.forward(id, msg)
		}
		if s.detached {
			return nil
		}
		return writeEvent(s.w, id, msg)
	}
	if s.detached {
		return nil
	}
	return writeEvent(s.w, "", msg)
}

// forward writes an event of another stream that this one follows.
func (s *httpSink) forward(id string, msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.done && !s.detached {
		_ = writeEvent(s.w, id, msg)
	}
}

// closeStream ends a legacy response stream early, telling the client to
// reconnect; the call goes on and its events wait in the session's log.
// It reports false where the stream cannot be resumed.
func (s *httpSink) closeStream() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil || s.stream == 0 || !s.sse || s.detached || s.done {
		return false
	}
	if !s.started {
		s.startLocked()
	}
	s.detach()
	return true
}

// detach stops all use of the response writer. Called with s.mu held.
func (s *httpSink) detach() {
	if s.detached {
		return
	}
	s.detached = true
	if s.stopKA != nil {
		close(s.stopKA)
		s.stopKA = nil
	}
	if s.closed != nil {
		close(s.closed)
	}
}

func writeEvent(w io.Writer, id string, msg []byte) error {
	if id != "" {
		if _, err := io.WriteString(w, "id: "+id+"\n"); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "event: message\ndata: "); err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n\n"); err != nil {
		return err
	}
	if rw, ok := w.(http.ResponseWriter); ok {
		return http.NewResponseController(rw).Flush()
	}
	return nil
}

func (s *httpSink) finish(id json.RawMessage, res []byte, e *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopKA != nil {
		close(s.stopKA)
		s.stopKA = nil
	}
	defer func() { s.done = true }()
	if s.detached {
		// The client reads the outcome from the session's log.
		var msg []byte
		switch {
		case e != nil:
			msg = appendError(nil, id, e)
		case res != nil:
			msg = appendResponse(nil, id, res)
		default:
			return
		}
		_ = s.event(msg)
		return
	}
	var msg []byte
	status := http.StatusOK
	switch {
	case e != nil:
		msg = appendError(nil, id, e)
		status = statusOf(e)
	case res != nil && !s.started:
		// A plain JSON response: the envelope is written around the
		// result, which is not copied (a tool list runs to tens of KB).
		head := appendResponseHead(make([]byte, 0, 64), id)
		s.writeJSON(status, len(head)+len(res)+1, head, res, []byte{'}'})
		return
	case res != nil:
		msg = appendResponse(nil, id, res)
	default:
		return // the client left; nothing more to say
	}
	if s.started {
		if s.event(msg) == nil && s.log != nil && s.stream != 0 {
			// Delivered on its own stream: nothing left to resume.
			s.log.forget(s.stream)
		}
		return
	}
	s.writeJSON(status, len(msg), msg)
}

// writeJSON sends a plain JSON response of n bytes made of parts.
func (s *httpSink) writeJSON(status, n int, parts ...[]byte) {
	s.w.Header().Set("Content-Type", "application/json")
	s.w.Header().Set("Content-Length", strconv.Itoa(n))
	s.w.WriteHeader(status)
	for _, p := range parts {
		if _, err := s.w.Write(p); err != nil {
			return
		}
	}
}

// legacy sessions over HTTP

// session finds the request's legacy session, or answers the request
// (echoing id, the JSON-RPC id when there is one) and reports false.
func (h *HTTPHandler) session(w http.ResponseWriter, r *http.Request, id json.RawMessage) (*Session, bool) {
	sid := r.Header.Values("Mcp-Session-Id")
	if len(sid) != 1 {
		writeJSONError(w, http.StatusBadRequest, id, rpcErr(CodeInvalidRequest, 0, "invalid request: Mcp-Session-Id must be given once"))
		return nil, false
	}
	h.mu.Lock()
	sess, ok := h.sessions[sid[0]]
	h.mu.Unlock()
	// A session belongs to the caller that opened it: another credential
	// that learns its id finds nothing there.
	if !ok || sess.caller != callerOf(r.Context()) {
		writeJSONError(w, http.StatusNotFound, id, rpcErr(CodeInvalidRequest, 0, "session not found"))
		return nil, false
	}
	return sess, true
}

func (h *HTTPHandler) postLegacy(w http.ResponseWriter, r *http.Request, m *Message, p *params, sid []string, okSSE bool) {
	if len(sid) == 0 {
		if m.Method != "initialize" {
			writeJSONError(w, http.StatusBadRequest, m.ID, rpcErr(CodeInvalidRequest, 0, "invalid request: send initialize first, or use the 2026-07-28 revision with _meta"))
			return
		}
		if !m.IsRequest() {
			writeJSONError(w, http.StatusBadRequest, m.ID, rpcErr(CodeInvalidRequest, 0, "invalid request: initialize must be a request"))
			return
		}
		sess, err := h.newSession(callerOf(r.Context()))
		if err != nil {
			writeBusy(w, m.ID, "too many sessions", 5)
			return
		}
		res, rerr := sess.Handle(r.Context(), m, nil)
		if rerr != nil {
			h.endSession(sess.ID)
			writeJSONError(w, statusOf(rerr), m.ID, rerr)
			return
		}
		w.Header().Set("Mcp-Session-Id", sess.ID)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(appendResponse(nil, m.ID, res))
		return
	}
	sess, ok := h.session(w, r, m.ID)
	if !ok {
		return
	}
	if hv := r.Header.Values("Mcp-Protocol-Version"); len(hv) > 0 && (len(hv) > 1 || hv[0] != sess.Version()) {
		writeJSONError(w, http.StatusBadRequest, m.ID, rpcErr(CodeInvalidRequest, 0, "invalid request: MCP-Protocol-Version does not match the session"))
		return
	}
	switch {
	case m.IsResponse():
		sess.Deliver(m)
		w.WriteHeader(http.StatusAccepted)
		return
	case m.IsNotification():
		sess.HandleNotification(m)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	sink := &httpSink{w: w, sse: okSSE, keepAlive: h.opts.KeepAlive, log: &sess.events, closed: make(chan struct{})}
	if okSSE {
		sink.stream = sess.events.newStream()
	}
	// On a legacy session a lost connection is not a cancellation (the
	// 2025-11-25 rules): the call runs on, bounded, and its outcome waits
	// in the session's log for a GET with Last-Event-ID.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), h.opts.DetachedCallTimeout)
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, rerr := sess.Handle(ctx, m, sink)
		sink.finish(m.ID, res, rerr)
	}()
	select {
	case <-done:
		cancel()
	case <-sink.closed:
		go func() { <-done; cancel() }()
	case <-r.Context().Done():
		sink.mu.Lock()
		sink.detach()
		sink.mu.Unlock()
		go func() { <-done; cancel() }()
	}
}

func (h *HTTPHandler) newSession(caller string) (*Session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	for id, s := range h.sessions {
		if now.Sub(s.IdleSince()) > h.opts.SessionIdle {
			s.Close()
			delete(h.sessions, id)
		}
	}
	if len(h.sessions) >= h.opts.MaxSessions {
		return nil, errors.New("too many sessions")
	}
	mine := 0
	for _, s := range h.sessions {
		if s.caller == caller {
			mine++
		}
	}
	if caller != "" && mine >= maxSessionsPerCaller {
		return nil, errors.New("too many sessions for this caller")
	}
	sess := h.s.NewSession(newID())
	sess.caller = caller
	h.sessions[sess.ID] = sess
	return sess, nil
}

func (h *HTTPHandler) endSession(id string) {
	h.mu.Lock()
	sess, ok := h.sessions[id]
	delete(h.sessions, id)
	h.mu.Unlock()
	if ok {
		sess.Close()
	}
}

// get opens a legacy session's stream of server-initiated messages.
func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	if len(r.Header.Values("Mcp-Session-Id")) == 0 {
		w.Header().Set("Allow", "POST")
		writeJSONError(w, http.StatusMethodNotAllowed, nil, rpcErr(CodeInvalidRequest, 0, "method not allowed"))
		return
	}
	if _, sse := acceptsJSON(r); !sse {
		writeJSONError(w, http.StatusNotAcceptable, nil, rpcErr(CodeInvalidRequest, 0, "Accept must include text/event-stream"))
		return
	}
	sess, ok := h.session(w, r, nil)
	if !ok {
		return
	}
	releaseSlot(r.Context()) // a long stream; sessions bound how many
	sink := &httpSink{w: w, sse: true, long: true, keepAlive: h.opts.KeepAlive}
	var stream, seq uint64
	resumed := false
	if lei := r.Header.Get("Last-Event-ID"); lei != "" {
		stream, seq, resumed = parseEventID(lei)
	}
	// A resumed stream carries the rest of the stream it resumes; only a
	// standalone GET carries the session's own notifications, and a
	// resumed one must neither take them over nor, when it ends, cut them
	// off from the standalone stream. The standalone stream is registered
	// before its headers go out: a client may act as soon as it sees them
	// (go-sdk's Connect returns), and a notification sent in between would
	// be lost. One sent before the headers starts the stream itself.
	if !resumed {
		sess.SetPush(sink)
	}
	sink.mu.Lock()
	if !sink.started {
		sink.startLocked()
	}
	sink.mu.Unlock()
	if resumed {
		missed := sess.events.follow(stream, seq, sink)
		defer sess.events.unfollow(stream, sink)
		for _, e := range missed {
			sink.forward(eventID(e.stream, e.seq), e.data)
		}
	}
	select {
	case <-r.Context().Done():
	case <-sess.listener.done:
	}
	if !resumed {
		sess.clearPush(sink)
	}
	sink.finish(nil, nil, nil)
}

func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	if len(r.Header.Values("Mcp-Session-Id")) == 0 {
		w.Header().Set("Allow", "POST")
		writeJSONError(w, http.StatusMethodNotAllowed, nil, rpcErr(CodeInvalidRequest, 0, "method not allowed"))
		return
	}
	sess, ok := h.session(w, r, nil)
	if !ok {
		return
	}
	h.endSession(sess.ID)
	w.WriteHeader(http.StatusNoContent)
}
