package mcp

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// sinkState is where an httpSink is in its life. States only move
// forward, along these transitions:
//
//	pending   → streaming  the first event, or a GET stream opening
//	pending   → detached   the client left before anything was written
//	pending   → done       the outcome, as plain JSON
//	streaming → detached   the client left, a write failed, or the server
//	                       closed a resumable stream for the client to
//	                       resume it
//	streaming → done       the outcome, as the last event
//	detached  → done       the outcome, kept for resumption if it can be
//
// A detached sink never touches the writer again: the request's handler
// may have returned, and net/http may have handed the writer's buffer to
// another connection.
type sinkState uint8

const (
	sinkPending   sinkState = iota // nothing written; the response may still be plain JSON
	sinkStreaming                  // SSE headers sent; events are written as they come
	sinkDetached                   // the writer given up; events are only logged
	sinkDone                       // the response complete; nothing more is sent or logged
)

// httpSink delivers a request's related messages and its response: plain
// JSON when nothing precedes the response, an SSE stream otherwise.
type httpSink struct {
	w         http.ResponseWriter
	sse       bool // the client accepts text/event-stream
	long      bool // a long stream: keep-alives, no write deadline
	keepAlive time.Duration
	// A resumable legacy stream numbers its events and logs them in its
	// session's log; stream is 0 on any other.
	log    *streamLog
	stream uint64
	// reqID is the id of the request whose response this is, and owner
	// the replica serving it, for a stream kept in the store.
	reqID json.RawMessage
	owner string

	mu     sync.Mutex
	state  sinkState
	seq    uint64        // the last event number of a resumable stream
	stopKA chan struct{} // closed on leaving streaming, if keep-alives run
	// gone, when set, is closed as the sink leaves the writer for good
	// (detached or done), for a handler waiting to return.
	gone chan struct{}
}

func newSink(w http.ResponseWriter, sse bool, keepAlive time.Duration) *httpSink {
	return &httpSink{w: w, sse: sse, keepAlive: keepAlive}
}

// to moves the sink forward to next and does what entering it takes. A
// move backwards or in place does nothing and reports false. Called with
// s.mu held.
func (s *httpSink) to(next sinkState) bool {
	prev := s.state
	if next <= prev {
		return false
	}
	s.state = next
	if prev == sinkStreaming && s.stopKA != nil {
		close(s.stopKA)
		s.stopKA = nil
	}
	if next == sinkStreaming {
		s.startStream()
	} else if prev < sinkDetached && s.gone != nil {
		close(s.gone)
	}
	if next == sinkDetached && s.stream != 0 && s.log.shared != nil {
		// The stream goes on without its client: other replicas learn
		// that it exists, and what follows is kept for them too.
		s.log.remember(s.stream, streamEvent{Mark: true, ID: s.reqID, Owner: s.owner})
	}
	return true
}

// startStream sends the SSE headers on entering streaming.
func (s *httpSink) startStream() {
	hd := s.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
	// Send the headers now: a client may wait for them before it goes on
	// (the official Go SDK's Connect waits for its legacy GET stream), and
	// the first event or keep-alive can be far off.
	_ = http.NewResponseController(s.w).Flush()
	if s.stream != 0 {
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

// open starts the stream at once: a GET stream's headers go out before
// any event.
func (s *httpSink) open() {
	s.mu.Lock()
	s.to(sinkStreaming)
	s.mu.Unlock()
}

// finished reports whether the response is complete.
func (s *httpSink) finished() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == sinkDone
}

// abandon gives up the writer: the request's connection is gone, and its
// handler is about to return.
func (s *httpSink) abandon() {
	s.mu.Lock()
	s.to(sinkDetached)
	s.mu.Unlock()
}

// write writes one event while streaming; a failed write detaches the
// sink. Called with s.mu held.
func (s *httpSink) write(id string, msg []byte) error {
	err := writeEvent(s.w, id, msg)
	if err != nil {
		s.to(sinkDetached)
	}
	return err
}

// keepalive writes comments until stop closes. It gets the channel as an
// argument because leaving streaming clears s.stopKA under s.mu, which
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
			if s.state == sinkStreaming {
				if _, err := io.WriteString(s.w, ":\n\n"); err != nil || http.NewResponseController(s.w).Flush() != nil {
					s.to(sinkDetached)
				}
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
	if !s.sse || s.state == sinkDone {
		return nil
	}
	s.to(sinkStreaming)
	return s.event(msg)
}

// event logs a related message of a resumable stream, passing it to the
// streams that follow it, and writes it while streaming. Called with
// s.mu held.
func (s *httpSink) event(msg []byte) error {
	id := ""
	if s.stream != 0 {
		s.seq++
		id = eventID(s.stream, s.seq)
		for _, f := range s.log.record(s.stream, s.seq, msg) {
			f.forward(id, msg, false)
		}
	}
	if s.state != sinkStreaming {
		if s.stream != 0 && s.log.shared != nil {
			s.log.remember(s.stream, streamEvent{Seq: s.seq, Data: append(json.RawMessage(nil), msg...)})
		}
		return nil
	}
	if err := s.write(id, msg); err != nil && s.stream == 0 {
		return err // a resumable stream logged it: the client may resume
	}
	return nil
}

// forward writes an event of another stream that this one follows; the
// final one ends this stream. It reports whether it was written.
func (s *httpSink) forward(id string, msg []byte, final bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != sinkStreaming || s.write(id, msg) != nil {
		return false
	}
	if final {
		s.to(sinkDone)
	}
	return true
}

// closeStream ends a legacy response stream early, telling the client to
// reconnect; the call goes on and its events wait in the session's log.
// It reports false where the stream cannot be resumed.
func (s *httpSink) closeStream() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stream == 0 || !s.sse || s.state > sinkStreaming {
		return false
	}
	s.to(sinkStreaming) // the client needs the priming event's id
	s.to(sinkDetached)
	return true
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

// finish delivers the request's outcome, a result or an error (neither
// when the client left a modern request, or a listen stream ended), and
// ends the sink. It returns the fault, wrapping ErrServerFault, when the
// outcome of a resumable stream could not be kept for the client.
func (s *httpSink) finish(id json.RawMessage, res []byte, e *Error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case sinkDone:
		return nil
	case sinkPending:
		if s.stream != 0 {
			s.endStream()
		}
		s.respond(id, res, e)
		s.to(sinkDone)
		return nil
	}
	var msg []byte
	switch {
	case e != nil:
		msg = appendError(nil, id, e)
	case res != nil:
		msg = appendResponse(nil, id, res)
	}
	defer s.to(sinkDone)
	if s.stream == 0 {
		if msg != nil && s.state == sinkStreaming {
			_ = s.write("", msg)
		}
		return nil
	}
	if msg == nil {
		s.endStream()
		return nil
	}
	s.seq++
	eid := eventID(s.stream, s.seq)
	if s.state == sinkStreaming && s.write(eid, msg) == nil {
		// Delivered on its own stream; a stream that resumed it
		// meanwhile gets it too. Nothing is left to resume.
		for _, f := range s.log.followersOf(s.stream) {
			f.forward(eid, msg, true)
		}
		s.log.delivered(s.stream)
		return nil
	}
	// The client is gone: the outcome waits for it to resume the stream,
	// here and, for a shared session, in the store.
	kept, fs, fault := s.log.keepFinal(s.stream, s.seq, msg, func(limit int) []byte {
		return appendError(nil, id, resultNotKept(limit))
	})
	if s.log.shared != nil {
		s.log.remember(s.stream, streamEvent{Seq: s.seq, Data: kept, Final: true})
	}
	delivered := false
	for _, f := range fs {
		if f.forward(eid, kept, true) {
			delivered = true
		}
	}
	if delivered {
		s.log.delivered(s.stream)
	}
	return fault
}

// endStream ends a resumable stream that leaves nothing to resume, and
// the streams following it (a client that guessed its id).
func (s *httpSink) endStream() {
	for _, f := range s.log.followersOf(s.stream) {
		f.mu.Lock()
		f.to(sinkDone)
		f.mu.Unlock()
	}
	s.log.end(s.stream)
}

// resultNotKept is what a client resuming a stream gets instead of an
// outcome too large to keep.
func resultNotKept(limit int) *Error {
	e := rpcErr(CodeInternalError, KindInternal, "the result was too large to keep until the stream was resumed")
	e.Data = map[string]any{"code": "result_too_large", "limitBytes": limit}
	return e
}

// respond answers a request whose sink is still pending: plain JSON, or
// nothing when there is no outcome. Called with s.mu held.
func (s *httpSink) respond(id json.RawMessage, res []byte, e *Error) {
	switch {
	case e != nil:
		msg := appendError(nil, id, e)
		s.writeJSON(httpStatus(e), len(msg), msg)
	case res != nil:
		// The envelope is written around the result, which is not
		// copied (a tool list runs to tens of KB).
		head := appendResponseHead(make([]byte, 0, 64), id)
		s.writeJSON(http.StatusOK, len(head)+len(res)+1, head, res, []byte{'}'})
	}
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
