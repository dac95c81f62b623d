package policy

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/warden-mcp/warden/errcode"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
)

type progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
	Message  string  `json:"message"`
}

// callWithProgress calls a tool with a progress token; every progress
// notification goes to notes.
func (f *fixture) callWithProgress(ctx context.Context, p auth.Principal, name, args string, notes chan<- progress) (code string, raw string) {
	ctx = auth.WithPrincipal(ctx, p)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args +
		`,"_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	sink := mcp.SinkFunc(func(b []byte) error {
		var n struct {
			Method string   `json:"method"`
			Params progress `json:"params"`
		}
		if json.Unmarshal(b, &n) == nil && n.Method == "notifications/progress" {
			notes <- n.Params
		}
		return nil
	})
	out := f.srv.ServeMessage(ctx, []byte(msg), sink)
	var resp struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	_ = json.Unmarshal(out, &resp)
	if len(resp.Result.Content) == 0 {
		return "no_result", string(out)
	}
	if resp.Result.IsError {
		code, _, _ = strings.Cut(resp.Result.Content[0].Text, ":")
		return code, string(out)
	}
	return "ok", string(out)
}

func localFixture(t *testing.T, q *Queue) *fixture {
	t.Helper()
	f := newFixture(t, limits.Config{MaxConcurrentScans: 1, MonthlyScans: -1, ScanRate: limits.RatePolicy{Limit: 1000, Window: time.Second}})
	f.ctl.Queue = q
	return f
}

func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	panic("unreachable")
}

// With the queue on, a call that finds the slot taken waits in line,
// reporting progress, and runs when the slot frees: the release wakes it
// (the poll interval here is an hour, so nothing else could).
func TestQueueWaitsInsteadOfRefusing(t *testing.T) {
	f := localFixture(t, &Queue{Poll: time.Hour})
	ctx := context.Background()
	first := make(chan string, 1)
	go func() {
		code, _ := f.call(ctx, alice, "metered_slow", `{"target":"one"}`)
		first <- code
	}()
	if got := waitFor(t, f.began, "the first scan"); got != "one" {
		t.Fatalf("began %q", got)
	}
	notes := make(chan progress, 16)
	second := make(chan string, 1)
	go func() {
		code, _ := f.callWithProgress(ctx, alice, "metered_slow", `{"target":"two"}`, notes)
		second <- code
	}()
	n := waitFor(t, notes, "a progress notification from the waiting call")
	if !strings.HasPrefix(n.Message, "waiting for a scan slot (") || n.Progress != 0 || n.Total != 0 {
		t.Errorf("first notification: %+v", n)
	}
	select {
	case got := <-f.began:
		t.Fatalf("%q began while the slot was taken", got)
	default:
	}
	close(f.gate) // the first scan ends and frees the slot
	if got := waitFor(t, f.began, "the second scan"); got != "two" {
		t.Fatalf("began %q", got)
	}
	if code := waitFor(t, first, "the first result"); code != "ok" {
		t.Errorf("first: %q", code)
	}
	if code := waitFor(t, second, "the second result"); code != "ok" {
		t.Errorf("second: %q", code)
	}
	if w := f.ctl.line.waiting(alice.Credential); w != 0 {
		t.Errorf("%d calls still in line", w)
	}
}

// The line is bounded: past MaxWaiting a call is refused at once with the
// code that held it back, a note that says why, and retryAfterSeconds.
func TestQueueBoundRefuses(t *testing.T) {
	f := localFixture(t, &Queue{MaxWaiting: 1, Poll: time.Hour})
	ctx := context.Background()
	done := make(chan string, 2)
	go func() { code, _ := f.call(ctx, alice, "metered_slow", `{"target":"one"}`); done <- code }()
	waitFor(t, f.began, "the first scan")
	notes := make(chan progress, 16)
	go func() {
		code, _ := f.callWithProgress(ctx, alice, "metered_slow", `{"target":"two"}`, notes)
		done <- code
	}()
	waitFor(t, notes, "the second call waiting")
	code, raw := f.callWithProgress(ctx, alice, "metered", `{"target":"three"}`, make(chan progress, 16))
	if code != "too_many_concurrent_scans" || !strings.Contains(raw, "the line of 1 waiting call is full") || !strings.Contains(raw, `"retryAfterSeconds":`) {
		t.Errorf("third call: %q %s", code, raw)
	}
	close(f.gate)
	for i := 0; i < 2; i++ {
		if code := waitFor(t, done, "a result"); code != "ok" {
			t.Errorf("queued call ended %q", code)
		}
	}
}

// A call waits at most MaxWait, then is refused with retryAfterSeconds.
func TestQueueMaxWait(t *testing.T) {
	f := localFixture(t, &Queue{MaxWait: 50 * time.Millisecond, Poll: 10 * time.Millisecond})
	ctx := context.Background()
	done := make(chan string, 1)
	go func() { code, _ := f.call(ctx, alice, "metered_slow", `{"target":"one"}`); done <- code }()
	waitFor(t, f.began, "the first scan")
	code, raw := f.callWithProgress(ctx, alice, "metered", `{"target":"two"}`, make(chan progress, 64))
	if code != "too_many_concurrent_scans" || !strings.Contains(raw, "waited 50ms for a slot") || !strings.Contains(raw, `"retryAfterSeconds":`) {
		t.Errorf("after the wait: %q %s", code, raw)
	}
	close(f.gate)
	waitFor(t, done, "the first result")
}

// A client that gives up while waiting leaves the line, and its call ends
// cancelled, not admitted.
func TestQueueHonoursCancellation(t *testing.T) {
	f := localFixture(t, &Queue{Poll: time.Hour})
	done := make(chan string, 1)
	go func() {
		code, _ := f.call(context.Background(), alice, "metered_slow", `{"target":"one"}`)
		done <- code
	}()
	waitFor(t, f.began, "the first scan")
	ctx, cancel := context.WithCancel(context.Background())
	notes := make(chan progress, 16)
	second := make(chan string, 1)
	go func() {
		code, _ := f.callWithProgress(ctx, alice, "metered_slow", `{"target":"two"}`, notes)
		second <- code
	}()
	waitFor(t, notes, "the second call waiting")
	cancel()
	if code := waitFor(t, second, "the cancelled call"); code != "cancelled" {
		t.Errorf("cancelled call ended %q", code)
	}
	if w := f.ctl.line.waiting(alice.Credential); w != 0 {
		t.Errorf("%d calls still in line", w)
	}
	close(f.gate)
	waitFor(t, done, "the first result")
	select {
	case got := <-f.began:
		t.Errorf("the cancelled call %q began", got)
	default:
	}
}

// Calls wait in the order they came.
func TestQueueIsFirstComeFirstServed(t *testing.T) {
	f := localFixture(t, &Queue{Poll: time.Hour})
	f.gate = make(chan struct{}, 8) // one token per scan allowed to finish
	ctx := context.Background()
	done := make(chan string, 8)
	go func() { code, _ := f.call(ctx, alice, "metered_slow", `{"target":"t0"}`); done <- code }()
	waitFor(t, f.began, "the first scan")
	notes := make(chan progress, 64)
	for _, target := range []string{"t1", "t2", "t3"} {
		go func() {
			code, _ := f.callWithProgress(ctx, alice, "metered_slow", `{"target":"`+target+`"}`, notes)
			done <- code
		}()
		waitFor(t, notes, target+" waiting")
	}
	for _, want := range []string{"t1", "t2", "t3"} {
		f.gate <- struct{}{}
		if got := waitFor(t, f.began, want); got != want {
			t.Errorf("began %q, want %q", got, want)
		}
	}
	f.gate <- struct{}{}
	for i := 0; i < 4; i++ {
		if code := waitFor(t, done, "a result"); code != "ok" {
			t.Errorf("ended %q", code)
		}
	}
}

// Without a queue (hosted), the same calls are refused at once, and every
// refusal a retry can cure says when to retry.
func TestRefusalsCarryRetryAfter(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int64 // 0: no hint
	}{
		{&errcode.Error{Code: string(limits.CodeTooManyConcurrentScans), Message: "m", RetryAfter: 90 * time.Second}, 90},
		{&errcode.Error{Code: string(limits.CodeTooManyConcurrentScans), Message: "m"}, 1},
		{&errcode.Error{Code: string(limits.CodeScannerBusy), Message: "m", RetryAfter: 1500 * time.Millisecond}, 2},
		{&errcode.Error{Code: string(limits.CodeDuplicateScan), Message: "m"}, 10},
		{&errcode.Error{Code: string(limits.CodeRateLimitExceeded), Message: "m", RetryAfter: 30 * time.Second}, 30},
		{&errcode.Error{Code: string(limits.CodeQuotaExceeded), Message: "m", RetryAfter: 48 * time.Hour}, 172800},
		{&errcode.Error{Code: string(limits.CodeLeaseLost), Message: "m"}, 1},
		{&errcode.Error{Code: string(limits.CodeQuotaUnavailable), Message: "m", RetryAfter: 2 * time.Second}, 2},
		{&errcode.Error{Code: string(limits.CodeScanSlotsUnavailable), Message: "m", RetryAfter: 2 * time.Second}, 2},
		{&errcode.Error{Code: string(limits.CodeAuditUnavailable), Message: "m"}, 1},
		{errors.New("store exploded"), 2},
		{&errcode.Error{Code: string(limits.CodeIdempotencyConflict), Message: "m"}, 0},
		{&errcode.Error{Code: string(limits.CodeInvalidRequest), Message: "m"}, 0},
	} {
		te := limitError(c.err)
		got, _ := te.Details["retryAfterSeconds"].(int64)
		if got != c.want {
			t.Errorf("%v: retryAfterSeconds %v, want %d", c.err, te.Details, c.want)
		}
	}

	f := newFixture(t, limits.Config{MaxConcurrentScans: 1, MonthlyScans: 100, ScanRate: limits.RatePolicy{Limit: 100, Window: time.Minute}})
	ctx := context.Background()
	done := make(chan string, 1)
	go func() { code, _ := f.call(ctx, alice, "metered_slow", `{"target":"one"}`); done <- code }()
	waitFor(t, f.began, "the first scan")
	for _, c := range []struct{ tool, target, code string }{
		{"metered", "two", "too_many_concurrent_scans"},
		{"metered_slow", "one", "duplicate_scan"},
	} {
		code, raw := f.callWithProgress(ctx, alice, c.tool, `{"target":"`+c.target+`"}`, make(chan progress, 4))
		if code != c.code || !strings.Contains(raw, `"retryAfterSeconds":`) {
			t.Errorf("%s: %q %s", c.target, code, raw)
		}
	}
	close(f.gate)
	waitFor(t, done, "the first result")

	// The transport limit's refusal says it in its body too.
	f = newFixture(t, limits.Config{Transport: limits.RatePolicy{Limit: 1, Window: time.Minute}})
	h := f.ctl.RateLimit(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	var rec *httptest.ResponseRecorder
	for i := 0; i < 2; i++ {
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil).WithContext(auth.WithPrincipal(ctx, alice)))
	}
	var body struct {
		Error struct {
			Code              string `json:"code"`
			RetryAfterSeconds int64  `json:"retryAfterSeconds"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != 429 || body.Error.Code != "rate_limited" || body.Error.RetryAfterSeconds < 59 {
		t.Errorf("429 body: %d %s", rec.Code, rec.Body)
	}
}

// A local call that finds the store too busy to answer in time waits in
// line as it would for a slot, asking again at each poll, and runs once
// the store answers: before, the third of three concurrent large opens was
// refused with scan_slots_unavailable while the other two held the store.
func TestQueueWaitsForABusyStore(t *testing.T) {
	f, os := outageFixture(t, 0)
	f.ctl.Queue = &Queue{Poll: 10 * time.Millisecond}
	os.down.Store(true)
	notes := make(chan progress, 16)
	done := make(chan string, 1)
	go func() {
		code, raw := f.callWithProgress(context.Background(), alice, "metered", `{"target":"one"}`, notes)
		if code != "ok" {
			code += " " + raw
		}
		done <- code
	}()
	n := waitFor(t, notes, "a progress notification from the waiting call")
	if !strings.HasPrefix(n.Message, "waiting for the store that keeps the scan slots to answer (") {
		t.Errorf("notification: %+v", n)
	}
	os.down.Store(false)
	if code := waitFor(t, done, "the call"); code != "ok" {
		t.Fatalf("the call: %s", code)
	}
	// It was charged once, under the call id of the attempt that was
	// admitted, and the attempts the store did not answer left nothing.
	if n := f.lim.Settle(context.Background()); n != 0 {
		t.Fatalf("%d cancellations still wait", n)
	}
	u, err := f.lim.Usage(context.Background(), CallerKey(alice))
	if err != nil {
		t.Fatal(err)
	}
	if u.MonthlyUsed != 1 || u.Slots != 0 {
		t.Errorf("after the call: %d charged, %d slots held; want 1 and 0", u.MonthlyUsed, u.Slots)
	}
}

// A store that stays unavailable is reported once the first call in line
// has asked it for MaxStoreWait, not waited on for the ten minutes a slot
// may take.
func TestQueueGivesUpOnABrokenStore(t *testing.T) {
	f, os := outageFixture(t, 0)
	f.ctl.Queue = &Queue{Poll: 10 * time.Millisecond, MaxStoreWait: 200 * time.Millisecond}
	os.down.Store(true)
	start := time.Now()
	code, raw := f.call(context.Background(), alice, "metered", `{"target":"one"}`)
	if code != string(limits.CodeQuotaUnavailable) || !strings.Contains(raw, "the store did not answer for 200ms") {
		t.Fatalf("call on a broken store: %s %s", code, raw)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("refused after %v", took)
	}
}
