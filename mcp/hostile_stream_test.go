package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// Legacy streams under attack: clients that leave mid-call, results too
// large for the resumption log, and more GET streams than anyone needs.

// connWriter is a hand-written http.ResponseWriter standing for one
// connection. It keeps what is written, fails writes past failAt body
// bytes (a connection the client dropped without the server noticing yet),
// and records every use after its handler returned: net/http recycles a
// real writer's buffer then, for another connection.
type connWriter struct {
	mu       sync.Mutex
	header   http.Header
	status   int
	body     bytes.Buffer
	failAt   int // 0: never
	returned bool
	late     []string
}

func newConnWriter(failAt int) *connWriter {
	return &connWriter{header: http.Header{}, failAt: failAt}
}

func (w *connWriter) use(what string) {
	if w.returned {
		w.late = append(w.late, what)
	}
}

func (w *connWriter) Header() http.Header {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.use("Header")
	return w.header
}

func (w *connWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.use("WriteHeader")
	if w.status == 0 {
		w.status = code
	}
}

func (w *connWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.use("Write")
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.failAt > 0 && w.body.Len()+len(b) > w.failAt {
		return 0, errors.New("connection reset by peer")
	}
	return w.body.Write(b)
}

func (w *connWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.use("Flush")
}

// handlerReturned marks the end of the handler: any later use is late.
func (w *connWriter) handlerReturned() {
	w.mu.Lock()
	w.returned = true
	w.mu.Unlock()
}

func (w *connWriter) lateUses() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.late...)
}

// streamFixture serves the peer fixture with peer_step, a tool a test
// steps through, behind an admission that reports how each call's work
// ended (mcp.CallFault at release) and a hook that reports each result.
type streamFixture struct {
	*peerFixture
	h       *mcp.HTTPHandler
	started chan struct{}
	proceed chan struct{}
	ends    chan error
	results chan *tool.Result
}

type peerStepIn struct {
	Size int  `json:"size" default:"0" min:"0" max:"16000000" desc:"Bytes of result"`
	Wait bool `json:"wait" default:"false" desc:"Wait for the test before reporting progress"`
}

func newStreamFixture(t *testing.T, opts *mcp.HTTPOptions) *streamFixture {
	t.Helper()
	f := &streamFixture{
		peerFixture: newPeerFixture(t),
		started:     make(chan struct{}, 16),
		proceed:     make(chan struct{}),
		ends:        make(chan error, 16),
		results:     make(chan *tool.Result, 16),
	}
	tool.Add(f.reg, peerDef("peer_step", "Begins its work, optionally waits for the test, reports progress twice, then answers size bytes."),
		func(ctx context.Context, c *tool.Call, in peerStepIn) (string, error) {
			ctx, err := c.Begin(ctx)
			if err != nil {
				return "", err
			}
			f.started <- struct{}{}
			if in.Wait {
				select {
				case <-f.proceed:
				case <-ctx.Done():
					return "", ctx.Err()
				}
			}
			c.Progress(1, 2, "half")
			c.Progress(2, 2, "all")
			return strings.Repeat("r", in.Size), nil
		})
	srv := mcp.NewServer(f.reg, &mcp.Options{
		Name: "warden-test", Version: "0.0.0-test", StateKey: peerStateKey,
		Middleware: []tool.Middleware{
			func(next tool.Handler) tool.Handler {
				return func(ctx context.Context, c *tool.Call) tool.Outcome {
					out := next(ctx, c)
					f.results <- out.Result
					return out
				}
			},
			// An admission stage: the release waits for the transport
			// to settle the call, then asks whether it failed through
			// the server.
			func(next tool.Handler) tool.Handler {
				return func(ctx context.Context, c *tool.Call) tool.Outcome {
					admitted := false
					c.SetAdmission(func(ctx context.Context) (context.Context, error) {
						admitted = true
						return ctx, nil
					})
					out := next(ctx, c)
					if admitted {
						release := func() { f.ends <- c.Fault() }
						if !c.Settle(release) {
							release()
						}
					}
					return out
				}
			},
		},
	})
	t.Cleanup(srv.Close)
	f.h = mcp.NewHTTPHandler(srv, opts)
	t.Cleanup(f.h.Close)
	return f
}

// request builds a legacy request of session sid (none when empty).
func legacyRequest(ctx context.Context, method, sid, body string) *http.Request {
	r := httptest.NewRequestWithContext(ctx, method, "http://127.0.0.1/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		r.Header.Set("Mcp-Session-Id", sid)
	}
	return r
}

// openSession runs the legacy handshake in process and returns the
// session id.
func (f *streamFixture) openSession(t *testing.T) string {
	t.Helper()
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, legacyRequest(context.Background(), "POST", "",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`))
	sid := w.Header().Get("Mcp-Session-Id")
	if w.Code != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	f.h.ServeHTTP(w, legacyRequest(context.Background(), "POST", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if w.Code != http.StatusAccepted {
		t.Fatalf("initialized: %d", w.Code)
	}
	return sid
}

// resume reads a call's stream again from Last-Event-ID, as a client that
// lost it does; the server ends the stream once the call's outcome is
// sent.
func (f *streamFixture) resume(t *testing.T, sid, lastEventID string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := legacyRequest(ctx, "GET", sid, "")
	r.Header.Set("Accept", "text/event-stream")
	r.Header.Set("Last-Event-ID", lastEventID)
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	if ctx.Err() != nil {
		t.Errorf("the resumed stream did not end with the call's outcome; it carried %d bytes", w.Body.Len())
	}
	return w.Body.String()
}

func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10 s", what)
	}
	var zero T
	return zero
}

func stepCall(id, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"peer_step","arguments":{` + args + `},"_meta":{"progressToken":"p"}}}`
}

// TestHostileWriteAfterClientLeft: a legacy tools/call with a progress
// token over SSE, whose client closes the connection right after sending,
// runs on after its handler returned; its progress must not start the
// stream on the finished ResponseWriter (a data race, and a nil
// dereference when net/http has recycled the writer's buffer, which made
// the call an internal_error that was charged). The call ends normally,
// its admission sees no fault, and the client can collect its progress
// and result by resuming the stream.
func TestHostileWriteAfterClientLeft(t *testing.T) {
	f := newStreamFixture(t, nil)
	sid := f.openSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	w := newConnWriter(0)
	returned := make(chan struct{})
	go func() {
		f.h.ServeHTTP(w, legacyRequest(ctx, "POST", sid, stepCall("5", `"size":10,"wait":true`)))
		w.handlerReturned()
		close(returned)
	}()
	wait(t, f.started, "start of peer_step")
	cancel() // the client closes its socket
	wait(t, returned, "return of the POST handler")
	close(f.proceed) // progress and the result come after the handler returned

	if res := wait(t, f.results, "result"); res.IsError {
		t.Errorf("the call failed: %s (%+v)", res.ErrorCode, res.Content)
	}
	if fault := wait(t, f.ends, "admission release"); fault != nil {
		t.Errorf("the call was served, but its admission was told %v", fault)
	}
	body := f.resume(t, sid, "1-0")
	if late := w.lateUses(); len(late) > 0 {
		t.Errorf("the response writer was used after its handler returned: %v", late)
	}
	if n := strings.Count(body, "notifications/progress"); n != 2 || !strings.Contains(body, `"id":5,"result"`) {
		t.Errorf("resumed stream: %d progress events, result %v:\n%s", n, strings.Contains(body, `"id":5,"result"`), trunc([]byte(body)))
	}
}

// TestHostileDetachedLargeResult: a legacy call's stream breaks under a
// result of 2 MiB, over the 1 MiB log of recent events. The result must
// wait for the client whatever its size, and resuming the stream must
// deliver it instead of hanging on keep-alives.
func TestHostileDetachedLargeResult(t *testing.T) {
	f := newStreamFixture(t, nil)
	sid := f.openSession(t)
	const size = 2 << 20
	w := newConnWriter(64 << 10) // the connection breaks under the result
	f.h.ServeHTTP(w, legacyRequest(context.Background(), "POST", sid, stepCall("6", fmt.Sprintf(`"size":%d`, size))))
	if res := wait(t, f.results, "result"); res.IsError {
		t.Fatalf("the call failed: %+v", res.Content)
	}
	if fault := wait(t, f.ends, "admission release"); fault != nil {
		t.Errorf("the result was kept, but the admission was told %v", fault)
	}
	body := f.resume(t, sid, "1-2") // the client saw both progress events
	if !strings.Contains(body, `"id":6,"result"`) || !strings.Contains(body, strings.Repeat("r", size)) {
		t.Errorf("the resumed stream lacks the %d-byte result (%d bytes): %s", size, len(body), trunc([]byte(body)))
	}
	// Delivered, it is gone: resuming again ends at once with nothing.
	if again := f.resume(t, sid, "1-2"); strings.Contains(again, `"id":6`) {
		t.Errorf("the result was delivered twice")
	}
}

// TestHostileDetachedResultPastTheCap: past MaxKeptResultBytes, the
// outcome a client resumes to is a result_too_large error rather than
// nothing, and the call's admission is told the call failed through the
// server (so it does not charge it).
func TestHostileDetachedResultPastTheCap(t *testing.T) {
	f := newStreamFixture(t, &mcp.HTTPOptions{MaxKeptResultBytes: 1 << 20})
	sid := f.openSession(t)
	w := newConnWriter(64 << 10)
	f.h.ServeHTTP(w, legacyRequest(context.Background(), "POST", sid, stepCall("7", `"size":2000000`)))
	wait(t, f.results, "result")
	if fault := wait(t, f.ends, "admission release"); !errors.Is(fault, mcp.ErrServerFault) {
		t.Errorf("admission told %v, want a server fault", fault)
	}
	body := f.resume(t, sid, "1-2")
	_, data, _ := strings.Cut(body, "data: {")
	var msg struct {
		ID    int `json:"id"`
		Error struct {
			Code int `json:"code"`
			Data struct {
				Code       string `json:"code"`
				LimitBytes int    `json:"limitBytes"`
			} `json:"data"`
		} `json:"error"`
	}
	line, _, _ := strings.Cut("{"+data, "\n")
	if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.ID != 7 || msg.Error.Code != mcp.CodeInternalError ||
		msg.Error.Data.Code != "result_too_large" || msg.Error.Data.LimitBytes != 1<<20 {
		t.Errorf("resumed stream: %v %+v\n%s", err, msg, trunc([]byte(body)))
	}
}

// TestHostileSessionEndedByServer: a call cut short because the server
// ended its session (shutdown) failed through no fault of its caller; one
// cut short by the client's DELETE did not.
func TestHostileSessionEndedByServer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		end   func(f *streamFixture, sid string)
		fault bool
	}{
		{"server", func(f *streamFixture, _ string) { f.h.Close() }, true},
		{"client", func(f *streamFixture, sid string) {
			f.h.ServeHTTP(httptest.NewRecorder(), legacyRequest(context.Background(), "DELETE", sid, ""))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newStreamFixture(t, nil)
			sid := f.openSession(t)
			go f.h.ServeHTTP(newConnWriter(0), legacyRequest(context.Background(), "POST", sid, stepCall("8", `"wait":true`)))
			wait(t, f.started, "start of peer_step")
			tc.end(f, sid)
			fault := wait(t, f.ends, "admission release")
			if got := errors.Is(fault, mcp.ErrServerFault); got != tc.fault {
				t.Errorf("CallFault = %v, want a server fault: %v", fault, tc.fault)
			}
		})
	}
}

// getStreams opens legacy GET streams over real connections and tells
// when the server has let one go.
type getStreams struct {
	ts     *httptest.Server
	closed chan struct{} // one per GET whose handler returned
}

func newGetStreams(t *testing.T, opts *mcp.HTTPOptions) *getStreams {
	t.Helper()
	fx := newPeerFixture(t)
	if opts == nil {
		opts = &mcp.HTTPOptions{}
	}
	// The caller is named by a header, standing for authentication.
	opts.Wrap = func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithCaller(r.Context(), r.Header.Get("X-Test-Caller"))))
		})
	}
	h := mcp.NewHTTPHandler(fx.srv, opts)
	g := &getStreams{closed: make(chan struct{}, 1024)}
	g.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.Method == "GET" {
			g.closed <- struct{}{}
		}
	}))
	t.Cleanup(g.ts.Close)
	t.Cleanup(h.Close)
	return g
}

func (g *getStreams) session(t *testing.T, caller string) string {
	t.Helper()
	return openLegacySession(t, g.ts.Client(), g.ts.URL+"/mcp", "X-Test-Caller", caller)
}

// open opens a GET stream and returns its status; an open stream is
// closed at cleanup, or by calling the returned function.
func (g *getStreams) open(t *testing.T, caller, sid string) (int, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", g.ts.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("X-Test-Caller", caller)
	resp, err := g.ts.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	closeIt := func() {
		cancel()
		resp.Body.Close()
	}
	t.Cleanup(closeIt)
	if resp.StatusCode != 200 {
		var msg struct {
			Error struct{ Code int } `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil || msg.Error.Code != mcp.CodeInternalError || resp.Header.Get("Retry-After") == "" {
			t.Errorf("refused GET: %d, error %+v (%v), Retry-After %q", resp.StatusCode, msg, err, resp.Header.Get("Retry-After"))
		}
	}
	return resp.StatusCode, closeIt
}

// TestHostileGETStreamCaps: legacy GET streams are capped per session,
// per caller and server-wide, and a stream that ends makes room again.
func TestHostileGETStreamCaps(t *testing.T) {
	g := newGetStreams(t, &mcp.HTTPOptions{MaxGETStreams: 6, MaxGETStreamsPerSession: 2, MaxGETStreamsPerCaller: 4})
	a1, a2, a3 := g.session(t, "a"), g.session(t, "a"), g.session(t, "a")
	b1, b2 := g.session(t, "b"), g.session(t, "b")
	var closeA1 func()
	steps := []struct {
		caller, sid string
		want        int
	}{
		{"a", a1, 200}, {"a", a1, 200},
		{"a", a1, 503}, // per session
		{"a", a2, 200}, {"a", a2, 200},
		{"a", a3, 503}, // per caller
		{"b", b1, 200},
		{"b", b2, 200},
		{"b", b2, 503}, // server-wide
	}
	for i, s := range steps {
		status, closeIt := g.open(t, s.caller, s.sid)
		if status != s.want {
			t.Fatalf("step %d (%s): status %d, want %d", i, s.caller, status, s.want)
		}
		if i == 0 {
			closeA1 = closeIt
		}
	}
	// Drain the handler returns of the refused GETs, then end one stream.
	for range 3 {
		wait(t, g.closed, "refused GET")
	}
	closeA1()
	wait(t, g.closed, "end of a GET stream")
	if status, _ := g.open(t, "a", a3); status != 200 {
		t.Errorf("after a stream ended: status %d, want 200", status)
	}
}

// TestHostileGETStreamDefaultCap: without options, one session cannot
// open more than 8 GET streams (an attack run opened 110 on one).
func TestHostileGETStreamDefaultCap(t *testing.T) {
	g := newGetStreams(t, nil)
	sid := g.session(t, "")
	for i := range 8 {
		if status, _ := g.open(t, "", sid); status != 200 {
			t.Fatalf("stream %d: status %d", i, status)
		}
	}
	if status, _ := g.open(t, "", sid); status != http.StatusServiceUnavailable {
		t.Errorf("ninth stream: status %d, want 503", status)
	}
}
