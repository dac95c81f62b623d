package mcp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warden-mcp/warden/internal/httplimit"
)

// The streamable HTTP transport, by concern:
//
//	http.go         options, routing, health checks, Origin and Host, the
//	                in-flight cap, and the table of statuses per error kind
//	http_post.go    POST: body and media types, era routing, the modern
//	                validation order
//	headers.go      the mirrored Mcp-Method, Mcp-Name and Mcp-Param-*
//	http_sink.go    one request's response: plain JSON or an SSE stream,
//	                a small state machine
//	http_legacy.go  legacy sessions: their POSTs, GET streams and DELETE
//	resume.go       a legacy session's log of stream events, for resuming

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
	// LoopbackPort, when set, is the listen address's port: the Host
	// header must then name localhost, 127.0.0.1 or [::1] on it (DNS
	// rebinding protection for a server bound to loopback).
	LoopbackPort string
	// MaxInFlight caps requests served at once; more answer 503. Default
	// 256. A request takes its slot only once it is authenticated and its
	// body has been read, so stalled bodies hold no slot.
	MaxInFlight int
	// MaxInFlightPerCaller caps one authenticated caller's requests at
	// once, from before its body is read to its end, so that a few
	// credentials cannot take every slot. Default MaxInFlight/8, at least
	// 1. Without authentication there are no callers to tell apart, and
	// only MaxInFlight applies.
	MaxInFlightPerCaller int
	// BodyReadTimeout bounds the reading of a request body; a client that
	// sends it slower is answered 408. Default 10 s.
	BodyReadTimeout time.Duration
	// MaxSessions caps legacy sessions. Default 1000.
	MaxSessions int
	// MaxSessionsPerCaller caps one authenticated caller's legacy
	// sessions. Default MaxSessions/8, at most 32 and at least 1.
	MaxSessionsPerCaller int
	// SessionIdle ends a legacy session unused this long. Default 30
	// minutes.
	SessionIdle time.Duration
	// MaxGETStreams caps the legacy sessions' GET streams open at once,
	// server-wide; more answer 503. Default 1024.
	MaxGETStreams int
	// MaxGETStreamsPerSession caps one legacy session's GET streams: its
	// stream of server-initiated messages and the call streams it
	// resumes. Default 8.
	MaxGETStreamsPerSession int
	// MaxGETStreamsPerCaller caps one authenticated caller's GET streams
	// across its sessions. Default 64. Without authentication there are
	// no callers to tell apart, and only the other two caps apply.
	MaxGETStreamsPerCaller int
	// KeepAlive is the comment interval on long SSE streams. Default 15 s.
	KeepAlive time.Duration
	// DetachedCallTimeout bounds a legacy call that runs on after its
	// stream closed, waiting to be resumed; its outcome is then kept as
	// long again for the client to collect. Default 10 minutes.
	DetachedCallTimeout time.Duration
	// MaxKeptResultBytes caps the call outcomes one legacy session keeps
	// for its client to collect by resuming a stream it lost: a single
	// outcome may use all of it. An outcome that does not fit is replaced
	// by a result_too_large error, and CallFault reports the call as
	// failed through the server. Default 8 MiB.
	MaxKeptResultBytes int
	// Extra serves other paths (the /.well-known/ documents, say).
	Extra map[string]http.Handler
	// Trees serves a path and every path under it ("/console" serves
	// "/console" and "/console/..."), after the Host check; the handler
	// judges the Origin itself. Nil: none.
	Trees map[string]http.Handler
	// Wrap, if set, wraps the protocol endpoint (authentication, rate
	// limits). It runs after the Origin and Host checks.
	Wrap func(http.Handler) http.Handler
	// Logger receives one line per request; nil uses the server's.
	Logger *slog.Logger
	// Ready, if set, is asked by the readiness check: an error (a store
	// or key set that cannot be evaluated) answers 503.
	Ready func(ctx context.Context) error
	// LivenessPath and ReadinessPath are where the health checks answer
	// on this handler. Zero: /healthz and /readyz. "-" serves none, so
	// that every path but the endpoint and Extra answers 404; the checks
	// are still available as Liveness and Readiness to mount elsewhere
	// (a metrics listener).
	LivenessPath, ReadinessPath string
	// Observer, if set, is told of every request of the protocol endpoint
	// when it ends (metrics). Nil: nothing is observed.
	Observer Observer
}

// Observer receives a record of each request of the protocol endpoint.
// It is called on the request's goroutine, with the request's context
// (its trace span, its correlation id), and must be fast and safe for
// concurrent use.
type Observer interface {
	Request(ctx context.Context, r RequestStats)
}

// RequestStats describe one served request.
type RequestStats struct {
	// Method is the JSON-RPC method of a POST, "" when its body was
	// refused before it was parsed, and the HTTP verb (GET, DELETE)
	// otherwise. It comes from the client: bound its values before using
	// it as a metric label.
	Method string
	// Era is "modern", "legacy", or "" when the request was refused
	// before its era was known.
	Era string
	// Status is the HTTP status answered (200 for a stream).
	Status   int
	Duration time.Duration
	// CorrelationID is the request's correlation id.
	CorrelationID string
}

// HTTPStats is what the handler holds open now.
type HTTPStats struct {
	InFlight int // requests holding an in-flight slot
	Sessions int // legacy sessions
	Streams  int // legacy GET streams open
}

// HTTPHandler serves a Server over streamable HTTP: the 2026-07-28
// stateless revision and legacy sessions on one endpoint, with health
// checks beside it.
type HTTPHandler struct {
	s        *Server
	opts     HTTPOptions
	log      *slog.Logger
	sem      chan struct{}
	shares   httplimit.CallerShares
	mcp      http.Handler
	draining atomic.Bool
	streams  streamRoom

	mu       sync.Mutex
	sessions map[string]*Session
	// calls counts the legacy calls running on after their stream
	// closed, which Wait lets finish.
	calls sync.WaitGroup
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
	defaultInt(&o.MaxInFlight, 256)
	defaultInt(&o.MaxInFlightPerCaller, max(1, o.MaxInFlight/8))
	defaultInt(&o.MaxSessions, 1000)
	defaultInt(&o.MaxSessionsPerCaller, min(maxSessionsPerCaller, max(1, o.MaxSessions/8)))
	if o.BodyReadTimeout <= 0 {
		o.BodyReadTimeout = 10 * time.Second
	}
	defaultInt(&o.MaxGETStreams, 1024)
	defaultInt(&o.MaxGETStreamsPerSession, 8)
	defaultInt(&o.MaxGETStreamsPerCaller, 64)
	defaultInt(&o.MaxKeptResultBytes, defaultKeptBytes)
	if o.SessionIdle <= 0 {
		o.SessionIdle = 30 * time.Minute
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.DetachedCallTimeout <= 0 {
		o.DetachedCallTimeout = 10 * time.Minute
	}
	if o.LivenessPath == "" {
		o.LivenessPath = "/healthz"
	}
	if o.ReadinessPath == "" {
		o.ReadinessPath = "/readyz"
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

func defaultInt(v *int, def int) {
	if *v <= 0 {
		*v = def
	}
}

// Drain marks the handler as shutting down: /readyz fails, open listen
// streams and legacy sessions' GET streams end, so http.Server.Shutdown
// is not held up by them, while calls in flight run on to their end.
func (h *HTTPHandler) Drain() {
	h.draining.Store(true)
	// Listen streams end; the server stays alive to its replicas until
	// Close, while calls in flight finish.
	h.s.endListeners()
	h.mu.Lock()
	for _, sess := range h.sessions {
		sess.endStreams()
	}
	h.mu.Unlock()
}

// Wait waits, until ctx ends, for the legacy calls that run on after their
// client's stream closed: their outcomes are then kept (in the state
// store too) for the client to collect from any replica. Call it after
// the server has shut down and before Close.
func (h *HTTPHandler) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { h.calls.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends this replica's copy of every legacy session, cancelling what
// still runs in them; the sessions' records stay in the state store for
// other replicas, or this one after a restart. It then retires the server
// (Server.Retire). Call it after the server has shut down.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	for id, sess := range h.sessions {
		sess.Close()
		delete(h.sessions, id)
	}
	h.mu.Unlock()
	h.s.Retire()
}

type releaseKey struct{}

// releaseSlot gives back the request's in-flight slot early.
func releaseSlot(ctx context.Context) {
	if r, ok := ctx.Value(releaseKey{}).(*slotRelease); ok {
		r.release()
	}
}

var correlationRE = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

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

// requestNote is where the transport notes, for the observer, what a
// request turned out to be.
type requestNote struct{ method, era string }

type noteKey struct{}

// noteRequest records the method and era of the request being served.
func noteRequest(ctx context.Context, method, era string) {
	if n, ok := ctx.Value(noteKey{}).(*requestNote); ok {
		n.method, n.era = method, era
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
	var note *requestNote
	if h.opts.Observer != nil && r.URL.Path == h.opts.Path {
		note = &requestNote{method: r.Method}
		if r.Method == http.MethodPost {
			note.method = ""
		}
		ctx = context.WithValue(ctx, noteKey{}, note)
	}
	r = r.WithContext(ctx)
	sw := &statusWriter{ResponseWriter: w}
	start := time.Now()
	defer func() {
		d := time.Since(start)
		h.log.LogAttrs(ctx, slog.LevelInfo, "http request",
			slog.String("correlation_id", cid), slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.Int("status", sw.status),
			slog.String("mcp_method", r.Header.Get("Mcp-Method")),
			slog.Duration("duration", d))
		if note != nil {
			h.opts.Observer.Request(ctx, RequestStats{Method: note.method, Era: note.era, Status: sw.status, Duration: d, CorrelationID: CorrelationID(ctx)})
		}
	}()
	switch r.URL.Path {
	case h.opts.Path:
		if !h.checkHostOrigin(sw, r) {
			return
		}
		// Authentication (Wrap) runs first, from the headers alone; the
		// caller's share and the in-flight slot are taken behind it, in
		// serveMCP.
		h.mcp.ServeHTTP(sw, r)
	case h.opts.LivenessPath:
		h.live(sw, r)
	case h.opts.ReadinessPath:
		h.ready(sw, r)
	default:
		if x, ok := h.tree(r.URL.Path); ok {
			if !h.checkHost(sw, r) {
				return
			}
			x.ServeHTTP(sw, r)
			return
		}
		if x, ok := h.opts.Extra[r.URL.Path]; ok {
			// The other paths (public documents, the local authorization
			// server, uploads) get the Host check too; an Origin is theirs
			// to judge, since browsers fetch metadata across origins.
			if !h.checkHost(sw, r) {
				return
			}
			x.ServeHTTP(sw, r)
			return
		}
		http.NotFound(sw, r)
	}
}

// tree finds the Trees handler whose path is p or a parent of it.
func (h *HTTPHandler) tree(p string) (http.Handler, bool) {
	for root, x := range h.opts.Trees {
		if p == root || strings.HasPrefix(p, root+"/") {
			return x, true
		}
	}
	return nil, false
}

// Liveness is the liveness check: 200 while the process serves.
func (h *HTTPHandler) Liveness() http.Handler { return http.HandlerFunc(h.live) }

// Readiness is the readiness check: 503 while draining or while
// HTTPOptions.Ready fails (the store does not accept writes, the key set
// cannot be evaluated), 200 otherwise.
func (h *HTTPHandler) Readiness() http.Handler { return http.HandlerFunc(h.ready) }

func (h *HTTPHandler) live(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, "ok\n")
}

func (h *HTTPHandler) ready(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if h.draining.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "draining\n")
		return
	}
	if h.opts.Ready != nil {
		rctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		err := h.opts.Ready(rctx)
		cancel()
		if err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "not ready\n")
			return
		}
	}
	_, _ = io.WriteString(w, "ready\n")
}

// Stats reports what the handler holds open now.
func (h *HTTPHandler) Stats() HTTPStats {
	h.mu.Lock()
	sessions := len(h.sessions)
	h.mu.Unlock()
	h.streams.mu.Lock()
	streams := h.streams.total
	h.streams.mu.Unlock()
	return HTTPStats{InFlight: len(h.sem), Sessions: sessions, Streams: streams}
}

func isLoopbackName(host string) bool {
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1", "[::1]":
		return true
	}
	return false
}

// checkHost refuses, on a loopback listener, a Host other than a loopback
// name on the listener's own port: a page that rebinds its DNS name to
// 127.0.0.1 reaches no path of a local server.
func (h *HTTPHandler) checkHost(w http.ResponseWriter, r *http.Request) bool {
	if h.opts.LoopbackPort == "" {
		return true
	}
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil || port != h.opts.LoopbackPort || !isLoopbackName(host) {
		writeJSONError(w, nil, &Error{Code: CodeInvalidRequest, Kind: KindForbidden, Message: "host not allowed", Data: map[string]string{"code": "host_not_allowed"}})
		return false
	}
	return true
}

func (h *HTTPHandler) checkHostOrigin(w http.ResponseWriter, r *http.Request) bool {
	if !h.checkHost(w, r) {
		return false
	}
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return true
	}
	if len(origins) == 1 && h.originAllowed(origins[0]) {
		return true
	}
	writeJSONError(w, nil, &Error{Code: CodeInvalidRequest, Kind: KindForbidden, Message: "origin not allowed", Data: map[string]string{"code": "origin_not_allowed"}})
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

// serveMCP serves an authenticated request of the protocol endpoint. The
// caller's share of the in-flight cap is taken first and bounds what one
// credential may have open, stalled bodies included; the body is read
// under BodyReadTimeout; only then is a server-wide slot taken, so slow
// or stalled clients hold no slot.
func (h *HTTPHandler) serveMCP(w http.ResponseWriter, r *http.Request) {
	var serve func(http.ResponseWriter, *http.Request)
	switch r.Method {
	case http.MethodPost:
	case http.MethodGet:
		serve = h.get
	case http.MethodDelete:
		serve = h.delete
	default:
		methodNotAllowed(w)
		return
	}
	caller := callerOf(r.Context())
	if !h.shares.Take(caller, h.opts.MaxInFlightPerCaller) {
		// The body is left unread: closing the connection keeps net/http
		// from waiting for it before it answers.
		w.Header().Set("Connection", "close")
		writeBusy(w, nil, "too many requests in flight for this caller", 1)
		return
	}
	rel := &slotRelease{h: h, caller: caller}
	defer rel.release()
	var body []byte
	okSSE := false
	if r.Method == http.MethodPost {
		var ok bool
		if okSSE, ok = checkPostHeaders(w, r); !ok {
			return
		}
		if body, ok = h.readPostBody(w, r); !ok {
			return
		}
	}
	select {
	case h.sem <- struct{}{}:
		rel.slot = true
	default:
		writeBusy(w, nil, "server busy", 1)
		return
	}
	// A request that turns into a long stream (a legacy GET stream,
	// subscriptions/listen) gives its slot and share back: the cap
	// bounds work in flight, and long streams have caps of their own.
	r = r.WithContext(context.WithValue(r.Context(), releaseKey{}, rel))
	if serve == nil {
		h.post(w, r, body, okSSE)
		return
	}
	serve(w, r)
}

// slotRelease gives back a request's in-flight slot and its caller's
// share, once.
type slotRelease struct {
	h      *HTTPHandler
	caller string
	slot   bool
	done   atomic.Bool
}

func (r *slotRelease) release() {
	if r.done.Swap(true) {
		return
	}
	if r.slot {
		<-r.h.sem
	}
	r.h.shares.Give(r.caller)
}

func methodNotAllowed(w http.ResponseWriter) {
	w.Header().Set("Allow", "POST")
	writeJSONError(w, nil, rpcErr(CodeInvalidRequest, KindMethodNotAllowed, "method not allowed"))
}

// httpStatuses is where protocol errors meet HTTP: the status each kind
// of error is answered with.
var httpStatuses = [numKinds]int{
	KindAnswer:               http.StatusOK,
	KindInvalid:              http.StatusBadRequest,
	KindNotFound:             http.StatusNotFound,
	KindInternal:             http.StatusInternalServerError,
	KindUnavailable:          http.StatusServiceUnavailable,
	KindForbidden:            http.StatusForbidden,
	KindMethodNotAllowed:     http.StatusMethodNotAllowed,
	KindNotAcceptable:        http.StatusNotAcceptable,
	KindTooLarge:             http.StatusRequestEntityTooLarge,
	KindUnsupportedMediaType: http.StatusUnsupportedMediaType,
	KindTimeout:              http.StatusRequestTimeout,
}

// httpStatus returns the status e is answered with.
func httpStatus(e *Error) int {
	if int(e.Kind) < len(httpStatuses) {
		return httpStatuses[e.Kind]
	}
	return http.StatusInternalServerError
}

// writeJSONError answers the request with e, echoing id.
func writeJSONError(w http.ResponseWriter, id json.RawMessage, e *Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpStatus(e))
	_, _ = w.Write(appendError(nil, id, e))
}

// writeBusy answers 503 to a request a retry will serve: Retry-After,
// and the same hint as retryAfterSeconds in the error's data.
func writeBusy(w http.ResponseWriter, id json.RawMessage, msg string, secs int) {
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	e := rpcErr(CodeInternalError, KindUnavailable, msg)
	e.Data = map[string]int{"retryAfterSeconds": secs}
	writeJSONError(w, id, e)
}
