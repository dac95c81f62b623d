package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"
)

// Legacy sessions over HTTP: initialize opens one and names it in
// Mcp-Session-Id; its POSTs are served on it, GET opens its stream of
// server-initiated messages or resumes a call's stream (Last-Event-ID),
// and DELETE ends it.

// maxSessionsPerCaller is the most the default of
// HTTPOptions.MaxSessionsPerCaller may be, so one caller cannot take
// every session of the server. Without authentication there are no
// callers to tell apart, and only the server-wide cap applies.
const maxSessionsPerCaller = 32

// session finds the request's legacy session, or answers the request
// (echoing id, the JSON-RPC id when there is one) and reports false.
func (h *HTTPHandler) session(w http.ResponseWriter, r *http.Request, id json.RawMessage) (*Session, bool) {
	sid := r.Header.Values("Mcp-Session-Id")
	if len(sid) != 1 {
		writeJSONError(w, id, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: Mcp-Session-Id must be given once"))
		return nil, false
	}
	h.mu.Lock()
	sess, ok := h.sessions[sid[0]]
	h.mu.Unlock()
	// A session belongs to the caller that opened it: another credential
	// that learns its id finds nothing there.
	if !ok || sess.caller != callerOf(r.Context()) {
		writeJSONError(w, id, rpcErr(CodeInvalidRequest, KindNotFound, "session not found"))
		return nil, false
	}
	return sess, true
}

func (h *HTTPHandler) postLegacy(w http.ResponseWriter, r *http.Request, m *Message, p *params, sid []string, okSSE bool) {
	if len(sid) == 0 {
		h.initialize(w, r, m)
		return
	}
	sess, ok := h.session(w, r, m.ID)
	if !ok {
		return
	}
	if hv := r.Header.Values("Mcp-Protocol-Version"); len(hv) > 0 && (len(hv) > 1 || hv[0] != sess.Version()) {
		writeJSONError(w, m.ID, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: MCP-Protocol-Version does not match the session"))
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
	sink := newSink(w, okSSE, h.opts.KeepAlive)
	sink.gone = make(chan struct{})
	if okSSE {
		sink.log, sink.stream = &sess.events, sess.events.newStream()
	}
	// On a legacy session a lost connection is not a cancellation (the
	// 2025-11-25 rules): the call runs on, bounded, and its outcome waits
	// in the session's log for a GET with Last-Event-ID. The call's
	// admission is settled once the outcome is delivered or kept.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), h.opts.DetachedCallTimeout)
	var ledger *callLedger
	if h.s.opts.Admit != nil {
		ctx, ledger = withLedger(ctx)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cancel()
		res, rerr := sess.Handle(ctx, m, sink)
		fault := sink.finish(m.ID, res, rerr)
		if ledger != nil {
			ledger.settle(fault)
		}
	}()
	select {
	case <-done:
	case <-sink.gone:
		if sink.finished() {
			<-done // answered: the call settles at once
		}
		// Otherwise the stream closed for the client to resume it.
	case <-r.Context().Done():
		sink.abandon()
	}
}

// initialize opens a legacy session.
func (h *HTTPHandler) initialize(w http.ResponseWriter, r *http.Request, m *Message) {
	if m.Method != "initialize" {
		writeJSONError(w, m.ID, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: send initialize first, or use the 2026-07-28 revision with _meta"))
		return
	}
	if !m.IsRequest() {
		writeJSONError(w, m.ID, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: initialize must be a request"))
		return
	}
	sess, err := h.newSession(callerOf(r.Context()))
	if err != nil {
		writeBusy(w, m.ID, "too many sessions", 5)
		return
	}
	res, rerr := sess.Handle(r.Context(), m, nil)
	if rerr != nil {
		h.endSession(sess.ID, errClientEnded)
		writeJSONError(w, m.ID, rerr)
		return
	}
	w.Header().Set("Mcp-Session-Id", sess.ID)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(appendResponse(nil, m.ID, res))
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
	if caller != "" && mine >= h.opts.MaxSessionsPerCaller {
		return nil, errors.New("too many sessions for this caller")
	}
	sess := h.s.NewSession(newID())
	sess.caller = caller
	sess.events.limits(h.opts.MaxKeptResultBytes, h.opts.DetachedCallTimeout)
	h.sessions[sess.ID] = sess
	return sess, nil
}

// endSession ends a session with cause, which its calls' admission sees.
func (h *HTTPHandler) endSession(id string, cause error) {
	h.mu.Lock()
	sess, ok := h.sessions[id]
	delete(h.sessions, id)
	h.mu.Unlock()
	if ok {
		sess.end(cause)
	}
}

// get opens a legacy session's stream of server-initiated messages, or
// resumes a call's stream from Last-Event-ID.
func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	if len(r.Header.Values("Mcp-Session-Id")) == 0 {
		methodNotAllowed(w)
		return
	}
	if _, sse := acceptsJSON(r); !sse {
		writeJSONError(w, nil, rpcErr(CodeInvalidRequest, KindNotAcceptable, "Accept must include text/event-stream"))
		return
	}
	sess, ok := h.session(w, r, nil)
	if !ok {
		return
	}
	caller := callerOf(r.Context())
	if !h.streams.take(&h.opts, sess.ID, caller) {
		writeBusy(w, nil, "too many open streams", 5)
		return
	}
	defer h.streams.give(sess.ID, caller)
	releaseSlot(r.Context()) // a long stream; the stream caps bound how many
	sink := newSink(w, true, h.opts.KeepAlive)
	sink.long = true
	sink.gone = make(chan struct{})
	var stream, seq uint64
	resumed := false
	if lei := r.Header.Get("Last-Event-ID"); lei != "" {
		stream, seq, resumed = parseEventID(lei)
	}
	if resumed {
		// A resumed stream carries the rest of the stream it resumes;
		// it must neither take over the session's own notifications nor,
		// when it ends, cut them off from the standalone stream.
		if sess.events.resume(sink, stream, seq) {
			defer sess.events.unfollow(stream, sink)
		}
	} else {
		// The standalone stream is registered before its headers go out:
		// a client may act as soon as it sees them (go-sdk's Connect
		// returns), and a notification sent in between would be lost. One
		// sent before the headers starts the stream itself.
		sess.SetPush(sink)
		defer sess.clearPush(sink)
		sink.open()
	}
	select {
	case <-r.Context().Done():
	case <-sess.listener.done:
	case <-sink.gone: // the stream broke, or its call's outcome was sent
	}
	sink.finish(nil, nil, nil)
}

func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	if len(r.Header.Values("Mcp-Session-Id")) == 0 {
		methodNotAllowed(w)
		return
	}
	sess, ok := h.session(w, r, nil)
	if !ok {
		return
	}
	h.endSession(sess.ID, errClientEnded)
	w.WriteHeader(http.StatusNoContent)
}

// streamRoom counts the legacy GET streams open: in all, per session and
// per caller.
type streamRoom struct {
	mu        sync.Mutex
	total     int
	perSess   map[string]int
	perCaller map[string]int
}

// take makes room for one more stream, or reports false past a cap.
func (r *streamRoom) take(o *HTTPOptions, sess, caller string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.total >= o.MaxGETStreams || r.perSess[sess] >= o.MaxGETStreamsPerSession ||
		(caller != "" && r.perCaller[caller] >= o.MaxGETStreamsPerCaller) {
		return false
	}
	if r.perSess == nil {
		r.perSess, r.perCaller = map[string]int{}, map[string]int{}
	}
	r.total++
	r.perSess[sess]++
	if caller != "" {
		r.perCaller[caller]++
	}
	return true
}

func (r *streamRoom) give(sess, caller string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total--
	if r.perSess[sess]--; r.perSess[sess] <= 0 {
		delete(r.perSess, sess)
	}
	if caller != "" {
		if r.perCaller[caller]--; r.perCaller[caller] <= 0 {
			delete(r.perCaller, caller)
		}
	}
}
