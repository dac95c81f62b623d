package mcp

import (
	"strconv"
	"strings"
	"sync"
)

// Legacy HTTP sessions may resume a response stream (the 2025-11-25
// revision's SSE polling): every event of a session's POST streams carries
// an id "<stream>-<seq>", the session keeps its recent events, and a client
// that lost a stream - or that the server asked to reconnect by closing it
// mid-call - opens GET with Last-Event-ID to receive what it missed and what
// follows. The stateless revision has no resumption: a broken stream is a
// lost request.

const (
	maxLoggedEvents = 256
	maxLoggedBytes  = 1 << 20
)

type loggedEvent struct {
	stream, seq uint64
	data        []byte
}

// streamLog is one session's recent events and the GET streams following
// a stream.
type streamLog struct {
	mu        sync.Mutex
	next      uint64
	events    []loggedEvent
	bytes     int
	followers map[uint64][]*httpSink
}

func (l *streamLog) newStream() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	return l.next
}

// record keeps an event and returns the streams following its stream.
func (l *streamLog) record(stream, seq uint64, data []byte) []*httpSink {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, loggedEvent{stream, seq, append([]byte(nil), data...)})
	l.bytes += len(data)
	for len(l.events) > maxLoggedEvents || l.bytes > maxLoggedBytes {
		l.bytes -= len(l.events[0].data)
		l.events = l.events[1:]
	}
	return append([]*httpSink(nil), l.followers[stream]...)
}

// follow registers f for stream's later events and returns those after
// seq that were already logged.
func (l *streamLog) follow(stream, seq uint64, f *httpSink) []loggedEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []loggedEvent
	for _, e := range l.events {
		if e.stream == stream && e.seq > seq {
			out = append(out, e)
		}
	}
	if l.followers == nil {
		l.followers = map[uint64][]*httpSink{}
	}
	l.followers[stream] = append(l.followers[stream], f)
	return out
}

// forget drops a stream's events once its response was delivered on the
// stream itself, so the log holds only streams that may still be resumed.
func (l *streamLog) forget(stream uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := l.events[:0]
	for _, e := range l.events {
		if e.stream == stream {
			l.bytes -= len(e.data)
			continue
		}
		kept = append(kept, e)
	}
	clear(l.events[len(kept):])
	l.events = kept
}

func (l *streamLog) unfollow(stream uint64, f *httpSink) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fs := l.followers[stream]
	for i, x := range fs {
		if x == f {
			fs = append(fs[:i], fs[i+1:]...)
			break
		}
	}
	if len(fs) == 0 {
		delete(l.followers, stream)
	} else {
		l.followers[stream] = fs
	}
}

func eventID(stream, seq uint64) string {
	return strconv.FormatUint(stream, 10) + "-" + strconv.FormatUint(seq, 10)
}

func parseEventID(s string) (stream, seq uint64, ok bool) {
	a, b, found := strings.Cut(s, "-")
	if !found || len(s) > 41 {
		return 0, 0, false
	}
	stream, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	return stream, seq, err1 == nil && err2 == nil
}
