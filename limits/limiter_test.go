package limits

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestConfigDefaults(t *testing.T) {
	l, err := New(newFake(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config()
	c.Now, c.Logger = nil, nil
	want := Config{
		Transport:             RatePolicy{Limit: 120, Window: 60 * time.Second},
		ScanRate:              RatePolicy{Limit: 10, Window: 60 * time.Second},
		MonthlyScans:          1000,
		MaxConcurrentScans:    2,
		ScannerCapacity:       16,
		LeaseTTL:              180 * time.Second,
		TransportTimeout:      250 * time.Millisecond,
		TransportMaxWait:      5 * time.Second,
		ScanTimeout:           500 * time.Millisecond,
		ScanMaxWait:           5 * time.Second,
		UnavailableRetryAfter: 2 * time.Second,
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestConfigInvalid(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"negative limit", Config{Transport: RatePolicy{Limit: -1}}},
		{"limit above max", Config{ScanRate: RatePolicy{Limit: MaxRateLimit + 1}}},
		{"sub-millisecond window", Config{Transport: RatePolicy{Window: time.Microsecond}}},
		{"negative concurrency", Config{MaxConcurrentScans: -1}},
		{"negative capacity", Config{ScannerCapacity: -3}},
		{"short ttl", Config{LeaseTTL: time.Second}},
		{"negative timeout", Config{ScanTimeout: -time.Second}},
		{"negative wait", Config{TransportMaxWait: -time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(newFake(), &tt.cfg); err == nil {
				t.Fatal("New accepted an invalid config")
			}
		})
	}
	if _, err := New(nil, nil); err == nil {
		t.Fatal("New accepted a nil store")
	}
}

func newTestLimiter(t *testing.T, f *fakeStore, cfg Config) (*Limiter, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	cfg.Now = c.Now
	l, err := New(f, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l, c
}

func TestAllowRequest(t *testing.T) {
	f := newFake()
	l, clk := newTestLimiter(t, f, Config{Transport: RatePolicy{Limit: 2, Window: 10 * time.Second}})
	ctx := context.Background()
	for i := range 2 {
		d, err := l.AllowRequest(ctx, "cred-a")
		if err != nil || !d.Allowed || d.Remaining != 1-i {
			t.Fatalf("request %d: %+v, %v", i, d, err)
		}
	}
	d, err := l.AllowRequest(ctx, "cred-a")
	if !errors.Is(err, ErrRateLimited) || d.Allowed {
		t.Fatalf("third request: %+v, %v; want rate_limited", d, err)
	}
	e, ok := AsError(err)
	if !ok || e.RetryAfter != 10*time.Second+time.Microsecond || HTTPStatus(err) != 429 {
		t.Fatalf("error %#v", e)
	}
	if _, err := l.AllowRequest(ctx, "cred-b"); err != nil {
		t.Fatalf("other credential limited: %v", err)
	}
	clk.Advance(10*time.Second + time.Microsecond)
	if _, err := l.AllowRequest(ctx, "cred-a"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestAllowRequestFailsClosed(t *testing.T) {
	f := newFake()
	l, _ := newTestLimiter(t, f, Config{})
	f.setErr(errDown)
	d, err := l.AllowRequest(context.Background(), "cred-a")
	if d.Allowed || !errors.Is(err, ErrRateLimitUnavailable) {
		t.Fatalf("store down: %+v, %v", d, err)
	}
	e, _ := AsError(err)
	if !Unavailable(err) || HTTPStatus(err) != 503 || e.RetryAfter != 2*time.Second || !errors.Is(err, errDown) {
		t.Fatalf("error %#v", e)
	}
	h := http.Header{}
	d.SetHeaders(h)
	SetRetryAfter(h, err)
	want := http.Header{"Retry-After": {"2"}}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Fatalf("headers when unavailable (-want +got):\n%s", diff)
	}
}

func TestIDValidation(t *testing.T) {
	l, _ := newTestLimiter(t, newFake(), Config{})
	ctx := context.Background()
	long := strings.Repeat("x", MaxIDLength+1)
	for _, cred := range []string{"", long, "\xff"} {
		if _, err := l.AllowRequest(ctx, cred); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("credential %q: %v", cred[:min(len(cred), 8)], err)
		}
	}
	if _, err := l.BeginScan(ctx, ScanRequest{Credential: "c", Tool: "t", ScanKey: "k", Charge: true}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("charged scan without call id: %v", err)
	}
	if err := l.Audit(ctx, AuditRecord{Credential: "c", Tool: "t", Tenant: long}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("long tenant: %v", err)
	}
}

func TestAudit(t *testing.T) {
	f := newFake()
	l, clk := newTestLimiter(t, f, Config{})
	ctx := context.Background()
	if err := l.Audit(ctx, AuditRecord{Credential: "c", Tool: "scan_web", Duration: time.Second, QuotaCharged: 1}); err != nil {
		t.Fatal(err)
	}
	want := []AuditRecord{{Time: clk.Now(), Credential: "c", Tool: "scan_web", Outcome: "ok", Duration: time.Second, QuotaCharged: 1}}
	if diff := cmp.Diff(want, f.audit); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
	// A refund's record carries -1; nothing below.
	if err := l.Audit(ctx, AuditRecord{Credential: "c", Tool: "scan_web", Outcome: "quota_refunded", QuotaCharged: -1}); err != nil {
		t.Errorf("a refund's record: %v", err)
	}
	if err := l.Audit(ctx, AuditRecord{Credential: "c", Tool: "scan_web", QuotaCharged: -2}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("a charge of -2: %v", err)
	}
	for _, tt := range []struct{ in, want int }{{0, DefaultAuditQueryLimit}, {5, 5}, {1 << 30, MaxAuditQueryLimit}} {
		if _, err := l.QueryAudit(ctx, AuditFilter{Limit: tt.in}); err != nil {
			t.Fatal(err)
		}
		if f.lastFilt.Limit != tt.want {
			t.Errorf("limit %d became %d, want %d", tt.in, f.lastFilt.Limit, tt.want)
		}
	}
	f.setErr(errDown)
	if err := l.Audit(ctx, AuditRecord{Credential: "c", Tool: "t"}); !errors.Is(err, ErrAuditUnavailable) {
		t.Errorf("audit with store down: %v", err)
	}
	if _, err := l.QueryAudit(ctx, AuditFilter{}); !errors.Is(err, ErrAuditUnavailable) {
		t.Errorf("query with store down: %v", err)
	}
	if err := l.Ready(ctx); err == nil {
		t.Error("Ready with store down")
	}
}

func TestCodeOf(t *testing.T) {
	tests := []struct {
		err  error
		want Code
	}{
		{nil, ""},
		{errors.New("x"), "internal_error"},
		{newError(CodeScannerBusy, 0, nil), CodeScannerBusy},
		{errors.Join(errors.New("ctx"), newError(CodeQuotaExceeded, 0, nil)), CodeQuotaExceeded},
	}
	for _, tt := range tests {
		if got := CodeOf(tt.err); got != tt.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestErrorDoesNotLeakCauseInMessage(t *testing.T) {
	e := newError(CodeQuotaUnavailable, time.Second, errors.New("dial tcp 10.0.0.5:5432: secret-host"))
	if strings.Contains(e.Message, "secret-host") {
		t.Fatalf("public message contains the cause: %q", e.Message)
	}
	for code, msg := range publicMessages {
		if msg == "" || strings.ToLower(string(code)) != string(code) {
			t.Errorf("code %q: message %q", code, msg)
		}
	}
}
