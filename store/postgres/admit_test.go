package postgres

import (
	"context"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/warden-mcp/warden/limits"
)

// An admission whose caller gave up may still run in PostgreSQL and
// commit: the server finishes a statement whose client has gone unless
// the client's cancel request reaches it first, and under load it often
// does not. Here the admission waits on a row lock until after BeginScan's
// deadline, the cancel request is lost on the way, and the lock is then
// let go. The abandoned admission must leave neither a lease holding the
// only slot nor a charge no call was told of: either it meets the fence
// BeginScan put up, or (when even that could not reach the database) the
// cancellation that waited is made by Settle.
func TestTimedOutAdmissionStrandsNothing(t *testing.T) {
	for _, c := range []struct {
		name      string
		refuseNew bool // the cancellation cannot reach the database at first
	}{
		{"fenced before it commits", false},
		{"cancelled after it committed", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBackend(t)
			app := "warden_strand_" + strings.ToLower(rand.Text()[:8])
			st, err := Open(t.Context(), b.dsn, &Options{Schema: b.schema, ApplicationName: app, LockTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(st.Close)
			lim, err := limits.New(st, &limits.Config{ScannerCapacity: 1, ScanTimeout: time.Second, ScanMaxWait: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			cfg, err := pgx.ParseConfig(testDSN(t))
			if err != nil {
				t.Fatal(err)
			}
			cfg.RuntimeParams["search_path"] = b.schema
			blocker, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer blocker.Close(context.Background())
			// The scan rate window's row of the credential, locked: a
			// charged admission waits for it.
			if _, err := blocker.Exec(ctx, `INSERT INTO rate_log (key, log_us, expires_us) VALUES ('scan:cred-s', '{}', 0)`); err != nil {
				t.Fatal(err)
			}
			tx, err := blocker.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, `SELECT 1 FROM rate_log WHERE key = 'scan:cred-s' FOR UPDATE`); err != nil {
				t.Fatal(err)
			}
			b.proxy.set(c.refuseNew, true)
			req := limits.ScanRequest{Credential: "cred-s", Tenant: "t", Tool: "scan_web", ScanKey: "k", Charge: true, CallID: "call-1"}
			if s, err := lim.BeginScan(ctx, req); err == nil || !limits.Unavailable(err) {
				t.Fatalf("BeginScan behind a held lock: %v, %v; want quota_unavailable", s, err)
			}
			if want := map[bool]int{false: 0, true: 1}[c.refuseNew]; lim.Unsettled() != want {
				t.Fatalf("%d cancellations wait, want %d", lim.Unsettled(), want)
			}
			if err := tx.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			// Wait for the abandoned statement to end, one way or the other.
			deadline := time.Now().Add(10 * time.Second)
			for {
				var n int
				if err := blocker.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
					WHERE application_name = $1 AND state <> 'idle' AND query LIKE '%scan_admit%'`, app).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the abandoned admission is still running after 10 s")
				}
				time.Sleep(20 * time.Millisecond)
			}
			b.proxy.set(false, false)
			if n := lim.Settle(ctx); n != 0 {
				t.Fatalf("%d cancellations still wait after Settle", n)
			}
			var leases, ledger int
			var used int64
			if err := blocker.QueryRow(ctx, `SELECT (SELECT count(*) FROM scan_lease WHERE expires_us > $1),
				(SELECT count(*) FROM scan_ledger), (SELECT coalesce(sum(used), 0) FROM quota_counter)`,
				time.Now().UnixMicro()).Scan(&leases, &ledger, &used); err != nil {
				t.Fatal(err)
			}
			if leases != 0 || ledger != 0 || used != 0 {
				t.Fatalf("after a timed-out admission: %d live leases, %d ledger rows, %d units used; want none", leases, ledger, used)
			}
			// The slot is free for the next call, which is charged.
			req.CallID = "call-2"
			s, err := lim.BeginScan(ctx, req)
			if err != nil {
				t.Fatalf("the next call: %v", err)
			}
			if !s.Charged() {
				t.Error("the next call was not charged")
			}
			s.Release(ctx)
		})
	}
}

// Each replica's pool holds DefaultMaxConns connections unless the
// options or the DSN say otherwise: pgx's own default of max(4, CPUs)
// made decisions queue for a connection at five requests in flight.
func TestPoolSize(t *testing.T) {
	dsn := testDSN(t)
	schema := uniqueSchema(t, dsn)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	for _, c := range []struct {
		dsn  string
		opts int32
		want int32
	}{
		{dsn, 0, DefaultMaxConns},
		{dsn, 7, 7},
		{dsn + sep + "pool_max_conns=5", 0, 5},
	} {
		s, err := Open(t.Context(), c.dsn, &Options{Schema: schema, MaxConns: c.opts})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.pool.Config().MaxConns; got != c.want {
			t.Errorf("MaxConns %d, DSN %s: pool of %d, want %d", c.opts, strings.TrimPrefix(c.dsn, dsn), got, c.want)
		}
		s.Close()
	}
}

// Admissions of different credentials do not wait for each other: one
// credential's admission, stuck on a row lock, holds up only that
// credential. With one advisory lock per schema, every admission of every
// replica queued behind it.
func TestAdmissionsOfOneCredentialDoNotHoldUpAnother(t *testing.T) {
	b := newBackend(t)
	app := "warden_queue_" + strings.ToLower(rand.Text()[:8])
	st, err := Open(t.Context(), b.dsn, &Options{Schema: b.schema, ApplicationName: app})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	lim, err := limits.New(st, &limits.Config{ScanTimeout: 5 * time.Second, ScanMaxWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	cfg, err := pgx.ParseConfig(testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["search_path"] = b.schema
	blocker, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Close(context.Background())
	if _, err := blocker.Exec(ctx, `INSERT INTO rate_log (key, log_us, expires_us) VALUES ('scan:cred-a', '{}', 0)`); err != nil {
		t.Fatal(err)
	}
	tx, err := blocker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT 1 FROM rate_log WHERE key = 'scan:cred-a' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	stuck := make(chan error, 1)
	go func() {
		s, err := lim.BeginScan(ctx, limits.ScanRequest{Credential: "cred-a", Tool: "scan_web", ScanKey: "k", Charge: true, CallID: "a-1"})
		if err == nil {
			s.Release(context.Background())
		}
		stuck <- err
	}()
	// Wait until cred-a's admission waits on the row.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := blocker.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND wait_event_type = 'Lock'`, app).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("cred-a's admission never waited on the row")
		}
		time.Sleep(10 * time.Millisecond)
	}
	bctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	s, err := lim.BeginScan(bctx, limits.ScanRequest{Credential: "cred-b", Tool: "scan_web", ScanKey: "k"})
	if err != nil {
		t.Fatalf("cred-b behind cred-a's stuck admission: %v", err)
	}
	s.Release(ctx)
	tx.Rollback(ctx)
	if err := <-stuck; err != nil {
		t.Errorf("cred-a once the row was free: %v", err)
	}
}
