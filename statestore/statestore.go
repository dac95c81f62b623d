// Package statestore is where the MCP engine keeps the protocol state that
// outlives one request - legacy sessions, tasks and their results, the
// events kept for resuming a stream, the answers to a session's
// server-to-client requests - and the keys every replica must share. The
// in-memory Memory serves one process (stdio, tests, a single replica);
// the adapters in store/sqlite and store/postgres share it across
// replicas, so that any replica serves any request and a rolling restart
// loses nothing. The store sees opaque records and messages; what they
// hold is package mcp's business.
package statestore

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Two shapes cover it all:
//
//   - a record is a small document under (kind, id), owned by a caller,
//     replaced only if its version is still the one read (optimistic
//     concurrency), and gone after it expires;
//   - a message is appended to a channel (a stream's events, a session's
//     answers) and read back in order after a sequence number.

// Store keeps records and messages. Implementations must be safe for
// concurrent use, by several processes sharing one database too.
type Store interface {
	// PutState writes rec. A Version of 0 creates the record and fails
	// with ErrConflict if it exists (and has not expired); any other
	// Version replaces the record only if its stored version is that one,
	// else ErrConflict (or ErrNotFound if it is gone). It
	// returns the new version.
	PutState(ctx context.Context, rec Record) (int64, error)
	// GetState returns the record, or ErrNotFound (also once it has
	// expired at now).
	GetState(ctx context.Context, kind, id string, now time.Time) (Record, error)
	// DeleteState removes a record; removing none is not an error.
	DeleteState(ctx context.Context, kind, id string) error
	// CountState counts the live records of kind at now: all of them,
	// and those of owner.
	CountState(ctx context.Context, kind, owner string, now time.Time) (total, owned int, err error)
	// AppendMessage appends data to channel, to be kept until expires,
	// and returns its sequence number (increasing within the channel).
	AppendMessage(ctx context.Context, channel string, data []byte, expires time.Time) (int64, error)
	// Messages returns the live messages of channel after seq, in order,
	// at most limit.
	Messages(ctx context.Context, channel string, after int64, now time.Time, limit int) ([]Message, error)
	// DeleteMessages removes a channel's messages.
	DeleteMessages(ctx context.Context, channel string) error
}

// Record is one record of a Store.
type Record struct {
	Kind, ID string
	// Owner is the caller the record belongs to; CountState counts by it.
	Owner   string
	Data    []byte
	Version int64
	Expires time.Time
}

// Message is one message of a channel.
type Message struct {
	Seq  int64
	Data []byte
}

// Errors of a Store.
var (
	ErrNotFound = errors.New("statestore: record not found")
	ErrConflict = errors.New("statestore: record changed meanwhile")
)

// MaxMessages is the most a caller should ask Messages for at once.
const MaxMessages = 1024

// Memory is a Store in process memory: the default, for stdio,
// tests and a single replica. It drops expired entries as it goes.
type Memory struct {
	mu       sync.Mutex
	recs     map[[2]string]Record
	chans    map[string][]memMessage
	nextSeq  int64
	lastTrim time.Time
}

type memMessage struct {
	Message
	expires time.Time
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{recs: map[[2]string]Record{}, chans: map[string][]memMessage{}}
}

// PutState implements Store.
func (m *Memory) PutState(_ context.Context, rec Record) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{rec.Kind, rec.ID}
	old, ok := m.recs[k]
	now := time.Now()
	if ok && now.After(old.Expires) {
		delete(m.recs, k)
		ok = false
	}
	switch {
	case rec.Version == 0 && ok:
		return 0, ErrConflict
	case rec.Version != 0 && !ok:
		return 0, ErrNotFound
	case rec.Version != 0 && old.Version != rec.Version:
		return 0, ErrConflict
	}
	rec.Version++
	rec.Data = append([]byte(nil), rec.Data...)
	m.recs[k] = rec
	m.trimLocked(now)
	return rec.Version, nil
}

// GetState implements Store.
func (m *Memory) GetState(_ context.Context, kind, id string, now time.Time) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.recs[[2]string{kind, id}]
	if !ok || now.After(rec.Expires) {
		return Record{}, ErrNotFound
	}
	rec.Data = append([]byte(nil), rec.Data...)
	return rec, nil
}

// DeleteState implements Store.
func (m *Memory) DeleteState(_ context.Context, kind, id string) error {
	m.mu.Lock()
	delete(m.recs, [2]string{kind, id})
	m.mu.Unlock()
	return nil
}

// CountState implements Store.
func (m *Memory) CountState(_ context.Context, kind, owner string, now time.Time) (int, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	total, owned := 0, 0
	for k, r := range m.recs {
		if k[0] != kind || now.After(r.Expires) {
			continue
		}
		total++
		if r.Owner == owner {
			owned++
		}
	}
	return total, owned, nil
}

// AppendMessage implements Store.
func (m *Memory) AppendMessage(_ context.Context, channel string, data []byte, expires time.Time) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextSeq++
	m.chans[channel] = append(m.chans[channel], memMessage{Message{m.nextSeq, append([]byte(nil), data...)}, expires})
	m.trimLocked(time.Now())
	return m.nextSeq, nil
}

// Messages implements Store.
func (m *Memory) Messages(_ context.Context, channel string, after int64, now time.Time, limit int) ([]Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Message
	for _, msg := range m.chans[channel] {
		if msg.Seq > after && !now.After(msg.expires) && len(out) < limit {
			out = append(out, Message{msg.Seq, append([]byte(nil), msg.Data...)})
		}
	}
	return out, nil
}

// DeleteMessages implements Store.
func (m *Memory) DeleteMessages(_ context.Context, channel string) error {
	m.mu.Lock()
	delete(m.chans, channel)
	m.mu.Unlock()
	return nil
}

// trimLocked drops expired entries, at most once a second.
func (m *Memory) trimLocked(now time.Time) {
	if now.Sub(m.lastTrim) < time.Second {
		return
	}
	m.lastTrim = now
	for k, r := range m.recs {
		if now.After(r.Expires) {
			delete(m.recs, k)
		}
	}
	for c, msgs := range m.chans {
		kept := msgs[:0]
		for _, msg := range msgs {
			if !now.After(msg.expires) {
				kept = append(kept, msg)
			}
		}
		if len(kept) == 0 {
			delete(m.chans, c)
		} else {
			m.chans[c] = kept
		}
	}
}
