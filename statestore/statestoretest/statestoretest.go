// Package statestoretest is the behaviour suite every statestore.Store must pass:
// statestore.Memory and the adapters in store/sqlite and store/postgres. An
// adapter's test calls Run with a function that sets up a fresh database
// and returns an opener of handles on it; two handles stand in for two
// replicas.
package statestoretest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/statestore"
)

// Opener opens a new handle on one database and registers its cleanup.
type Opener func(t *testing.T) statestore.Store

// Run runs the suite; newDB is called once per subtest.
func Run(t *testing.T, newDB func(t *testing.T) Opener) {
	for _, tt := range []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"Records", testRecords},
		{"CompareAndSwapAcrossReplicas", testCAS},
		{"Expiry", testExpiry},
		{"Count", testCount},
		{"Messages", testMessages},
		{"MessagesInOrderUnderConcurrency", testMessagesConcurrent},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newDB(t)) })
	}
}

func testRecords(t *testing.T, open Opener) {
	s := open(t)
	ctx := t.Context()
	now := time.Now()
	exp := now.Add(time.Hour)
	v, err := s.PutState(ctx, statestore.Record{Kind: "task", ID: "a", Owner: "o", Data: []byte(`{"x":1}`), Expires: exp})
	if err != nil || v != 1 {
		t.Fatalf("create: %d %v", v, err)
	}
	if _, err := s.PutState(ctx, statestore.Record{Kind: "task", ID: "a", Data: []byte(`{}`), Expires: exp}); !errors.Is(err, statestore.ErrConflict) {
		t.Errorf("create over an existing record: %v", err)
	}
	got, err := s.GetState(ctx, "task", "a", now)
	if err != nil || string(got.Data) != `{"x":1}` || got.Owner != "o" || got.Version != 1 || !got.Expires.Equal(exp.Truncate(time.Microsecond)) && !got.Expires.Equal(exp) {
		t.Fatalf("get: %+v %v", got, err)
	}
	if _, err := s.GetState(ctx, "session", "a", now); !errors.Is(err, statestore.ErrNotFound) {
		t.Errorf("another kind: %v", err)
	}
	got.Data = []byte(`{"x":2}`)
	if v, err = s.PutState(ctx, got); err != nil || v != 2 {
		t.Fatalf("update: %d %v", v, err)
	}
	if _, err := s.PutState(ctx, got); !errors.Is(err, statestore.ErrConflict) {
		t.Errorf("update from a stale version: %v", err)
	}
	if err := s.DeleteState(ctx, "task", "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetState(ctx, "task", "a", now); !errors.Is(err, statestore.ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
	got.Version = 2
	if _, err := s.PutState(ctx, got); !errors.Is(err, statestore.ErrNotFound) {
		t.Errorf("update of a deleted record: %v", err)
	}
	if err := s.DeleteState(ctx, "task", "nothing"); err != nil {
		t.Errorf("deleting nothing: %v", err)
	}
}

// testCAS: two replicas increment one counter record concurrently through
// read-modify-write with retries; no increment is lost.
func testCAS(t *testing.T, open Opener) {
	a, b := open(t), open(t)
	ctx := t.Context()
	exp := time.Now().Add(time.Hour)
	if _, err := a.PutState(ctx, statestore.Record{Kind: "n", ID: "c", Data: []byte("0"), Expires: exp}); err != nil {
		t.Fatal(err)
	}
	const per = 20
	var wg sync.WaitGroup
	for _, s := range []statestore.Store{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				for {
					r, err := s.GetState(ctx, "n", "c", time.Now())
					if err != nil {
						t.Error(err)
						return
					}
					var n int
					fmt.Sscan(string(r.Data), &n)
					r.Data = []byte(fmt.Sprint(n + 1))
					if _, err := s.PutState(ctx, r); err == nil {
						break
					} else if !errors.Is(err, statestore.ErrConflict) {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	r, _ := a.GetState(ctx, "n", "c", time.Now())
	if string(r.Data) != fmt.Sprint(4*per) {
		t.Errorf("counter %s, want %d", r.Data, 4*per)
	}
}

func testExpiry(t *testing.T, open Opener) {
	s := open(t)
	ctx := t.Context()
	now := time.Now()
	if _, err := s.PutState(ctx, statestore.Record{Kind: "k", ID: "e", Data: []byte("x"), Expires: now.Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetState(ctx, "k", "e", now); !errors.Is(err, statestore.ErrNotFound) {
		t.Errorf("an expired record: %v", err)
	}
	if v, err := s.PutState(ctx, statestore.Record{Kind: "k", ID: "e", Data: []byte("y"), Expires: now.Add(time.Hour)}); err != nil || v != 1 {
		t.Errorf("creating over an expired record: %d %v", v, err)
	}
	if _, err := s.AppendMessage(ctx, "ch", []byte("old"), now.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if msgs, err := s.Messages(ctx, "ch", 0, now, 10); err != nil || len(msgs) != 0 {
		t.Errorf("expired messages: %v %v", msgs, err)
	}
}

func testCount(t *testing.T, open Opener) {
	s := open(t)
	ctx := t.Context()
	now := time.Now()
	for i, owner := range []string{"x", "x", "y"} {
		if _, err := s.PutState(ctx, statestore.Record{Kind: "session", ID: fmt.Sprint(i), Owner: owner, Data: []byte("{}"), Expires: now.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	s.PutState(ctx, statestore.Record{Kind: "session", ID: "old", Owner: "x", Data: []byte("{}"), Expires: now.Add(-time.Hour)})
	s.PutState(ctx, statestore.Record{Kind: "task", ID: "t", Owner: "x", Data: []byte("{}"), Expires: now.Add(time.Hour)})
	total, owned, err := s.CountState(ctx, "session", "x", now)
	if err != nil || total != 3 || owned != 2 {
		t.Errorf("count: %d %d %v; want 3 and 2", total, owned, err)
	}
}

func testMessages(t *testing.T, open Opener) {
	a, b := open(t), open(t)
	ctx := t.Context()
	exp := time.Now().Add(time.Hour)
	var seqs []int64
	for i, s := range []statestore.Store{a, b, a} {
		seq, err := s.AppendMessage(ctx, "stream:1", []byte(fmt.Sprint("m", i)), exp)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, seq)
	}
	if !(seqs[0] < seqs[1] && seqs[1] < seqs[2]) {
		t.Errorf("sequence numbers not increasing: %v", seqs)
	}
	b.AppendMessage(ctx, "stream:2", []byte("other"), exp)
	msgs, err := b.Messages(ctx, "stream:1", 0, time.Now(), 10)
	if err != nil || len(msgs) != 3 || string(msgs[0].Data) != "m0" || string(msgs[2].Data) != "m2" {
		t.Fatalf("messages: %v %v", msgs, err)
	}
	after, _ := a.Messages(ctx, "stream:1", msgs[0].Seq, time.Now(), 10)
	if len(after) != 2 || string(after[0].Data) != "m1" {
		t.Errorf("after the first: %v", after)
	}
	if lim, _ := a.Messages(ctx, "stream:1", 0, time.Now(), 1); len(lim) != 1 {
		t.Errorf("limit 1: %d", len(lim))
	}
	if err := a.DeleteMessages(ctx, "stream:1"); err != nil {
		t.Fatal(err)
	}
	if left, _ := b.Messages(ctx, "stream:1", 0, time.Now(), 10); len(left) != 0 {
		t.Errorf("after delete: %v", left)
	}
	if other, _ := b.Messages(ctx, "stream:2", 0, time.Now(), 10); len(other) != 1 {
		t.Errorf("another channel lost its message: %v", other)
	}
}

// testMessagesConcurrent: appends from two replicas to one channel are
// read in sequence order, and a reader that follows the channel with
// "after the last seen" never skips one.
func testMessagesConcurrent(t *testing.T, open Opener) {
	a, b := open(t), open(t)
	ctx := t.Context()
	exp := time.Now().Add(time.Hour)
	const per = 25
	var wg sync.WaitGroup
	for _, s := range []statestore.Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				if _, err := s.AppendMessage(ctx, "answers", []byte("x"), exp); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	seen, last := 0, int64(0)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		msgs, err := a.Messages(ctx, "answers", last, time.Now(), 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Seq <= last {
				t.Fatalf("out of order: %d after %d", m.Seq, last)
			}
			last = m.Seq
			seen++
		}
	}
	if seen != 2*per {
		t.Errorf("a follower saw %d of %d messages", seen, 2*per)
	}
}
