package policy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/store/sqlite"
	"github.com/warden-mcp/warden/tool"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	store *sqlite.Store
	lim   *limits.Limiter
	ctl   *Controls
	srv   *mcp.Server
	clk   *clock
	gate  chan struct{} // blocks metered_slow until closed
	began chan string   // metered_slow reports each admission
}

func newFixture(t *testing.T, cfg limits.Config) *fixture {
	t.Helper()
	st, err := sqlite.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	cfg.Now = clk.now
	lim, err := limits.New(st, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: st, lim: lim, clk: clk, gate: make(chan struct{}), began: make(chan string, 16)}
	f.ctl = &Controls{Limiter: lim}
	reg := tool.NewRegistry()
	def := func(name string, quota bool) tool.Def {
		return tool.Def{Name: name, Description: "A test tool.", Annotations: tool.Annotations{ReadOnly: true}, Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto, ConsumesQuota: quota}}
	}
	type target struct {
		Target string `json:"target" desc:"what to scan"`
	}
	tool.Add(reg, def("metered", true), func(ctx context.Context, c *tool.Call, in target) (string, error) {
		if in.Target == "invalid" {
			return "", tool.Errorf("invalid_target", "not a target")
		}
		if _, err := c.Begin(ctx); err != nil {
			return "", err
		}
		return "scanned " + in.Target, nil
	})
	tool.Add(reg, def("metered_slow", true), func(ctx context.Context, c *tool.Call, in target) (string, error) {
		ctx, err := c.Begin(ctx)
		if err != nil {
			return "", err
		}
		f.began <- in.Target
		select {
		case <-f.gate:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return "done", nil
	})
	tool.Add(reg, def("free", false), func(ctx context.Context, c *tool.Call, _ struct{}) (string, error) { return "free", nil })
	tool.Add(reg, def("whoami", false), func(ctx context.Context, c *tool.Call, _ struct{}) (string, error) {
		p, ok := auth.PrincipalFrom(ctx)
		if !ok {
			return "nobody", nil
		}
		return "tenant " + p.Tenant, nil
	})
	f.srv = mcp.NewServer(reg, &mcp.Options{Middleware: f.ctl.Middleware()})
	return f
}

func (f *fixture) call(ctx context.Context, p auth.Principal, name, args string) (code, text string) {
	ctx = auth.WithPrincipal(ctx, p)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	var resp struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	_ = json.Unmarshal(f.srv.ServeMessage(ctx, []byte(msg), nil), &resp)
	if len(resp.Result.Content) == 0 {
		return "no_result", ""
	}
	text = resp.Result.Content[0].Text
	if resp.Result.IsError {
		code, _, _ = strings.Cut(text, ":")
		return code, text
	}
	return "ok", text
}

var alice = auth.Principal{Subject: "alice", Credential: "cred-alice", Tenant: "acme", Entitlements: []string{"metered", "metered_slow", "free"}}

func TestEntitlements(t *testing.T) {
	f := newFixture(t, limits.Config{})
	bob := auth.Principal{Credential: "cred-bob", Tenant: "acme", Entitlements: []string{"free"}}
	code, text := f.call(context.Background(), bob, "metered", `{"target":"x"}`)
	if code != "forbidden" || text != "forbidden: this credential is not entitled to metered; the token's entitlements must include it" {
		t.Errorf("not entitled: %q %q", code, text)
	}
	if code, _ := f.call(context.Background(), bob, "free", `{}`); code != "ok" {
		t.Errorf("entitled: %q", code)
	}
	// No identity at all: refused, not admitted as anyone.
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"free","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	if out := string(f.srv.ServeMessage(context.Background(), []byte(msg), nil)); !strings.Contains(out, "unauthenticated") {
		t.Errorf("anonymous call: %s", out)
	}
}

func TestQuotaChargedOncePerAdmittedCallNeverForValidationFailures(t *testing.T) {
	f := newFixture(t, limits.Config{MonthlyScans: 3, ScanRate: limits.RatePolicy{Limit: 100, Window: time.Minute}})
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if code, _ := f.call(ctx, alice, "metered", `{"target":"invalid"}`); code != "invalid_target" {
			t.Fatalf("validation failure: %q", code)
		}
	}
	for i := 0; i < 3; i++ {
		if code, text := f.call(ctx, alice, "metered", `{"target":"a"}`); code != "ok" {
			t.Fatalf("scan %d: %q %q", i, code, text)
		}
	}
	if code, _ := f.call(ctx, alice, "metered", `{"target":"a"}`); code != "quota_exceeded" {
		t.Errorf("fourth charged scan: %q", code)
	}
	if code, _ := f.call(ctx, alice, "free", `{}`); code != "ok" {
		t.Errorf("free tool after the quota: %q", code)
	}
	recs, err := f.lim.QueryAudit(ctx, limits.AuditFilter{Credential: "cred-alice", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var charged int64
	outcomes := map[string]int{}
	for _, r := range recs {
		charged += r.QuotaCharged
		outcomes[r.Outcome]++
		if r.Tenant != "acme" || r.Tool == "" || r.CorrelationID == "" {
			t.Errorf("audit record fields: %+v", r)
		}
	}
	if charged != 3 || outcomes["invalid_target"] != 5 || outcomes["ok"] != 4 || outcomes["quota_exceeded"] != 1 {
		t.Errorf("audit: charged %d, outcomes %v", charged, outcomes)
	}
}

// Admission bounds arguments in characters, as the tools do: 256,000
// characters escaped as \u00e9 (1.5 MB of JSON) are admitted and charged.
func TestAdmissionCountsCharactersNotBytes(t *testing.T) {
	f := newFixture(t, limits.Config{MonthlyScans: 10})
	text := strings.Repeat(`\u00e9`, 256_000)
	if code, out := f.call(context.Background(), alice, "metered", `{"target":"`+text+`"}`); code != "ok" || !strings.HasPrefix(out, "scanned éé") {
		t.Fatalf("%d characters escaped: %q %.80q", 256_000, code, out)
	}
}

func TestConcurrencySlotsAndDuplicates(t *testing.T) {
	f := newFixture(t, limits.Config{MaxConcurrentScans: 2, MonthlyScans: 100, ScanRate: limits.RatePolicy{Limit: 100, Window: time.Minute}})
	ctx := context.Background()
	var wg sync.WaitGroup
	results := make(chan string, 2)
	for _, target := range []string{"one", "two"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _ := f.call(ctx, alice, "metered_slow", `{"target":"`+target+`"}`)
			results <- code
		}()
	}
	// Wait until both hold slots; a third scan is then refused.
	for i := 0; i < 2; i++ {
		select {
		case <-f.began:
		case code := <-results:
			t.Fatalf("a slow scan ended before the gate opened: %q", code)
		case <-time.After(10 * time.Second):
			t.Fatal("the slow scans were not admitted")
		}
	}
	if code, _ := f.call(ctx, alice, "metered", `{"target":"three"}`); code != "too_many_concurrent_scans" {
		t.Errorf("third concurrent scan: %q", code)
	}
	if code, _ := f.call(ctx, alice, "metered_slow", `{"target":"one"}`); code != "duplicate_scan" {
		t.Errorf("identical running scan: %q", code)
	}
	close(f.gate)
	wg.Wait()
	close(results)
	for code := range results {
		if code != "ok" {
			t.Errorf("slow scan ended %q", code)
		}
	}
	if code, _ := f.call(ctx, alice, "metered", `{"target":"after"}`); code != "ok" {
		t.Errorf("slots were not released: %q", code)
	}
}

func TestFailsClosedWhenTheStoreIsGone(t *testing.T) {
	f := newFixture(t, limits.Config{})
	ctx := context.Background()
	if code, _ := f.call(ctx, alice, "metered", `{"target":"a"}`); code != "ok" {
		t.Fatalf("before: %q", code)
	}
	f.store.Close()
	if code, _ := f.call(ctx, alice, "metered", `{"target":"a"}`); code != "quota_unavailable" {
		t.Errorf("metered call with the store down: %q", code)
	}
	rl := f.ctl.RateLimit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("admitted with the store down") }))
	rec := httptest.NewRecorder()
	rl.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil).WithContext(auth.WithPrincipal(ctx, alice)))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "rate_limit_unavailable") {
		t.Errorf("rate limit with the store down: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}

func TestTransportRateLimit(t *testing.T) {
	f := newFixture(t, limits.Config{Transport: limits.RatePolicy{Limit: 3, Window: time.Minute}})
	ok := 0
	h := f.ctl.RateLimit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ok++ }))
	var last *httptest.ResponseRecorder
	for i := 0; i < 5; i++ {
		last = httptest.NewRecorder()
		h.ServeHTTP(last, httptest.NewRequest("POST", "/mcp", nil).WithContext(auth.WithPrincipal(context.Background(), alice)))
	}
	if ok != 3 || last.Code != http.StatusTooManyRequests || last.Header().Get("Retry-After") == "" || last.Header().Get("RateLimit") == "" {
		t.Errorf("admitted %d; last %d %v", ok, last.Code, last.Header())
	}
	f.clk.add(61 * time.Second)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil).WithContext(auth.WithPrincipal(context.Background(), alice)))
	if rec.Code != http.StatusOK {
		t.Errorf("after the window: %d", rec.Code)
	}
}

func TestLocalPrincipal(t *testing.T) {
	f := newFixture(t, limits.Config{})
	f.ctl.Local = LocalPrincipal()
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"metered","arguments":{"target":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	if out := string(f.srv.ServeMessage(context.Background(), []byte(msg), nil)); !strings.Contains(out, "scanned x") {
		t.Errorf("local call: %s", out)
	}
	recs, _ := f.lim.QueryAudit(context.Background(), limits.AuditFilter{Credential: "local"})
	if len(recs) != 1 || recs[0].QuotaCharged != 1 {
		t.Errorf("local audit: %+v", recs)
	}
	// Handlers see the local caller, as they see a verified one.
	msg = strings.Replace(strings.Replace(msg, `"metered"`, `"whoami"`, 1), `{"target":"x"}`, `{}`, 1)
	if out := string(f.srv.ServeMessage(context.Background(), []byte(msg), nil)); !strings.Contains(out, "tenant local") {
		t.Errorf("the handler does not see the local principal: %s", out)
	}
	if _, text := f.call(context.Background(), auth.Principal{Subject: "bob", Credential: "c", Tenant: "other", Entitlements: []string{"*"}}, "whoami", `{}`); text != "tenant other" {
		t.Errorf("verified caller: %q", text)
	}
}

// An input round or a task started by one credential cannot be continued
// by another: the server binds them to the caller BindCaller records.
func TestBindCaller(t *testing.T) {
	f := newFixture(t, limits.Config{})
	var got string
	h := f.ctl.BindCaller(mcp.WithCaller, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = mcp.Caller(r.Context())
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/mcp", nil).WithContext(auth.WithPrincipal(context.Background(), alice)))
	if !strings.HasSuffix(got, "cred-alice") {
		t.Errorf("caller %q", got)
	}
}

// A call that fails through the server, not its caller, is not charged:
// here a legacy HTTP session the server ends (at shutdown) while a
// metered scan runs in it. One the client ends itself (DELETE) is.
func TestServerFaultNotCharged(t *testing.T) {
	for _, tc := range []struct {
		name    string
		end     func(h *mcp.HTTPHandler, sid string)
		charged bool
	}{
		{"server ends the session", func(h *mcp.HTTPHandler, _ string) { h.Close() }, false},
		{"client ends the session", func(h *mcp.HTTPHandler, sid string) {
			h.ServeHTTP(httptest.NewRecorder(), legacyPost(context.Background(), "DELETE", sid, ""))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, limits.Config{MonthlyScans: 1, ScanRate: limits.RatePolicy{Limit: 100, Window: time.Minute}})
			f.ctl.Local = &alice
			h := mcp.NewHTTPHandler(f.srv, nil)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, legacyPost(context.Background(), "POST", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`))
			sid := rec.Header().Get("Mcp-Session-Id")
			if sid == "" {
				t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
			}
			served := make(chan struct{})
			go func() {
				defer close(served)
				h.ServeHTTP(httptest.NewRecorder(), legacyPost(context.Background(), "POST", sid,
					`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"metered_slow","arguments":{"target":"x"}}}`))
			}()
			select {
			case <-f.began:
			case <-time.After(10 * time.Second):
				t.Fatal("the scan was not admitted")
			}
			tc.end(h, sid)
			<-served // the call has ended and its admission is released
			want := "ok"
			if tc.charged {
				want = "quota_exceeded"
			}
			if code, _ := f.call(context.Background(), alice, "metered", `{"target":"y"}`); code != want {
				t.Errorf("next scan with a monthly allowance of one: %q, want %q", code, want)
			}
			// The audit trail agrees with the ledger on the month's charges.
			u, err := f.lim.Usage(context.Background(), CallerKey(alice))
			if err != nil {
				t.Fatal(err)
			}
			recs, _ := f.store.QueryAudit(context.Background(), limits.AuditFilter{Limit: 10})
			var charged int64
			for _, r := range recs {
				charged += r.QuotaCharged
			}
			if charged != u.MonthlyUsed {
				t.Errorf("the audit trail says %d charged, the ledger %d: %+v", charged, u.MonthlyUsed, recs)
			}
		})
	}
}

func legacyPost(ctx context.Context, method, sid, body string) *http.Request {
	r := httptest.NewRequestWithContext(ctx, method, "http://127.0.0.1/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if sid != "" {
		r.Header.Set("Mcp-Session-Id", sid)
	}
	return r
}
