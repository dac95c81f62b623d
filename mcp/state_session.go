package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/warden-mcp/warden/statestore"
)

// Legacy sessions over HTTP live in the server's state store (Options.State)
// as well as in the memory of the replicas that serve them, so that any
// replica serves any request of a session:
//
//   - the session's record (negotiated version, what the client declared,
//     log level, subscriptions, the key tools know it by) is written when
//     initialize succeeds and when any of it changes, and its expiry is
//     pushed back as the session is used; a replica that meets an unknown
//     Mcp-Session-Id reads the record and serves from a local copy, which
//     it checks against the store at most once per sessionRecheck (a
//     session deleted on one replica is gone everywhere within that);
//   - a client's answer to a server-to-client request (an elicitation)
//     that lands on a replica where nothing waits for it is appended to
//     the session's answers channel, which the waiting replica reads every
//     answerPoll;
//   - notifications/cancelled for a call running elsewhere goes to the
//     session's cancels channel, which a call running longer than
//     cancelPoll reads at that interval;
//   - a response stream that loses its client writes what follows (its
//     related events and its outcome) to the stream's events channel, so
//     that a GET with Last-Event-ID on any replica - after this one has
//     stopped, too - receives it.
//
// Nothing here touches the store on the way of a request whose client
// stays connected, beyond the session's record being read once per
// sessionRecheck.

// Cross-replica intervals: the latency they add is at most one interval.
const (
	sessionRecheck = time.Second
	answerPoll     = 100 * time.Millisecond
	cancelPoll     = time.Second
	eventsPoll     = 250 * time.Millisecond
)

// sessionDoc is a legacy session's record.
type sessionDoc struct {
	Key      string   `json:"key"`
	Version  string   `json:"version"`
	Caps     capsDoc  `json:"caps"`
	Client   string   `json:"client,omitempty"`
	LogLevel string   `json:"logLevel,omitempty"`
	Ready    bool     `json:"ready,omitempty"`
	URIs     []string `json:"uris,omitempty"`
}

// sharedSession links a local Session to its record and channels.
type sharedSession struct {
	st      statestore.Store
	log     *slog.Logger
	id      string
	caller  string
	idle    time.Duration
	answers string // channel names
	cancels string
}

func newSharedSession(st statestore.Store, log *slog.Logger, id, caller string, idle time.Duration) *sharedSession {
	return &sharedSession{st: st, log: log, id: id, caller: caller, idle: idle,
		answers: "answers:" + id, cancels: "cancels:" + id}
}

func (sh *sharedSession) eventsChannel(stream uint64) string {
	return "events:" + sh.id + ":" + strconv.FormatUint(stream, 10)
}

// doc reads the session's state for its record.
func (sess *Session) doc() sessionDoc {
	sess.mu.Lock()
	d := sessionDoc{Key: sess.key, Version: sess.version, Caps: sess.caps.doc(), Client: sess.client, LogLevel: sess.logLevel, Ready: sess.ready}
	sess.mu.Unlock()
	l := sess.listener
	l.mu.Lock()
	for u := range l.uris {
		d.URIs = append(d.URIs, u)
	}
	l.mu.Unlock()
	return d
}

// save writes the session's record: created when version is 0, replaced
// otherwise (the last writer wins; each writer writes the whole state it
// holds).
func (sh *sharedSession) save(sess *Session) error {
	d := sess.doc()
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	now := time.Now()
	sess.mu.Lock()
	rv := sess.recVersion
	sess.mu.Unlock()
	for attempt := 0; attempt < 4; attempt++ {
		rec := statestore.Record{Kind: "session", ID: sh.id, Owner: sh.caller, Data: b, Version: rv, Expires: now.Add(sh.idle)}
		v, err := sh.st.PutState(ctx, rec)
		if err == nil {
			sess.mu.Lock()
			sess.recVersion, sess.savedAt = v, now
			sess.mu.Unlock()
			return nil
		}
		if !errors.Is(err, statestore.ErrConflict) || rv == 0 {
			return err
		}
		cur, gerr := sh.st.GetState(ctx, "session", sh.id, now)
		if gerr != nil {
			return gerr
		}
		rv = cur.Version
	}
	return statestore.ErrConflict
}

// persist saves the session after a change, logging a failure: the local
// copy goes on, and other replicas see the old state until the next save.
func (sess *Session) persist() {
	if sess.shared == nil {
		return
	}
	if err := sess.shared.save(sess); err != nil {
		sess.shared.log.Warn("session state not saved", "cause", err.Error())
	}
}

// sessionFromRecord rebuilds a local copy of a session another replica
// opened.
func (h *HTTPHandler) sessionFromRecord(rec statestore.Record) (*Session, error) {
	var d sessionDoc
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return nil, err
	}
	sess := h.s.NewSession(rec.ID)
	sess.key = d.Key
	sess.version, sess.caps, sess.client, sess.logLevel, sess.ready = d.Version, d.Caps.caps(), d.Client, d.LogLevel, d.Ready
	sess.caller = rec.Owner
	sess.recVersion, sess.savedAt, sess.checked = rec.Version, time.Now(), time.Now()
	for _, u := range d.URIs {
		sess.listener.uris[u] = true
	}
	sess.shared = newSharedSession(h.s.state, h.log, rec.ID, rec.Owner, h.opts.SessionIdle)
	sess.events.shared = sess.shared
	sess.events.limits(h.opts.MaxKeptResultBytes, h.opts.DetachedCallTimeout)
	return sess, nil
}

// answerDoc is a client's response to a server-to-client request, as it
// travels between replicas.
type answerDoc struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *WireError      `json:"error,omitempty"`
}

// forwardAnswer hands a response that nothing here waits for to the
// replica that sent the request.
func (sh *sharedSession) forwardAnswer(m *Message, ttl time.Duration) {
	b, _ := json.Marshal(answerDoc{m.ID, m.Result, m.Error})
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	if _, err := sh.st.AppendMessage(ctx, sh.answers, b, time.Now().Add(ttl)); err != nil {
		sh.log.Warn("answer not forwarded to the replica waiting for it", "cause", err.Error())
	}
}

// findAnswer looks for the response to request id in the answers channel.
func (sh *sharedSession) findAnswer(ctx context.Context, id string) (*Message, bool) {
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	msgs, err := sh.st.Messages(ctx, sh.answers, 0, time.Now(), statestore.MaxMessages)
	if err != nil {
		return nil, false
	}
	want := strconv.Quote(id)
	for _, msg := range msgs {
		var a answerDoc
		if json.Unmarshal(msg.Data, &a) == nil && string(a.ID) == want {
			return &Message{ID: a.ID, Result: a.Result, Error: a.Error}, true
		}
	}
	return nil, false
}

// forwardCancel hands notifications/cancelled for a call this replica
// does not run to the one that does.
func (sh *sharedSession) forwardCancel(requestID json.RawMessage) {
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	if _, err := sh.st.AppendMessage(ctx, sh.cancels, requestID, time.Now().Add(time.Minute)); err != nil {
		sh.log.Warn("cancellation not forwarded", "cause", err.Error())
	}
}

// watchCancels cancels calls of this replica whose cancellation another
// replica forwarded: it reads the session's cancels channel every
// cancelPoll while calls run here, and ends once none has for two
// intervals (the next call starts it again).
func (sess *Session) watchCancels() {
	sh := sess.shared
	t := time.NewTicker(cancelPoll)
	defer t.Stop()
	// Cancellations already in the channel are for calls that have
	// ended (a client may reuse their ids).
	var after int64
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	if old, err := sh.st.Messages(ctx, sh.cancels, 0, time.Now(), statestore.MaxMessages); err == nil && len(old) > 0 {
		after = old[len(old)-1].Seq
	}
	cancel()
	idle := 0
	for range t.C {
		sess.mu.Lock()
		n, closed := len(sess.inflight), sess.closed
		if closed || (n == 0 && idle >= 1) {
			sess.watching = false
			sess.mu.Unlock()
			return
		}
		sess.mu.Unlock()
		if n == 0 {
			idle++
			continue
		}
		idle = 0
		ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
		msgs, err := sh.st.Messages(ctx, sh.cancels, after, time.Now(), statestore.MaxMessages)
		cancel()
		if err != nil {
			continue
		}
		for _, m := range msgs {
			after = m.Seq
			sess.mu.Lock()
			c, ok := sess.inflight[string(m.Data)]
			sess.mu.Unlock()
			if ok {
				c(nil)
			}
		}
	}
}

// streamEvent is one event of a stream kept in the store: a related
// message, the outcome (Final), or the mark that the stream lost its
// client and goes on (Mark).
type streamEvent struct {
	Seq   uint64          `json:"s"`
	Data  json.RawMessage `json:"d,omitempty"`
	Final bool            `json:"f,omitempty"`
	Mark  bool            `json:"m,omitempty"`
	// A mark names the request and the replica serving it.
	ID    json.RawMessage `json:"id,omitempty"`
	Owner string          `json:"o,omitempty"`
}

// keepEvent writes an event of a stream whose client is gone.
func (sh *sharedSession) keepEvent(stream uint64, e streamEvent, ttl time.Duration) {
	b, _ := json.Marshal(e)
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	if _, err := sh.st.AppendMessage(ctx, sh.eventsChannel(stream), b, time.Now().Add(ttl)); err != nil {
		sh.log.Warn("stream event not kept for other replicas", "cause", err.Error())
	}
}

// dropStream deletes a stream's kept events once its outcome has been
// received.
func (sh *sharedSession) dropStream(stream uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	_ = sh.st.DeleteMessages(ctx, sh.eventsChannel(stream))
}

// followRemote serves a GET that resumes a stream this replica does not
// know: the events kept in the store after seq, then, while the stream
// goes on elsewhere, what follows, until its outcome, the client leaving
// (ctx) or the stream's lifetime. When the replica serving the stream has
// stopped (gone), the stream ends with a replica_lost error as its
// outcome. It reports whether the stream was known to the store at all.
func (sh *sharedSession) followRemote(ctx context.Context, f *httpSink, stream, seq uint64, ttl time.Duration, gone func(context.Context, string) bool) bool {
	ch := sh.eventsChannel(stream)
	deadline := time.Now().Add(ttl)
	var after int64
	known := false
	var owner string
	var reqID json.RawMessage
	last := seq
	// read forwards what the store has after the last seen; done reports
	// that the stream has ended (its outcome sent, or the client gone).
	read := func() (done bool, err error) {
		rctx, cancel := context.WithTimeout(ctx, stateTimeout)
		msgs, err := sh.st.Messages(rctx, ch, after, time.Now(), statestore.MaxMessages)
		cancel()
		if err != nil {
			return false, err
		}
		for _, m := range msgs {
			after = m.Seq
			known = true
			var e streamEvent
			if json.Unmarshal(m.Data, &e) != nil {
				continue
			}
			if e.Mark {
				owner, reqID = e.Owner, e.ID
				continue
			}
			if e.Seq <= seq {
				continue
			}
			last = max(last, e.Seq)
			if !f.forward(eventID(stream, e.Seq), e.Data, e.Final) {
				return true, nil // the client left
			}
			if e.Final {
				sh.dropStream(stream)
				return true, nil
			}
		}
		return false, nil
	}
	t := time.NewTicker(eventsPoll)
	defer t.Stop()
	for {
		done, err := read()
		if done {
			return true
		}
		if !known && err == nil {
			return false
		}
		if owner != "" && gone(ctx, owner) {
			// What it wrote before it stopped comes first.
			if done, _ := read(); done {
				return true
			}
			f.forward(eventID(stream, last+1), appendError(nil, reqID, replicaLost()), true)
			sh.dropStream(stream)
			return true
		}
		if time.Now().After(deadline) {
			return true
		}
		select {
		case <-ctx.Done():
			return true
		case <-t.C:
		}
	}
}
