package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/warden-mcp/warden/redact"
)

// newLogger returns a text logger on w at the named level. No credential
// reaches it: the message and every text attribute (an error's cause
// among them, which may quote a tool's arguments) pass through the
// credential pass first (redact.NewLogHandler), whatever the privacy mode.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	l, err := parseLevel(level)
	if err != nil {
		return nil, err
	}
	return slog.New(redact.NewLogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}), nil)), nil
}

func parseLevel(level string) (slog.Level, error) {
	switch strings.ToLower(level) {
	case "debug":
		return slog.LevelDebug, nil
	case "info", "":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown log level %q (want debug, info, warn or error)", level)
}

// logFlushDelay is the longest an info or debug line waits in a server
// logger's buffer.
const logFlushDelay = 100 * time.Millisecond

// logBufferBytes is how much a server logger's buffer holds before it is
// written out at once.
const logBufferBytes = 32 << 10

// newServerLogger is newLogger for a server that logs a line per request:
// lines are written to w in batches, so that a busy server does not pay a
// write system call for each. A line waits at most logFlushDelay; a line
// at warn or above is written at once, with every line before it. flush
// writes what waits, and every line after it at once; call it when the
// server has stopped.
func newServerLogger(w io.Writer, level string) (logger *slog.Logger, flush func(), err error) {
	l, err := parseLevel(level)
	if err != nil {
		return nil, nil, err
	}
	b := &lineBuffer{w: w, delay: logFlushDelay, limit: logBufferBytes}
	h := redact.NewLogHandler(slog.NewTextHandler(b, &slog.HandlerOptions{Level: l}), nil)
	return slog.New(urgentFlush{h, b}), b.Close, nil
}

// lineBuffer collects whole writes (log lines) and writes them to w
// together: when limit bytes have collected, when Flush is called, and
// delay after the first write that found it empty.
type lineBuffer struct {
	w     io.Writer
	delay time.Duration
	limit int

	mu     sync.Mutex
	buf    []byte
	armed  bool // a flush is scheduled
	closed bool // writes go straight through
}

// Write keeps p for a later write. It never fails: an error of the
// underlying writer is reported to nobody, as a logger would.
func (b *lineBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		_, _ = b.w.Write(p)
		return len(p), nil
	}
	b.buf = append(b.buf, p...)
	switch {
	case len(b.buf) >= b.limit:
		b.flushLocked()
	case !b.armed:
		b.armed = true
		time.AfterFunc(b.delay, b.Flush)
	}
	return len(p), nil
}

// Flush writes what waits.
func (b *lineBuffer) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
	b.armed = false
}

// Close writes what waits; later writes go straight to w.
func (b *lineBuffer) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
	b.closed = true
}

func (b *lineBuffer) flushLocked() {
	if len(b.buf) == 0 {
		return
	}
	_, _ = b.w.Write(b.buf)
	if cap(b.buf) > 4*b.limit {
		b.buf = nil // a burst of long lines: do not keep its memory
	} else {
		b.buf = b.buf[:0]
	}
}

// urgentFlush writes a record at warn or above at once, with every line
// buffered before it.
type urgentFlush struct {
	slog.Handler
	b *lineBuffer
}

func (h urgentFlush) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.b.Flush()
	}
	return err
}

func (h urgentFlush) WithAttrs(attrs []slog.Attr) slog.Handler {
	return urgentFlush{h.Handler.WithAttrs(attrs), h.b}
}

func (h urgentFlush) WithGroup(name string) slog.Handler {
	return urgentFlush{h.Handler.WithGroup(name), h.b}
}
