package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the flush timer's goroutine.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A server logger writes request lines in batches: none before the
// delay, all of them in one write after it, in order.
func TestServerLoggerBatchesLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		log, flush, err := newServerLogger(&out, "info")
		if err != nil {
			t.Fatal(err)
		}
		defer flush()
		for i := range 3 {
			log.Info("http request", "n", i)
		}
		log.Debug("not at this level")
		if got := out.String(); got != "" {
			t.Fatalf("lines written before the delay: %q", got)
		}
		time.Sleep(logFlushDelay)
		synctest.Wait()
		got := out.String()
		if n := strings.Count(got, "http request"); n != 3 || out.writes != 1 {
			t.Fatalf("after the delay: %d lines in %d writes, want 3 in 1:\n%s", n, out.writes, got)
		}
		if i, j := strings.Index(got, "n=0"), strings.Index(got, "n=2"); i < 0 || j < i {
			t.Errorf("lines out of order:\n%s", got)
		}
		if strings.Contains(got, "not at this level") {
			t.Error("a debug line was written at level info")
		}
	})
}

// A warning is written at once, after the lines before it; flush writes
// the rest.
func TestServerLoggerWarningsAtOnce(t *testing.T) {
	var out lockedBuffer
	log, flush, err := newServerLogger(&out, "")
	if err != nil {
		t.Fatal(err)
	}
	log.Info("first")
	log.With("k", "v").Warn("store unavailable")
	got := out.String()
	if !strings.Contains(got, "first") || !strings.Contains(got, "store unavailable") || strings.Index(got, "first") > strings.Index(got, "store unavailable") {
		t.Fatalf("after a warning:\n%s", got)
	}
	log.Info("last")
	if strings.Contains(out.String(), "last") {
		t.Fatal("an info line was written at once")
	}
	flush()
	if !strings.Contains(out.String(), "last") {
		t.Error("flush left a line unwritten")
	}
	log.Info("after the server stopped")
	if !strings.Contains(out.String(), "after the server stopped") {
		t.Error("a line after flush waited")
	}
}

// A full buffer is written without waiting for the delay.
func TestServerLoggerBufferBound(t *testing.T) {
	var out lockedBuffer
	b := &lineBuffer{w: &out, delay: time.Hour, limit: 100}
	line := []byte(strings.Repeat("x", 40) + "\n")
	for range 2 {
		b.Write(line)
	}
	if out.writes != 0 {
		t.Fatalf("%d writes below the bound", out.writes)
	}
	b.Write(line)
	if out.writes != 1 || len(out.String()) != 3*len(line) {
		t.Errorf("at the bound: %d writes of %d bytes, want 1 of %d", out.writes, len(out.String()), 3*len(line))
	}
}

func TestServerLoggerLevel(t *testing.T) {
	if _, _, err := newServerLogger(&lockedBuffer{}, "loud"); err == nil {
		t.Error("unknown level accepted")
	}
}
