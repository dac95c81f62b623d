package policy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
)

// Two tenants whose tokens carry the same subject (issue defect 3). Before
// the fix the caller was issuer + credential, so they shared legacy
// sessions, tasks, input rounds, stream resumption, rate limits and
// quotas. Each is now its own caller.
var (
	acmeSam   = auth.Principal{Issuer: "https://idp.example", Subject: "sam", Credential: "sam", Tenant: "acme", Entitlements: []string{"*"}}
	globexSam = auth.Principal{Issuer: "https://idp.example", Subject: "sam", Credential: "sam", Tenant: "globex", Entitlements: []string{"*"}}
)

func TestHostileTenantsShareNoCallerKey(t *testing.T) {
	if CallerKey(acmeSam) == CallerKey(globexSam) {
		t.Fatalf("one key for two tenants: %q", CallerKey(acmeSam))
	}
	other := acmeSam
	other.Issuer = "https://other.example"
	if CallerKey(acmeSam) == CallerKey(other) {
		t.Fatal("one key for two issuers")
	}
	// Names chosen so that a plain join would collide.
	a := auth.Principal{Tenant: "a:b", Credential: "c"}
	b := auth.Principal{Tenant: "a", Credential: "b:c"}
	if CallerKey(a) == CallerKey(b) {
		t.Fatalf("tenant and credential split ambiguously: %q", CallerKey(a))
	}
	long := auth.Principal{Tenant: string(make([]byte, 200)), Credential: string(make([]byte, 200))}
	if k := CallerKey(long); len(k) > limits.MaxIDLength {
		t.Fatalf("key of %d bytes", len(k))
	}
}

func TestHostileTenantsShareNoSession(t *testing.T) {
	f := newFixture(t, limits.Config{})
	as := map[string]auth.Principal{"acme": acmeSam, "globex": globexSam}
	wrap := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r = r.WithContext(auth.WithPrincipal(r.Context(), as[r.Header.Get("X-Test-Tenant")]))
			f.ctl.BindCaller(mcp.WithCaller, next).ServeHTTP(w, r)
		})
	}
	h := mcp.NewHTTPHandler(f.srv, &mcp.HTTPOptions{Wrap: wrap})
	req := func(tenant, sid, body string) *httptest.ResponseRecorder {
		r := legacyPost(context.Background(), "POST", sid, body)
		r.Header.Set("X-Test-Tenant", tenant)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	rec := req("acme", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	sid := rec.Header().Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if rec := req("acme", sid, ping); rec.Code != http.StatusOK {
		t.Fatalf("the session's own tenant: %d %s", rec.Code, rec.Body)
	}
	if rec := req("globex", sid, ping); rec.Code != http.StatusNotFound {
		t.Errorf("another tenant with the same subject reached the session: %d %s", rec.Code, rec.Body)
	}
}

func TestHostileTenantsShareNoLimits(t *testing.T) {
	f := newFixture(t, limits.Config{
		Transport:    limits.RatePolicy{Limit: 2, Window: time.Minute},
		MonthlyScans: 1, ScanRate: limits.RatePolicy{Limit: 100, Window: time.Minute},
	})
	ctx := context.Background()
	h := f.ctl.RateLimit(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	status := func(p auth.Principal) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil).WithContext(auth.WithPrincipal(ctx, p)))
		return rec.Code
	}
	for range 2 {
		status(acmeSam)
	}
	if got := status(acmeSam); got != http.StatusTooManyRequests {
		t.Fatalf("acme past its limit: %d", got)
	}
	if got := status(globexSam); got != http.StatusOK {
		t.Errorf("globex refused by acme's rate limit: %d", got)
	}
	if code, _ := f.call(ctx, acmeSam, "metered", `{"target":"a"}`); code != "ok" {
		t.Fatalf("acme's scan: %q", code)
	}
	if code, _ := f.call(ctx, acmeSam, "metered", `{"target":"a"}`); code != "quota_exceeded" {
		t.Fatalf("acme's second scan: %q", code)
	}
	if code, _ := f.call(ctx, globexSam, "metered", `{"target":"a"}`); code != "ok" {
		t.Errorf("globex refused by acme's quota: %q", code)
	}
}
