package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/statestore"
)

// ctxStore answers as a database does: a call whose context has ended
// fails with the context's error; down makes every read fail.
type ctxStore struct {
	statestore.Store
	down error
}

func (s *ctxStore) GetState(ctx context.Context, kind, id string, now time.Time) (statestore.Record, error) {
	if err := ctx.Err(); err != nil {
		return statestore.Record{}, err
	}
	if s.down != nil {
		return statestore.Record{}, s.down
	}
	return s.Store.GetState(ctx, kind, id, now)
}

// logBuffer collects log records, safe for the handler's goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestHostileDisconnectIsNotAnError: a client that leaves while its
// session or task is being read from the store is not a server error:
// nothing is logged at ERROR. A store that fails while the client waits
// still is.
func TestHostileDisconnectIsNotAnError(t *testing.T) {
	fx := newPeerFixture(t)
	requests := map[string]func() *http.Request{
		"a legacy session": func() *http.Request {
			body := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
			r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			r.Header.Set("Mcp-Session-Id", "a-session-another-replica-opened")
			return r
		},
		"a task": func() *http.Request {
			body := modernBody("2", "tasks/get", `"taskId":"a-task-another-replica-runs"`)
			body = strings.Replace(body, `clientCapabilities":{}`, `clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, 1)
			r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
			r.Header = modernHeaders("tasks/get")
			r.Header.Set("Mcp-Name", "a-task-another-replica-runs")
			return r
		},
	}
	for name, newRequest := range requests {
		t.Run(name, func(t *testing.T) {
			for _, tt := range []struct {
				why       string
				down      error
				leave     bool
				wantError bool
			}{
				{"the client left", nil, true, false},
				{"the store is down", errors.New("connection refused"), false, true},
			} {
				logs := &logBuffer{}
				st := &ctxStore{Store: statestore.NewMemory(), down: tt.down}
				logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				srv := mcp.NewServer(fx.reg, &mcp.Options{State: st, Tasks: true, Logger: logger})
				t.Cleanup(srv.Close)
				h := mcp.NewHTTPHandler(srv, &mcp.HTTPOptions{Logger: logger})
				t.Cleanup(h.Close)
				r := newRequest()
				if tt.leave {
					ctx, cancel := context.WithCancel(r.Context())
					cancel()
					r = r.WithContext(ctx)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				if got := strings.Contains(logs.String(), "level=ERROR"); got != tt.wantError {
					t.Errorf("%s: logged at ERROR: %v, want %v\n%s", tt.why, got, tt.wantError, logs)
				}
			}
		})
	}
}
