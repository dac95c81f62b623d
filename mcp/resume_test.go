package mcp

import (
	"bytes"
	"errors"
	"net/http/httptest"
	"strconv"
	"testing"
	"testing/synctest"
	"time"
)

func substitute(limit int) []byte { return []byte("too large:" + strconv.Itoa(limit)) }

// TestKeptFinals: outcomes are kept whatever their size within the
// session's budget, past the 1 MiB ring of recent events; one that does
// not fit is replaced and reported as a server fault; delivery frees the
// budget.
func TestKeptFinals(t *testing.T) {
	var l streamLog
	l.limits(3<<20, time.Minute)
	big := bytes.Repeat([]byte("r"), 2<<20)
	a, b := l.newStream(), l.newStream()
	kept, _, fault := l.keepFinal(a, 3, big, substitute)
	if fault != nil || !bytes.Equal(kept, big) {
		t.Fatalf("2 MiB in a 3 MiB budget: fault %v, kept %d bytes", fault, len(kept))
	}
	// Later events of other streams do not push it out.
	for i := range 300 {
		l.record(b, uint64(i+1), bytes.Repeat([]byte("p"), 8<<10))
	}
	kept, _, fault = l.keepFinal(b, 301, big, substitute)
	if !errors.Is(fault, ErrServerFault) || string(kept) != "too large:3145728" {
		t.Fatalf("over the budget: fault %v, kept %q", fault, trimmed(kept))
	}
	missed, final, open := l.follow(a, 0, nil)
	if open || final == nil || !bytes.Equal(final.data, big) || final.seq != 3 || len(missed) != 0 {
		t.Fatalf("follow a: open %v, final %v, %d missed", open, final != nil, len(missed))
	}
	l.delivered(a)
	if _, final, _ := l.follow(a, 0, nil); final != nil {
		t.Fatal("a delivered outcome is still kept")
	}
	c := l.newStream()
	if _, _, fault := l.keepFinal(c, 1, big, substitute); fault != nil {
		t.Fatalf("after delivery freed the budget: %v", fault)
	}
	// A client that already has the outcome gets nothing more.
	if _, final, _ := l.follow(c, 1, nil); final != nil {
		t.Fatal("an outcome the client has seen was sent again")
	}
}

func trimmed(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "..."
	}
	return string(b)
}

// TestKeptFinalsExpire: a kept outcome nobody collects is dropped when its
// time is up, and so frees its budget.
func TestKeptFinalsExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var l streamLog
		l.limits(1<<20, 10*time.Minute)
		s := l.newStream()
		l.keepFinal(s, 1, bytes.Repeat([]byte("r"), 1<<20), substitute)
		time.Sleep(9 * time.Minute)
		if _, final, _ := l.follow(s, 0, nil); final == nil {
			t.Fatal("expired early")
		}
		time.Sleep(2 * time.Minute)
		if _, final, open := l.follow(s, 0, nil); final != nil || open {
			t.Fatalf("after its lifetime: final %v, open %v", final != nil, open)
		}
		if l.finalBytes != 0 {
			t.Fatalf("%d bytes still counted", l.finalBytes)
		}
	})
}

// TestSinkStates walks the sink's transitions and checks that a sink that
// left the writer never writes again.
func TestSinkStates(t *testing.T) {
	t.Run("plain JSON", func(t *testing.T) {
		w := httptest.NewRecorder()
		s := newSink(w, true, time.Hour)
		s.finish([]byte("1"), []byte(`{}`), nil)
		if s.state != sinkDone || w.Body.String() != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Fatalf("state %d, body %q", s.state, w.Body)
		}
	})
	t.Run("stream then done", func(t *testing.T) {
		w := httptest.NewRecorder()
		s := newSink(w, true, time.Hour)
		_ = s.Send([]byte(`{"n":1}`))
		if s.state != sinkStreaming || w.Header().Get("Content-Type") != "text/event-stream" {
			t.Fatalf("state %d after an event", s.state)
		}
		s.finish([]byte("1"), []byte(`{}`), nil)
		if s.state != sinkDone || !bytes.HasSuffix(w.Body.Bytes(), []byte(`"result":{}}`+"\n\n")) {
			t.Fatalf("state %d, body %q", s.state, w.Body)
		}
		if s.to(sinkStreaming) || s.to(sinkDetached) {
			t.Fatal("a done sink moved")
		}
	})
	t.Run("detached before anything was written", func(t *testing.T) {
		w := httptest.NewRecorder()
		var l streamLog
		s := newSink(w, true, time.Hour)
		s.gone = make(chan struct{})
		s.log, s.stream = &l, l.newStream()
		s.abandon()
		select {
		case <-s.gone:
		default:
			t.Fatal("gone not closed on detaching")
		}
		_ = s.Send([]byte(`{"n":1}`))
		if fault := s.finish([]byte("1"), []byte(`{}`), nil); fault != nil {
			t.Fatal(fault)
		}
		if w.Body.Len() != 0 || len(w.Header()) != 0 || w.Code != 200 || w.Flushed {
			t.Fatalf("a detached sink wrote: headers %v, body %q", w.Header(), w.Body)
		}
		missed, final, _ := l.follow(s.stream, 0, nil)
		if len(missed) != 1 || final == nil || final.seq != 2 {
			t.Fatalf("logged: %d events, final %v", len(missed), final)
		}
	})
	t.Run("followers of a stream answered as plain JSON end", func(t *testing.T) {
		var l streamLog
		s := newSink(httptest.NewRecorder(), true, time.Hour)
		s.log, s.stream = &l, l.newStream()
		f := newSink(httptest.NewRecorder(), true, time.Hour)
		f.gone = make(chan struct{})
		if !l.resume(f, s.stream, 0) {
			t.Fatal("an open stream could not be followed")
		}
		s.finish([]byte("1"), []byte(`{}`), nil)
		select {
		case <-f.gone:
		default:
			t.Fatal("the follower still waits")
		}
		if _, _, open := l.follow(s.stream, 0, nil); open {
			t.Fatal("the stream is still open")
		}
	})
	t.Run("closed for resumption", func(t *testing.T) {
		w := httptest.NewRecorder()
		var l streamLog
		s := newSink(w, true, time.Hour)
		s.log, s.stream = &l, l.newStream()
		if !s.closeStream() || s.state != sinkDetached {
			t.Fatalf("closeStream: state %d", s.state)
		}
		if got := w.Body.String(); got != "id: 1-0\nretry: 500\ndata: \n\n" {
			t.Fatalf("priming event %q", got)
		}
		if s.closeStream() {
			t.Fatal("closed twice")
		}
	})
}
