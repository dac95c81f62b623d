package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/warden-mcp/warden/statestore"
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
	caller := callerOf(r.Context())
	sess, err := h.lookupSession(r.Context(), sid[0], caller)
	switch {
	case errors.Is(err, statestore.ErrNotFound):
		// A session belongs to the caller that opened it: another
		// credential that learns its id finds nothing there.
		writeJSONError(w, id, rpcErr(CodeInvalidRequest, KindNotFound, "session not found"))
		return nil, false
	case err != nil:
		logStoreFailure(r.Context(), h.log, "session state unavailable", err)
		writeBusy(w, id, "session state unavailable", 2)
		return nil, false
	}
	return sess, true
}

// lookupSession finds a session of caller: the local copy, checked
// against the store at most once per sessionRecheck, or one made from the
// record another replica wrote.
func (h *HTTPHandler) lookupSession(ctx context.Context, id, caller string) (*Session, error) {
	h.mu.Lock()
	sess, ok := h.sessions[id]
	h.mu.Unlock()
	if ok && sess.caller != caller {
		return nil, statestore.ErrNotFound
	}
	now := time.Now()
	if ok {
		sess.mu.Lock()
		recheck := sess.shared != nil && now.Sub(sess.checked) > sessionRecheck
		save := sess.shared != nil && now.Sub(sess.savedAt) > h.opts.SessionIdle/4
		sess.mu.Unlock()
		if recheck {
			sctx, cancel := context.WithTimeout(ctx, stateTimeout)
			rec, err := h.s.state.GetState(sctx, "session", id, now)
			cancel()
			if errors.Is(err, statestore.ErrNotFound) {
				h.dropLocal(id, sess) // deleted, or expired, on another replica
				return nil, err
			}
			if err != nil {
				return nil, err
			}
			sess.mu.Lock()
			sess.checked, sess.recVersion = now, max(sess.recVersion, rec.Version)
			sess.mu.Unlock()
		}
		if save {
			go sess.persist() // pushes the record's expiry back
		}
		return sess, nil
	}
	if len(id) > 64 {
		return nil, statestore.ErrNotFound
	}
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	rec, err := h.s.state.GetState(sctx, "session", id, now)
	cancel()
	if err != nil {
		return nil, err
	}
	if rec.Owner != caller {
		return nil, statestore.ErrNotFound
	}
	sess, err = h.sessionFromRecord(rec)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if other, ok := h.sessions[id]; ok { // another request made it first
		h.mu.Unlock()
		sess.Close()
		return other, nil
	}
	h.sessions[id] = sess
	h.mu.Unlock()
	return sess, nil
}

// dropLocal ends this replica's copy of a session gone from the store.
func (h *HTTPHandler) dropLocal(id string, sess *Session) {
	h.mu.Lock()
	if h.sessions[id] == sess {
		delete(h.sessions, id)
	}
	h.mu.Unlock()
	sess.end(errClientEnded)
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
		if !sess.Deliver(m) && sess.shared != nil {
			// The request it answers waits on another replica.
			sess.shared.forwardAnswer(m, h.s.opts.StateTTL)
		}
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
		sink.reqID, sink.owner = m.ID, h.s.instance
	}
	// On a legacy session a lost connection is not a cancellation (the
	// 2025-11-25 rules): the call runs on, bounded, and its outcome waits
	// in the session's log for a GET with Last-Event-ID. The call's
	// admission is settled once the outcome is delivered or kept.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), h.opts.DetachedCallTimeout)
	var ledger *callLedger
	if len(h.s.opts.Middleware) > 0 {
		ctx, ledger = withLedger(ctx)
	}
	done := make(chan struct{})
	h.calls.Add(1)
	go func() {
		defer h.calls.Done()
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
	sess, err := h.newSession(r.Context(), callerOf(r.Context()))
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
	// Every replica can serve the session from here on.
	if err := sess.shared.save(sess); err != nil {
		h.log.Error("session not recorded; initialize refused", "cause", err.Error())
		h.endSession(sess.ID, errClientEnded)
		writeBusy(w, m.ID, "session state unavailable", 2)
		return
	}
	w.Header().Set("Mcp-Session-Id", sess.ID)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(appendResponse(nil, m.ID, res))
}

// newSession opens a session of caller, within the caps counted across
// every replica sharing the store.
func (h *HTTPHandler) newSession(ctx context.Context, caller string) (*Session, error) {
	now := time.Now()
	h.mu.Lock()
	for id, s := range h.sessions {
		if now.Sub(s.IdleSince()) > h.opts.SessionIdle {
			s.Close() // this copy; the record expires by itself
			delete(h.sessions, id)
		}
	}
	h.mu.Unlock()
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	total, mine, err := h.s.state.CountState(sctx, "session", caller, now)
	cancel()
	if err != nil {
		return nil, err
	}
	if total >= h.opts.MaxSessions {
		return nil, errors.New("too many sessions")
	}
	if caller != "" && mine >= h.opts.MaxSessionsPerCaller {
		return nil, errors.New("too many sessions for this caller")
	}
	sess := h.s.NewSession(newID())
	sess.caller = caller
	sess.shared = newSharedSession(h.s.state, h.log, sess.ID, caller, h.opts.SessionIdle)
	sess.events.shared = sess.shared
	sess.events.limits(h.opts.MaxKeptResultBytes, h.opts.DetachedCallTimeout)
	h.mu.Lock()
	h.sessions[sess.ID] = sess
	h.mu.Unlock()
	return sess, nil
}

// endSession ends a session with cause, which its calls' admission sees,
// and removes it from the store: every replica forgets it within
// sessionRecheck.
func (h *HTTPHandler) endSession(id string, cause error) {
	h.mu.Lock()
	sess, ok := h.sessions[id]
	delete(h.sessions, id)
	h.mu.Unlock()
	if ok {
		sess.end(cause)
	}
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	if err := h.s.state.DeleteState(ctx, "session", id); err != nil {
		h.log.Warn("session record not deleted; it expires when idle", "cause", err.Error())
	}
	for _, ch := range []string{"answers:" + id, "cancels:" + id} {
		_ = h.s.state.DeleteMessages(ctx, ch)
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
	if resumed && !sess.events.knows(stream) && sess.shared != nil {
		// The stream was sent by another replica (or by this one
		// before a restart): what it kept is in the store.
		sink.open()
		sess.shared.followRemote(r.Context(), sink, stream, seq, h.opts.DetachedCallTimeout, h.s.replicaGone)
		sink.finish(nil, nil, nil)
		return
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
