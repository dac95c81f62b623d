package limits_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/store/sqlite"
)

// A fixed clock keeps the example's output stable.
func fixedClock() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }

// Transport limiting in HTTP middleware: deny on any error, with headers.
func ExampleLimiter_AllowRequest() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "warden-example")
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(ctx, dir, nil)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	l, _ := limits.New(store, &limits.Config{Transport: limits.RatePolicy{Limit: 2, Window: time.Minute}, Now: fixedClock})

	mw := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			credential := r.Header.Get("X-Credential-ID") // set by auth in real wiring
			d, err := l.AllowRequest(r.Context(), credential)
			d.SetHeaders(w.Header())
			if err != nil {
				limits.SetRetryAfter(w.Header(), err)
				http.Error(w, string(limits.CodeOf(err)), limits.HTTPStatus(err))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for range 3 {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/mcp", nil)
		req.Header.Set("X-Credential-ID", "cred-1")
		h.ServeHTTP(rec, req)
		fmt.Printf("%d RateLimit: %s Retry-After: %q\n", rec.Code, rec.Header().Get("RateLimit"), rec.Header().Get("Retry-After"))
	}
	// Output:
	// 200 RateLimit: "transport";r=1;t=61 Retry-After: ""
	// 200 RateLimit: "transport";r=0;t=61 Retry-After: ""
	// 429 RateLimit: "transport";r=0;t=61 Retry-After: "61"
}

// A quota-consuming tool call: validate, admit, keep the lease alive while
// working, release, audit.
func ExampleLimiter_BeginScan() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "warden-example")
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(ctx, dir, nil)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	l, _ := limits.New(store, &limits.Config{MonthlyScans: 1, Now: fixedClock})

	call := func(callID, url string) {
		args := json.RawMessage(`{"url":"` + url + `"}`) // already validated
		key, err := limits.ScanKey("scan_web", args)
		if err != nil {
			fmt.Println("invalid:", err)
			return
		}
		start := time.Now()
		scan, err := l.BeginScan(ctx, limits.ScanRequest{
			Credential: "cred-1", Tenant: "acme", Tool: "scan_web", ScanKey: key, Charge: true, CallID: callID,
		})
		outcome, charged := "ok", int64(0)
		if err != nil {
			outcome = string(limits.CodeOf(err))
		} else {
			work := scan.KeepAlive(ctx)
			_ = work // run the scan under this context
			if scan.Charged() {
				charged = 1
			}
			scan.Release(ctx)
		}
		l.Audit(ctx, limits.AuditRecord{CorrelationID: callID, Credential: "cred-1", Tenant: "acme",
			Tool: "scan_web", Outcome: outcome, Duration: time.Since(start), QuotaCharged: charged})
		fmt.Println(callID, outcome, charged)
	}
	call("call-1", "https://a.example")
	call("call-1", "https://a.example") // a replay is not charged twice
	call("call-2", "https://b.example") // the month's allowance is spent

	recs, _ := l.QueryAudit(ctx, limits.AuditFilter{Credential: "cred-1"})
	fmt.Println(len(recs), "audit records, newest:", recs[0].Outcome)
	// Output:
	// call-1 ok 1
	// call-1 ok 0
	// call-2 quota_exceeded 0
	// 3 audit records, newest: quota_exceeded
}
