package mcp

import (
	"context"
	"encoding/json"
	"sync"
)

type notifyKind int

const (
	notifyTools notifyKind = iota
	notifyPrompts
	notifyResources
	notifyResourceUpdated
)

type event struct {
	kind notifyKind
	uri  string
}

// listener is one open subscriptions/listen stream (modern) or a legacy
// session's interest in changes.
type listener struct {
	caller                    string
	tools, prompts, resources bool
	uris                      map[string]bool
	mu                        sync.Mutex
	ch                        chan event
	done                      chan struct{}
	once                      sync.Once
}

func newListener() *listener {
	return &listener{ch: make(chan event, 64), done: make(chan struct{}), uris: map[string]bool{}}
}

func (l *listener) close() { l.once.Do(func() { close(l.done) }) }

func (l *listener) wants(e event) bool {
	switch e.kind {
	case notifyTools:
		return l.tools
	case notifyPrompts:
		return l.prompts
	case notifyResources:
		return l.resources
	case notifyResourceUpdated:
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.uris[e.uri]
	}
	return false
}

// Listen-stream bounds: across the server and per caller.
const (
	maxListeners          = 1024
	maxListenersPerCaller = 16
)

func (s *Server) roomForListener(caller string) *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	mine := 0
	for l := range s.listeners {
		if l.caller == caller {
			mine++
		}
	}
	if len(s.listeners) >= maxListeners || (caller != "" && mine >= maxListenersPerCaller) {
		return rpcErr(CodeInternalError, KindUnavailable, "too many open subscriptions")
	}
	return nil
}

func (s *Server) addListener(l *listener) {
	s.mu.Lock()
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
}

func (s *Server) removeListener(l *listener) {
	s.mu.Lock()
	delete(s.listeners, l)
	s.mu.Unlock()
}

// broadcast tells every interested listener. A listener whose buffer is
// full misses the event; list-changed events are idempotent, and a client
// that falls that far behind re-lists anyway.
func (s *Server) broadcast(kind notifyKind, uri string) {
	e := event{kind, uri}
	s.mu.Lock()
	defer s.mu.Unlock()
	for l := range s.listeners {
		if l.wants(e) {
			select {
			case l.ch <- e:
			default:
			}
		}
	}
}

func (e event) method() string {
	switch e.kind {
	case notifyTools:
		return "notifications/tools/list_changed"
	case notifyPrompts:
		return "notifications/prompts/list_changed"
	case notifyResources:
		return "notifications/resources/list_changed"
	}
	return "notifications/resources/updated"
}

// listen serves subscriptions/listen: an acknowledgement, then the
// requested change notifications, each tagged with the listen request's
// id, until the client goes away or the server closes.
func (s *Server) listen(ctx context.Context, x *exchange, m *Message) ([]byte, *Error) {
	var req struct {
		Notifications struct {
			Tools     bool     `json:"toolsListChanged"`
			Prompts   bool     `json:"promptsListChanged"`
			Resources bool     `json:"resourcesListChanged"`
			URIs      []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
	}
	if err := json.Unmarshal(m.Params, &req); err != nil {
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: malformed notifications filter")
	}
	if len(req.Notifications.URIs) > 1000 {
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: too many resource subscriptions")
	}
	if err := s.roomForListener(callerOf(ctx)); err != nil {
		return nil, err
	}
	l := newListener()
	l.caller = callerOf(ctx)
	n := req.Notifications
	honoured := map[string]any{}
	if n.Tools {
		l.tools = true
		honoured["toolsListChanged"] = true
	}
	if n.Prompts && s.features.hasPrompts() {
		l.prompts = true
		honoured["promptsListChanged"] = true
	}
	if s.features.hasResources() {
		if n.Resources {
			l.resources = true
			honoured["resourcesListChanged"] = true
		}
		if len(n.URIs) > 0 {
			for _, u := range n.URIs {
				l.uris[u] = true
			}
			honoured["resourceSubscriptions"] = n.URIs
		}
	}
	meta := map[string]json.RawMessage{metaSubscriptionID: m.ID}
	s.addListener(l)
	defer s.removeListener(l)
	x.send("notifications/subscriptions/acknowledged", map[string]any{"_meta": meta, "notifications": honoured})
	for {
		select {
		case <-ctx.Done():
			return nil, nil
		case <-l.done:
			b, _ := json.Marshal(map[string]any{"resultType": "complete", "_meta": meta})
			return b, nil
		case e := <-l.ch:
			p := map[string]any{"_meta": meta}
			if e.kind == notifyResourceUpdated {
				p["uri"] = e.uri
			}
			x.send(e.method(), p)
		}
	}
}
