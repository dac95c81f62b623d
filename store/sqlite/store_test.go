package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/annotation/annotationtest"
	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/approval/approvaltest"
	"github.com/warden-mcp/warden/auth/asstore/asstoretest"
	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/finding/findingtest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/statestore"
	"github.com/warden-mcp/warden/store/storetest"
	"github.com/warden-mcp/warden/viewstore"
	"github.com/warden-mcp/warden/viewstore/viewstoretest"
)

// backend is one state directory. Instances are separate Store handles on
// the same file, as two processes on one host would have. Break holds the
// write lock from a third connection, as another process stuck in a write
// would.
type backend struct {
	dir     string
	blocker *sql.Tx
	db      *sql.DB
}

func (b *backend) Instance(t *testing.T) limits.Store {
	s, err := Open(t.Context(), b.dir, &Options{BusyTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func (b *backend) Break(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(b.dir, FileName)+"?_txlock=immediate&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b.db, b.blocker = db, tx
}

func (b *backend) Restore(t *testing.T) {
	if err := b.blocker.Rollback(); err != nil {
		t.Fatal(err)
	}
	b.db.Close()
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		return &backend{dir: t.TempDir()}
	})
}

func TestOpenCreatesPrivateStateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "nested")
	s, err := Open(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir mode %v, want 0700", fi.Mode().Perm())
	}
	// Every file of the database is owner-only, the WAL and shared-memory
	// files included.
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("database file: %v", err)
			continue
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", name, fi.Mode().Perm())
		}
	}
	for _, bad := range []string{"", filepath.Join(t.TempDir(), "a?b")} {
		if _, err := Open(t.Context(), bad, nil); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		}
		if bad != "" {
			if _, err := os.Stat(bad); err == nil {
				t.Errorf("Open(%q) refused the path but created it", bad)
			}
		}
	}
}

func versions(t *testing.T, path string) []int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		rows.Scan(&v)
		out = append(out, v)
	}
	return out
}

func TestMigrationsIdempotentAndVersioned(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	// Two processes starting at once, then a restart.
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			s, err := Open(context.Background(), dir, nil)
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var want []int
	for _, m := range migrations {
		want = append(want, m.version)
	}
	if diff := cmp.Diff(want, versions(t, path)); diff != "" {
		t.Errorf("versions (-want +got):\n%s", diff)
	}

	// A database migrated by a newer binary is refused, not used.
	db, _ := sql.Open("sqlite", "file:"+path)
	if _, err := db.Exec(`INSERT INTO schema_migrations VALUES (99, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(t.Context(), dir, nil); err == nil {
		t.Fatal("opened a database with a newer schema")
	}
}

func TestUpgradeFromVersion1(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	saved := migrations
	migrations = migrations[:1]
	err = migrate(t.Context(), db, 0)
	migrations = saved
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.AppendAudit(t.Context(), limits.AuditRecord{Time: time.Now(), Credential: "c", Tool: "t", Outcome: "ok"}); err != nil {
		t.Fatalf("audit table missing after upgrade: %v", err)
	}
}

func TestClosedStoreFailsClosed(t *testing.T) {
	s, err := Open(t.Context(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := limits.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := l.AllowRequest(t.Context(), "c"); !errors.Is(err, limits.ErrRateLimitUnavailable) {
		t.Errorf("AllowRequest on closed store: %v", err)
	}
	if _, err := l.BeginScan(t.Context(), limits.ScanRequest{Credential: "c", Tool: "t", ScanKey: "k", Charge: true, CallID: "x"}); !errors.Is(err, limits.ErrQuotaUnavailable) {
		t.Errorf("BeginScan on closed store: %v", err)
	}
}

func TestCorruptRateLogFailsClosed(t *testing.T) {
	s, err := Open(t.Context(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.db.Exec(`INSERT INTO rate_log VALUES ('transport:c', x'0102', 0)`); err != nil {
		t.Fatal(err)
	}
	l, _ := limits.New(s, nil)
	if _, err := l.AllowRequest(t.Context(), "c"); !errors.Is(err, limits.ErrRateLimitUnavailable) {
		t.Fatalf("corrupt log: %v", err)
	}
}

func TestPrune(t *testing.T) {
	s, err := Open(t.Context(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	p := limits.RatePolicy{Limit: 2, Window: time.Minute}
	s.TakeRate(t.Context(), "a", t0, p)
	s.TakeRate(t.Context(), "b", t0.Add(time.Hour), p)
	s.AppendAudit(t.Context(), limits.AuditRecord{Time: t0, Credential: "c", Tool: "t", Outcome: "ok"})
	s.PutState(t.Context(), statestore.Record{Kind: "session", ID: "old", Data: []byte("{}"), Expires: t0})
	s.PutState(t.Context(), statestore.Record{Kind: "session", ID: "live", Data: []byte("{}"), Expires: t0.Add(2 * time.Hour)})
	s.AppendMessage(t.Context(), "events:old:1", []byte("x"), t0)
	if err := s.Prune(t.Context(), t0.Add(time.Hour), t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	var keys, audits, recs, msgs int
	s.db.QueryRow(`SELECT count(*) FROM rate_log`).Scan(&keys)
	s.db.QueryRow(`SELECT count(*) FROM audit_log`).Scan(&audits)
	s.db.QueryRow(`SELECT count(*) FROM state_record`).Scan(&recs)
	s.db.QueryRow(`SELECT count(*) FROM state_message`).Scan(&msgs)
	if keys != 1 || audits != 0 || recs != 1 || msgs != 0 {
		t.Fatalf("after prune: %d rate keys, %d audit rows, %d state records, %d messages; want 1, 0, 1, 0", keys, audits, recs, msgs)
	}
}

// TestBackgroundCheckpoint: with automatic checkpoints moved off the
// commit path, the background connection must copy the WAL into the
// database, and truncate it once it passes the bound.
func TestBackgroundCheckpoint(t *testing.T) {
	dir := t.TempDir()
	rounds := make(chan struct{}, 1)
	s, err := Open(t.Context(), dir, &Options{CheckpointInterval: 5 * time.Millisecond, checkpointed: rounds})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	size := func(name string) int64 {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return -1
		}
		return fi.Size()
	}
	before := size(FileName)
	p := limits.RatePolicy{Limit: 100, Window: time.Minute}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for i := range 2000 {
		if _, err := s.TakeRate(t.Context(), fmt.Sprint("k", i%500), now.Add(time.Duration(i)*time.Millisecond), p); err != nil {
			t.Fatal(err)
		}
	}
	s.truncateFrames.Store(1)
	// A round that began before the store above may still have the old
	// bound; the WAL must be empty after the next round or two. Each round
	// is awaited, not slept for.
	next := func() {
		select {
		case <-rounds:
		case <-time.After(30 * time.Second):
			t.Fatal("no checkpoint round in 30 s")
		}
	}
	next()
	for range 3 {
		next()
		if size(FileName+"-wal") == 0 && size(FileName) > before {
			return
		}
	}
	t.Fatalf("after 3 idle checkpoint rounds: database %d bytes (was %d), WAL %d bytes; want the WAL checkpointed and truncated",
		size(FileName), before, size(FileName+"-wal"))
}

// TestAuditQueriesUseReadOnlyPool: audit reads go through their own
// read-only connections (so a long query never occupies the single writer
// connection that decisions queue on), and they answer while another
// process holds the write lock.
func TestAuditQueriesUseReadOnlyPool(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	if err := s.AppendAudit(t.Context(), limits.AuditRecord{Time: at, Credential: "c", Tool: "t", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	b := &backend{dir: dir}
	b.Break(t) // another process holds the write lock
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	recs, err := s.QueryAudit(ctx, limits.AuditFilter{Limit: 10})
	cancel()
	b.Restore(t)
	if err != nil || len(recs) != 1 {
		t.Fatalf("audit query while the write lock is held: %v, %d rows", err, len(recs))
	}
	// The read-only pool really is read-only.
	if _, err := s.ro.ExecContext(t.Context(), `DELETE FROM audit_log`); err == nil {
		t.Fatal("read-only pool accepted a write")
	}
}

func TestApprovals(t *testing.T) {
	approvaltest.Run(t, func(t *testing.T) approval.Store {
		return (&backend{dir: t.TempDir()}).Instance(t).(*Store)
	})
	approvaltest.RunRequests(t, func(t *testing.T) approval.RequestStore {
		return (&backend{dir: t.TempDir()}).Instance(t).(*Store)
	})
}

type annotationBackend struct{ dir string }

func (b annotationBackend) Instance(t *testing.T) annotation.Store {
	return (&backend{dir: b.dir}).Instance(t).(*Store)
}

// TestAnnotations runs the suite; each Instance is a new handle on the
// same file, as a restarted process would open it.
func TestAnnotations(t *testing.T) {
	annotationtest.Run(t, func(t *testing.T) annotationtest.Backend { return annotationBackend{dir: t.TempDir()} })
}

func TestAuthorizationServerRecords(t *testing.T) {
	asstoretest.Run(t, (&backend{dir: t.TempDir()}).Instance(t).(*Store))
}

type viewBackend struct{ dir string }

func (b viewBackend) Instance(t *testing.T) viewstore.Store {
	return (&backend{dir: b.dir}).Instance(t).(*Store)
}

func (b viewBackend) Prune(t *testing.T, now time.Time) {
	if err := b.Instance(t).(*Store).Prune(t.Context(), now, time.Time{}); err != nil {
		t.Fatal(err)
	}
}

func TestViews(t *testing.T) {
	viewstoretest.Run(t, func(t *testing.T) viewstoretest.Backend { return viewBackend{dir: t.TempDir()} })
}

func TestFindings(t *testing.T) {
	findingtest.Run(t, func(t *testing.T) finding.Store {
		return (&backend{dir: t.TempDir()}).Instance(t).(*Store)
	})
}

// TestMigrationMergedOutOfOrder: a database migrated by a build that
// lacked a lower-numbered migration (branches merged out of order) gets
// it on the next open.
func TestMigrationMergedOutOfOrder(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	saved := migrations
	var without []migration
	for _, m := range migrations {
		if m.name != "annotations" {
			without = append(without, m)
		}
	}
	migrations = without
	err = migrate(t.Context(), db, 0)
	migrations = saved
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.AnnotationLog(t.Context(), annotation.File{Tenant: "t", SHA256: strings.Repeat("0", 64)}, 0, 1); err != nil {
		t.Fatalf("the skipped migration was not applied: %v", err)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
}
