package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/warden-mcp/warden/internal/jsonwalk"
	"github.com/warden-mcp/warden/tool"
)

// Session is a legacy (initialize-handshake) session: the negotiated
// version, what the client declared, its log level and subscriptions, and
// the server's own requests awaiting answers. A stdio process has at most
// one; the HTTP transport keys them by Mcp-Session-Id.
type Session struct {
	s  *Server
	ID string
	// key identifies the session to tools and view resolvers on every
	// transport (stdio sessions have no ID).
	key string

	mu        sync.Mutex
	version   string
	caps      clientCaps
	client    string // clientInfo.name from initialize
	ready     bool
	logLevel  string
	pending   map[string]chan *Message
	nextID    uint64
	inflight  map[string]context.CancelCauseFunc
	push      Sink
	listener  *listener
	closed    bool
	lastUsed  time.Time
	closeOnce sync.Once
	// events keeps recent stream events for transports that resume
	// streams (legacy HTTP).
	events streamLog
	// caller is the authenticated caller that opened the session (HTTP).
	caller string
	// shared links an HTTP session to its record and channels in the
	// state store (state_session.go); nil on stdio.
	shared     *sharedSession
	watching   bool      // watchCancels runs
	recVersion int64     // the record's version this copy last wrote or read
	savedAt    time.Time // when the record was last written
	checked    time.Time // when the record was last read
}

// NewSession starts a legacy session. id is the transport's session id
// (empty on stdio).
func (s *Server) NewSession(id string) *Session {
	sess := &Session{s: s, ID: id, key: newID(), pending: map[string]chan *Message{}, inflight: map[string]context.CancelCauseFunc{}, lastUsed: time.Now()}
	sess.listener = newListener()
	sess.listener.tools = true
	sess.listener.prompts = true
	sess.listener.resources = true
	s.addListener(sess.listener)
	go sess.pump()
	return sess
}

// Version returns the negotiated protocol version, or "" before
// initialize.
func (sess *Session) Version() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.version
}

// Touch records activity, for idle expiry.
func (sess *Session) Touch() {
	sess.mu.Lock()
	sess.lastUsed = time.Now()
	sess.mu.Unlock()
}

// IdleSince returns the time of the last activity.
func (sess *Session) IdleSince() time.Time {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.lastUsed
}

// SetPush sets where server-initiated notifications (list changes,
// resource updates) go; nil drops them.
func (sess *Session) SetPush(sink Sink) {
	sess.mu.Lock()
	sess.push = sink
	sess.mu.Unlock()
}

// clearPush stops pushing to sink if it is still the push stream: a
// stream that replaced it (a client's reconnect) keeps the notifications.
func (sess *Session) clearPush(sink Sink) {
	sess.mu.Lock()
	if sess.push == sink {
		sess.push = nil
	}
	sess.mu.Unlock()
}

// endStreams ends the session's server-initiated stream (its GET stream)
// without touching calls in flight, for a graceful shutdown.
func (sess *Session) endStreams() {
	sess.s.removeListener(sess.listener)
	sess.listener.close()
}

// Close ends the session: in-flight calls are cancelled and pending
// server requests fail. The server ends it, not the client: CallFault
// tells the calls' admission so.
func (sess *Session) Close() { sess.end(errSessionEnded) }

// end ends the session, cancelling its in-flight calls with cause.
func (sess *Session) end(cause error) {
	sess.closeOnce.Do(func() {
		sess.s.removeListener(sess.listener)
		sess.listener.close()
		sess.mu.Lock()
		sess.closed = true
		for _, c := range sess.inflight {
			c(cause)
		}
		for id, ch := range sess.pending {
			close(ch)
			delete(sess.pending, id)
		}
		sess.mu.Unlock()
	})
}

func (sess *Session) pump() {
	for {
		select {
		case <-sess.listener.done:
			return
		case e := <-sess.listener.ch:
			sess.mu.Lock()
			push, ready := sess.push, sess.ready
			sess.mu.Unlock()
			if push == nil || !ready {
				continue
			}
			var params any
			if e.kind == notifyResourceUpdated {
				params = map[string]string{"uri": e.uri}
			}
			_ = push.Send(appendNotification(nil, e.method(), params))
		}
	}
}

// Handle serves one request of the session and returns its result or
// error. sink receives the request's related messages.
func (sess *Session) Handle(ctx context.Context, m *Message, sink Sink) ([]byte, *Error) {
	if sink == nil {
		sink = discardSink{}
	}
	sess.Touch()
	if m.Method == "initialize" {
		return sess.initialize(m)
	}
	sess.mu.Lock()
	version := sess.version
	sess.mu.Unlock()
	if version == "" && m.Method != "ping" {
		return nil, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: the session is not initialized")
	}
	p, perr := splitParams(m.Params)
	if perr != nil {
		return nil, perr
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	key := string(m.ID)
	sess.mu.Lock()
	if sess.closed {
		sess.mu.Unlock()
		return nil, rpcErr(CodeInvalidRequest, KindNotFound, "session closed")
	}
	sess.inflight[key] = cancel
	caps, level, client := sess.caps, sess.logLevel, sess.client
	watch := sess.shared != nil && !sess.watching
	sess.watching = sess.watching || watch
	sess.mu.Unlock()
	if watch {
		go sess.watchCancels()
	}
	defer func() {
		sess.mu.Lock()
		delete(sess.inflight, key)
		sess.mu.Unlock()
	}()
	x := &exchange{caps: caps, client: client, logOn: true, logLevel: level, sink: sink, sess: sess, progressToken: p.meta.progressToken}
	if x.logLevel == "" {
		x.logLevel = "debug"
	}
	return sess.s.dispatch(ctx, x, m, &p)
}

func (sess *Session) initialize(m *Message) ([]byte, *Error) {
	var req struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      json.RawMessage `json:"clientInfo"`
	}
	if len(m.Params) == 0 || json.Unmarshal(m.Params, &req) != nil || req.ProtocolVersion == "" {
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: initialize needs protocolVersion and capabilities")
	}
	version := VersionLatestLegacy
	for _, v := range LegacyVersions {
		if v == req.ProtocolVersion {
			version = v
		}
	}
	caps, _ := parseCaps(req.Capabilities)
	sess.mu.Lock()
	sess.version, sess.caps, sess.client = version, caps, clientName(req.ClientInfo)
	sess.mu.Unlock()
	body := map[string]any{
		"protocolVersion": version,
		"capabilities":    sess.s.capabilities(true),
		"serverInfo":      json.RawMessage(sess.s.serverInfo),
	}
	if sess.s.opts.Instructions != "" {
		body["instructions"] = sess.s.opts.Instructions
	}
	b, _ := json.Marshal(body)
	return b, nil
}

// failPending fails every server request still waiting for the client.
func (sess *Session) failPending() {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	for id, ch := range sess.pending {
		close(ch)
		delete(sess.pending, id)
	}
}

// HandleNotification serves a client notification of the session.
func (sess *Session) HandleNotification(m *Message) {
	switch m.Method {
	case "notifications/initialized":
		sess.mu.Lock()
		sess.ready = true
		sess.mu.Unlock()
		sess.persist()
	case "notifications/cancelled":
		var n struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &n) == nil && n.RequestID != nil {
			sess.mu.Lock()
			c, ok := sess.inflight[string(n.RequestID)]
			sess.mu.Unlock()
			switch {
			case ok:
				c(nil)
			case sess.shared != nil:
				// The call may run on another replica.
				sess.shared.forwardCancel(n.RequestID)
			}
		}
	}
}

// Deliver routes a client's response to the server request awaiting it.
// It reports whether anything was waiting.
func (sess *Session) Deliver(m *Message) bool {
	id, ok := jsonwalk.Unquote(m.ID)
	if !ok {
		return false
	}
	sess.mu.Lock()
	ch, ok := sess.pending[id]
	delete(sess.pending, id)
	sess.mu.Unlock()
	if ok {
		ch <- m
	}
	return ok
}

// input returns the legacy CallEnv.Input: each question is sent to the
// client as a request on the call's stream, and the call waits for the
// answers.
func (sess *Session) input(x *exchange) func(context.Context, map[string]tool.InputRequest) (map[string]json.RawMessage, error) {
	return func(ctx context.Context, reqs map[string]tool.InputRequest) (map[string]json.RawMessage, error) {
		out := make(map[string]json.RawMessage, len(reqs))
		for _, k := range sortedKeys(reqs) {
			r := reqs[k]
			res, err := sess.request(ctx, x.sink, r.Method, r.Params)
			if err != nil {
				return out, err
			}
			out[k] = res
		}
		return out, nil
	}
}

var errNoAnswer = errors.New("the client did not answer")

// request sends a server-to-client request and waits for its response. On
// a session shared between replicas the answer may land on another one,
// which hands it over through the store: it is looked for every
// answerPoll.
func (sess *Session) request(ctx context.Context, sink Sink, method string, params json.RawMessage) (json.RawMessage, error) {
	ch := make(chan *Message, 1)
	sess.mu.Lock()
	if sess.closed {
		sess.mu.Unlock()
		return nil, errNoAnswer
	}
	sess.nextID++
	id := "warden-" + strconv.FormatUint(sess.nextID, 10)
	if sess.shared != nil {
		// Unique across replicas: an answer names the request it
		// answers, and may reach another one.
		id += "-" + newID()[:12]
	}
	sess.pending[id] = ch
	sess.mu.Unlock()
	cleanup := func() {
		sess.mu.Lock()
		delete(sess.pending, id)
		sess.mu.Unlock()
	}
	if err := sink.Send(appendRequest(nil, id, method, params)); err != nil {
		cleanup()
		return nil, err
	}
	timer := time.NewTimer(sess.s.opts.StateTTL)
	defer timer.Stop()
	var poll <-chan time.Time
	if sess.shared != nil {
		t := time.NewTicker(answerPoll)
		defer t.Stop()
		poll = t.C
	}
	for {
		var m *Message
		var ok bool
		select {
		case <-ctx.Done():
			cleanup()
			return nil, ctx.Err()
		case <-timer.C:
			cleanup()
			return nil, &tool.Error{Code: "input_timeout", Message: "the client did not answer in time"}
		case m, ok = <-ch:
		case <-poll:
			if m, ok = sess.shared.findAnswer(ctx, id); !ok {
				continue
			}
			cleanup()
		}
		if !ok || m == nil {
			return nil, errNoAnswer
		}
		if m.Error != nil {
			return nil, &tool.Error{Code: "input_refused", Message: "the client refused the request"}
		}
		return m.Result, nil
	}
}

// legacyMethod serves the methods only legacy sessions have.
func (sess *Session) legacyMethod(ctx context.Context, x *exchange, m *Message, p *params) ([]byte, *Error) {
	switch m.Method {
	case "ping":
		return []byte(`{}`), nil
	case "logging/setLevel":
		var req struct {
			Level string `json:"level"`
		}
		if json.Unmarshal(m.Params, &req) != nil || !validLogLevel(req.Level) {
			return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: unknown log level")
		}
		sess.mu.Lock()
		sess.logLevel = req.Level
		sess.mu.Unlock()
		sess.persist()
		return []byte(`{}`), nil
	case "resources/subscribe", "resources/unsubscribe":
		if !sess.s.features.hasResources() {
			return nil, methodNotFound()
		}
		uri, ok := nameOf(p.uri)
		if !ok || uri == "" {
			return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: uri must be a string")
		}
		l := sess.listener
		l.mu.Lock()
		if m.Method == "resources/subscribe" {
			if len(l.uris) >= 1000 {
				l.mu.Unlock()
				return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: too many subscriptions")
			}
			l.uris[uri] = true
		} else {
			delete(l.uris, uri)
		}
		l.mu.Unlock()
		sess.persist()
		return []byte(`{}`), nil
	}
	return nil, methodNotFound()
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}
