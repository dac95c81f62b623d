package mcp

import (
	"strconv"
	"strings"
	"sync"
	"time"
)

// Legacy HTTP sessions may resume a response stream (the 2025-11-25
// revision's SSE polling): every event of a session's POST streams carries
// an id "<stream>-<seq>", the session keeps its recent events, and a client
// that lost a stream - or that the server asked to reconnect by closing it
// mid-call - opens GET with Last-Event-ID to receive what it missed and what
// follows. The stateless revision has no resumption: a broken stream is a
// lost request.
//
// Two stores keep a stream's events. Related messages (progress, logs,
// questions) go to a ring of recent events, bounded in count and bytes, the
// oldest dropped first. The final message of a stream - the call's outcome -
// is kept apart, whatever its size up to the session's budget, until a
// client receives it or it expires; an outcome that does not fit is replaced
// by a small result_too_large error, so that a resuming client always gets
// an answer, and the call is reported as failed through the server.

const (
	maxLoggedEvents = 256
	maxLoggedBytes  = 1 << 20
	// maxKeptFinals bounds the outcomes a session keeps; past it the
	// oldest expires early.
	maxKeptFinals = 256
	// Defaults of the budget and lifetime of kept outcomes, for logs that
	// no transport configured.
	defaultKeptBytes = 8 << 20
	defaultKeptTTL   = 10 * time.Minute
)

type loggedEvent struct {
	stream, seq uint64
	data        []byte
}

type keptFinal struct {
	loggedEvent
	expires time.Time
}

// streamLog is one session's recent events, the outcomes kept for its
// streams, and the GET streams following a stream.
type streamLog struct {
	mu     sync.Mutex
	next   uint64
	events []loggedEvent
	bytes  int
	// open holds the streams whose call has not ended: a GET resuming one
	// waits for the rest.
	open map[uint64]struct{}
	// finals holds outcomes not yet received, oldest first.
	finals     []keptFinal
	finalBytes int
	keepBytes  int           // budget of finals' bytes; 0: defaultKeptBytes
	keepTTL    time.Duration // lifetime of a kept final; 0: defaultKeptTTL
	followers  map[uint64][]*httpSink
	// shared, for a session shared between replicas, keeps what a stream
	// sends after losing its client in the store too (state_session.go);
	// stored names the streams that have something there.
	shared *sharedSession
	stored map[uint64]int // events kept in the store, per stream
}

// ttl is the lifetime of what a stream keeps.
func (l *streamLog) ttl() time.Duration {
	if l.keepTTL <= 0 {
		return defaultKeptTTL
	}
	return l.keepTTL
}

// remember writes an event of a stream that lost its client to the store,
// for a replica that resumes it. It is called without l.mu.
func (l *streamLog) remember(stream uint64, e streamEvent) {
	if l.shared == nil {
		return
	}
	l.mu.Lock()
	if l.stored == nil {
		l.stored = map[uint64]int{}
	}
	if !e.Final && l.stored[stream] >= maxLoggedEvents {
		// The store keeps no more of a stream's related events than
		// memory does; its outcome is always kept.
		l.mu.Unlock()
		return
	}
	l.stored[stream]++
	ttl := l.ttl()
	l.mu.Unlock()
	l.shared.keepEvent(stream, e, ttl)
}

// knows reports whether this replica has anything of stream: open, or
// with events or an outcome kept.
func (l *streamLog) knows(stream uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.open[stream]; ok {
		return true
	}
	for _, e := range l.events {
		if e.stream == stream {
			return true
		}
	}
	for _, f := range l.finals {
		if f.stream == stream {
			return true
		}
	}
	return false
}

// limits sets the budget and lifetime of kept outcomes.
func (l *streamLog) limits(bytes int, ttl time.Duration) {
	l.mu.Lock()
	l.keepBytes, l.keepTTL = bytes, ttl
	l.mu.Unlock()
}

func (l *streamLog) newStream() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	if l.open == nil {
		l.open = map[uint64]struct{}{}
	}
	l.open[l.next] = struct{}{}
	return l.next
}

// record keeps a related message of a stream and returns the streams
// following it.
func (l *streamLog) record(stream, seq uint64, data []byte) []*httpSink {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, loggedEvent{stream, seq, append([]byte(nil), data...)})
	l.bytes += len(data)
	for len(l.events) > maxLoggedEvents || l.bytes > maxLoggedBytes {
		l.bytes -= len(l.events[0].data)
		l.events[0] = loggedEvent{}
		l.events = l.events[1:]
	}
	return l.followersLocked(stream)
}

func (l *streamLog) followersOf(stream uint64) []*httpSink {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.followersLocked(stream)
}

func (l *streamLog) followersLocked(stream uint64) []*httpSink {
	if len(l.followers[stream]) == 0 {
		return nil
	}
	return append([]*httpSink(nil), l.followers[stream]...)
}

// keepFinal keeps a stream's outcome, which its own stream did not
// deliver, for a client to collect; the stream has ended. An outcome over
// what is left of the budget is replaced by substitute(budget), and the
// fault says so. It returns what it kept and the streams following the
// stream.
func (l *streamLog) keepFinal(stream, seq uint64, data []byte, substitute func(limit int) []byte) (kept []byte, followers []*httpSink, fault error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.open, stream)
	now := time.Now()
	l.expireLocked(now)
	budget, ttl := l.keepBytes, l.keepTTL
	if budget <= 0 {
		budget = defaultKeptBytes
	}
	if ttl <= 0 {
		ttl = defaultKeptTTL
	}
	kept = append([]byte(nil), data...)
	if l.finalBytes+len(data) > budget {
		kept, fault = substitute(budget), errResultNotKept
	}
	if len(l.finals) >= maxKeptFinals {
		l.dropFinalLocked(0)
	}
	l.finals = append(l.finals, keptFinal{loggedEvent{stream, seq, kept}, now.Add(ttl)})
	l.finalBytes += len(kept)
	return kept, l.followersLocked(stream), fault
}

// expireLocked drops the outcomes whose time is up.
func (l *streamLog) expireLocked(now time.Time) {
	for len(l.finals) > 0 && now.After(l.finals[0].expires) {
		l.dropFinalLocked(0)
	}
}

func (l *streamLog) dropFinalLocked(i int) {
	l.finalBytes -= len(l.finals[i].data)
	n := len(l.finals)
	copy(l.finals[i:], l.finals[i+1:])
	l.finals[n-1] = keptFinal{} // no reference past the end
	l.finals = l.finals[:n-1]
}

// follow registers f for stream's later events while the stream is open,
// and returns the events after seq already logged, the stream's kept
// outcome (if after seq), and whether the stream is still open: a stream
// neither open nor with an outcome will carry nothing more.
func (l *streamLog) follow(stream, seq uint64, f *httpSink) (missed []loggedEvent, final *loggedEvent, open bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expireLocked(time.Now())
	for _, e := range l.events {
		if e.stream == stream && e.seq > seq {
			missed = append(missed, e)
		}
	}
	for i := range l.finals {
		if k := l.finals[i]; k.stream == stream && k.seq > seq {
			final = &k.loggedEvent
		}
	}
	if _, open = l.open[stream]; open {
		if l.followers == nil {
			l.followers = map[uint64][]*httpSink{}
		}
		l.followers[stream] = append(l.followers[stream], f)
	}
	return missed, final, open
}

// end drops a stream that ended without an outcome to resume (answered
// as plain JSON, or with nothing to say).
func (l *streamLog) end(stream uint64) { l.delivered(stream) }

// delivered drops a stream's events and kept outcome once a client has
// received its outcome, so the log holds only streams that may still be
// resumed.
func (l *streamLog) delivered(stream uint64) {
	l.mu.Lock()
	stored := l.stored[stream] > 0
	delete(l.stored, stream)
	l.mu.Unlock()
	if stored {
		// Before the local copy goes: a resume that no longer finds it
		// here must not find it in the store either.
		l.shared.dropStream(stream)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.open, stream)
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
	for i := 0; i < len(l.finals); i++ {
		if l.finals[i].stream == stream {
			l.dropFinalLocked(i)
			i--
		}
	}
}

// resume starts f on the rest of stream after seq: the events missed and,
// if the stream has ended, its kept outcome. It reports whether f now
// follows the stream for what is still to come; otherwise f has ended.
func (l *streamLog) resume(f *httpSink, stream, seq uint64) bool {
	// f.mu is held until the missed events are written, so that an event
	// forwarded meanwhile waits for them and the order holds.
	f.mu.Lock()
	defer f.mu.Unlock()
	f.to(sinkStreaming)
	missed, final, open := l.follow(stream, seq, f)
	for _, e := range missed {
		if f.state != sinkStreaming {
			break
		}
		_ = f.write(eventID(e.stream, e.seq), e.data)
	}
	switch {
	case final != nil && f.state == sinkStreaming:
		if f.write(eventID(final.stream, final.seq), final.data) == nil {
			l.delivered(stream)
			f.to(sinkDone)
		}
	case !open:
		f.to(sinkDone) // nothing more will come on this stream
	}
	return open
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
