package limits

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestScanKeyNormalises(t *testing.T) {
	k := func(tool, args string) string {
		t.Helper()
		s, err := ScanKey(tool, json.RawMessage(args))
		if err != nil {
			t.Fatalf("ScanKey(%q, %q): %v", tool, args, err)
		}
		return s
	}
	base := k("scan_web", `{"url":"https://a.example","depth":2}`)
	same := []string{
		`{"depth":2,"url":"https://a.example"}`,
		" {\n\t\"url\" : \"https://a.example\", \"depth\": 2 } ",
	}
	for _, a := range same {
		if got := k("scan_web", a); got != base {
			t.Errorf("%q hashed differently", a)
		}
	}
	different := []struct{ tool, args string }{
		{"scan_web", `{"url":"https://b.example","depth":2}`},
		{"scan_web", `{"url":"https://a.example","depth":2.0}`}, // numbers kept verbatim
		{"scan_dns", `{"url":"https://a.example","depth":2}`},
		{"scan_web", ``},
	}
	for _, d := range different {
		if got := k(d.tool, d.args); got == base {
			t.Errorf("%s %s collided", d.tool, d.args)
		}
	}
	for _, bad := range []string{`{`, `{"a":1} {"b":2}`, `nul`} {
		if _, err := ScanKey("t", json.RawMessage(bad)); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("ScanKey(%q) = %v, want invalid", bad, err)
		}
	}
}

// The bound is on characters, as the tools' own limits are: text a tool
// accepts is hashed however its JSON escapes it.
func TestScanKeyCountsCharacters(t *testing.T) {
	escaped := func(n int, esc string) json.RawMessage {
		return json.RawMessage(`{"text":"` + strings.Repeat(esc, n) + `"}`)
	}
	for _, c := range []struct {
		name string
		args json.RawMessage
		ok   bool
	}{
		{"keysweep's 256,000 characters, each escaped as \\u00e9 (1.5 MB)", escaped(256_000, `\u00e9`), true},
		{"the same characters unescaped", escaped(256_000, "é"), true},
		{"256,000 emoji as surrogate pairs (3 MB)", escaped(256_000, `\ud83d\ude00`), true},
		{"http_request's body of 1,398,104 base64 characters", escaped(1_398_104, "A"), true},
		{"a character past the bound", escaped(MaxScanArgsChars-len("text")+1, "a"), false},
		{"bytes past the decoder's bound", json.RawMessage(`{"text":"` + strings.Repeat(" ", MaxScanArgsSize) + `"}`), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, err := ScanKey("keysweep_scan_text", c.args)
			if c.ok && (err != nil || k == "") {
				t.Fatalf("refused %d bytes: %v", len(c.args), err)
			}
			if !c.ok && !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("ScanKey of %d bytes = %v, want invalid", len(c.args), err)
			}
		})
	}
	// Escaping changes nothing: the key is the same.
	a, _ := ScanKey("t", escaped(3, `\u00e9`))
	b, _ := ScanKey("t", escaped(3, "é"))
	if a != b {
		t.Error("escaped and plain text hash differently")
	}
}

// FuzzScanKey checks that normalisation is idempotent: hashing the
// normalised form of any accepted input gives the same key. Seeds are in
// testdata/fuzz/FuzzScanKey.
func FuzzScanKey(f *testing.F) {
	f.Fuzz(func(t *testing.T, args []byte) {
		k1, err := ScanKey("tool", args)
		if err != nil {
			return
		}
		if len(k1) != 64 {
			t.Fatalf("key %q", k1)
		}
		if len(bytes.TrimSpace(args)) == 0 {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("accepted input does not decode: %v", err)
		}
		norm, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		k2, err := ScanKey("tool", norm)
		if err != nil || k2 != k1 {
			t.Fatalf("normalised form %s: key %q err %v, want %q", norm, k2, err, k1)
		}
	})
}

func scanReq() ScanRequest {
	return ScanRequest{Credential: "cred-a", Tenant: "t1", Tool: "scan_web", ScanKey: "k1", Charge: true, CallID: "call-1"}
}

func TestBeginScanPassesResolvedLimits(t *testing.T) {
	f := newFake()
	f.admit = Admission{Charged: true, MonthlyUsed: 7}
	l, clk := newTestLimiter(t, f, Config{MonthlyScans: 50, ScannerCapacity: 4})
	s, err := l.BeginScan(context.Background(), scanReq())
	if err != nil {
		t.Fatal(err)
	}
	if !s.Charged() || s.MonthlyUsed() != 7 || s.Expires() != clk.Now().Add(DefaultLeaseTTL) {
		t.Fatalf("scan %+v", s)
	}
	got := f.admits[0]
	if got.LeaseID == "" || got.LeaseID != s.LeaseID() {
		t.Fatalf("lease id %q vs %q", got.LeaseID, s.LeaseID())
	}
	got.LeaseID = ""
	want := Admit{
		Now: clk.Now(), Credential: "cred-a", Tenant: "t1", Tool: "scan_web", ScanKey: "k1",
		LeaseTTL: DefaultLeaseTTL, MaxPerCredential: 2, Capacity: 4, Charge: true, CallID: "call-1",
		Rate: RatePolicy{Limit: 10, Window: time.Minute}, Period: "2026-11", Monthly: 50,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("admit (-want +got):\n%s", diff)
	}
}

func TestBeginScanRefusals(t *testing.T) {
	tests := []struct {
		name      string
		adm       Admission
		wantCode  Code
		wantRetry time.Duration
		status    int
	}{
		{"duplicate", Admission{Refusal: CodeDuplicateScan}, CodeDuplicateScan, 0, 409},
		{"too many", Admission{Refusal: CodeTooManyConcurrentScans, RetryAfter: 3 * time.Second}, CodeTooManyConcurrentScans, 3 * time.Second, 429},
		{"busy", Admission{Refusal: CodeScannerBusy, RetryAfter: time.Second}, CodeScannerBusy, time.Second, 503},
		{"rate", Admission{Refusal: CodeRateLimitExceeded, RetryAfter: 6 * time.Second}, CodeRateLimitExceeded, 6 * time.Second, 429},
		// 2026-11-30 12:00 UTC to 2026-12-01 00:00 UTC.
		{"quota retries at month rollover", Admission{Refusal: CodeQuotaExceeded}, CodeQuotaExceeded, 12 * time.Hour, 429},
		{"conflict", Admission{Refusal: CodeIdempotencyConflict}, CodeIdempotencyConflict, 0, 409},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake()
			f.admit = tt.adm
			l, _ := newTestLimiter(t, f, Config{})
			s, err := l.BeginScan(context.Background(), scanReq())
			e, ok := AsError(err)
			if s != nil || !ok {
				t.Fatalf("got %v, %v", s, err)
			}
			if Code(e.Code) != tt.wantCode || e.RetryAfter != tt.wantRetry || HTTPStatus(err) != tt.status || Unavailable(err) {
				t.Fatalf("error %#v", e)
			}
		})
	}
}

func TestBeginScanFailsClosed(t *testing.T) {
	f := newFake()
	l, _ := newTestLimiter(t, f, Config{})
	f.setErr(errDown)
	req := scanReq()
	if _, err := l.BeginScan(context.Background(), req); !errors.Is(err, ErrQuotaUnavailable) {
		t.Fatalf("charged: %v", err)
	}
	req.Charge = false
	if _, err := l.BeginScan(context.Background(), req); !errors.Is(err, ErrScanSlotsUnavailable) {
		t.Fatalf("uncharged: %v", err)
	}
}

func TestKeepAliveRenewsUntilReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		l, err := New(f, nil) // real (bubbled) clock
		if err != nil {
			t.Fatal(err)
		}
		s, err := l.BeginScan(t.Context(), scanReq())
		if err != nil {
			t.Fatal(err)
		}
		ctx := s.KeepAlive(t.Context())
		if again := s.KeepAlive(t.Context()); again != ctx {
			t.Fatal("second KeepAlive started another renewer")
		}
		time.Sleep(10*time.Minute + time.Second) // far beyond the 180 s TTL
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatalf("scan context ended while renewing: %v", context.Cause(ctx))
		}
		f.mu.Lock()
		renews, live := f.renews, f.leases[s.LeaseID()]
		f.mu.Unlock()
		if renews != 10 || !live.After(time.Now()) {
			t.Fatalf("renews=%d expiry=%v now=%v", renews, live, time.Now())
		}
		if err := s.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := s.Release(t.Context()); err != nil {
			t.Fatalf("second release: %v", err)
		}
		if ctx.Err() == nil || f.releases != 1 {
			t.Fatalf("after release ctx=%v releases=%d", ctx.Err(), f.releases)
		}
		if err := s.Renew(t.Context()); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("renew after release: %v", err)
		}
	})
}

func TestKeepAliveCancelsWhenLeaseLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		l, _ := New(f, nil)
		s, err := l.BeginScan(t.Context(), scanReq())
		if err != nil {
			t.Fatal(err)
		}
		ctx := s.KeepAlive(t.Context())
		f.mu.Lock()
		delete(f.leases, s.LeaseID()) // another replica reclaimed it
		f.mu.Unlock()
		time.Sleep(61 * time.Second)
		synctest.Wait()
		if !errors.Is(context.Cause(ctx), ErrLeaseLost) {
			t.Fatalf("cause %v, want lease_lost", context.Cause(ctx))
		}
		_ = s.Release(t.Context())
	})
}

func TestKeepAliveStopsAtExpiryWhileStoreDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		l, _ := New(f, nil)
		s, err := l.BeginScan(t.Context(), scanReq())
		if err != nil {
			t.Fatal(err)
		}
		ctx := s.KeepAlive(t.Context())
		f.setErr(errDown)
		time.Sleep(179 * time.Second) // renewals at 60 s and 120 s fail
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatalf("cancelled before expiry: %v", context.Cause(ctx))
		}
		time.Sleep(2 * time.Second) // renewal at 180 s: expiry reached
		synctest.Wait()
		if !errors.Is(context.Cause(ctx), ErrLeaseLost) {
			t.Fatalf("cause %v, want lease_lost", context.Cause(ctx))
		}
		if err := s.Release(t.Context()); !errors.Is(err, ErrScanSlotsUnavailable) {
			t.Fatalf("release with store down: %v", err)
		}
	})
}

func TestRefund(t *testing.T) {
	f := newFake()
	f.admit = Admission{Charged: true, MonthlyUsed: 1}
	l, _ := newTestLimiter(t, f, Config{})
	s, err := l.BeginScan(context.Background(), scanReq())
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Refund(context.Background()); !ok || err != nil {
		t.Fatalf("refund: %v %v", ok, err)
	}
	f.setErr(errDown)
	if _, err := s.Refund(context.Background()); !errors.Is(err, ErrQuotaUnavailable) {
		t.Fatalf("refund with store down: %v", err)
	}
}
