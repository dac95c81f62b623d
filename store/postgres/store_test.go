package postgres

import (
	"bytes"
	"context"
	"crypto/rand"
	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/annotation/annotationtest"
	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/approval/approvaltest"
	"github.com/warden-mcp/warden/auth/asstore/asstoretest"
	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/finding/findingtest"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/store/storetest"
	"github.com/warden-mcp/warden/viewstore"
	"github.com/warden-mcp/warden/viewstore/viewstoretest"
)

// testDSN returns the DSN from WARDEN_TEST_POSTGRES or skips the test.
func testDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("WARDEN_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("WARDEN_TEST_POSTGRES not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	return dsn
}

// uniqueSchema returns a fresh schema name and drops it when t ends, so
// parallel runs against one server never collide.
func uniqueSchema(t testing.TB, dsn string) string {
	t.Helper()
	schema := "warden_test_" + strings.ToLower(rand.Text()[:12])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("cleanup connect: %v", err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return schema
}

// proxy is a loopback TCP relay in front of PostgreSQL. Broken, it cuts
// every open connection and closes new ones at once: the database has gone
// away for every replica. It can also refuse new connections only, or
// only cancel requests (a client's request to stop its running
// statement, sent on a connection of its own).
type proxy struct {
	ln     net.Listener
	target string

	mu          sync.Mutex
	broken      bool
	refuseNew   bool
	dropCancels bool
	conns       map[net.Conn]bool
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.cut() })
	return p
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		broken := p.broken || p.refuseNew
		if !broken {
			p.conns[c] = true
		}
		p.mu.Unlock()
		if broken {
			c.Close()
			continue
		}
		go p.relay(c)
	}
}

// cancelRequestCode opens a CancelRequest message (after its length).
var cancelRequestCode = []byte{0x04, 0xd2, 0x16, 0x2e}

func (p *proxy) relay(c net.Conn) {
	p.mu.Lock()
	drop := p.dropCancels
	p.mu.Unlock()
	var head []byte
	if drop {
		head = make([]byte, 8)
		if _, err := io.ReadFull(c, head); err != nil || bytes.Equal(head[4:], cancelRequestCode) {
			c.Close()
			return
		}
	}
	up, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.broken {
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[up] = true
	p.mu.Unlock()
	if _, err := up.Write(head); err != nil {
		c.Close()
		up.Close()
		return
	}
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *proxy) set(refuseNew, dropCancels bool) {
	p.mu.Lock()
	p.refuseNew, p.dropCancels = refuseNew, dropCancels
	p.mu.Unlock()
}

func (p *proxy) setBroken(b bool) {
	p.mu.Lock()
	p.broken = b
	p.mu.Unlock()
	if b {
		p.cut()
	}
}

type backend struct {
	dsn    string // through the proxy
	schema string
	proxy  *proxy
}

func newBackend(t *testing.T) *backend {
	dsn := testDSN(t)
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		t.Fatalf("WARDEN_TEST_POSTGRES must be a postgres:// URL")
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	p := newProxy(t, target)
	u.Host = p.ln.Addr().String()
	return &backend{dsn: u.String(), schema: uniqueSchema(t, dsn), proxy: p}
}

func (b *backend) Instance(t *testing.T) limits.Store {
	s, err := Open(t.Context(), b.dsn, &Options{Schema: b.schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func (b *backend) Break(t *testing.T)   { b.proxy.setBroken(true) }
func (b *backend) Restore(t *testing.T) { b.proxy.setBroken(false) }

func TestStore(t *testing.T) {
	testDSN(t)
	storetest.Run(t, func(t *testing.T) storetest.Backend { return newBackend(t) })
}

func TestMigrationsIdempotentAndVersioned(t *testing.T) {
	dsn := testDSN(t)
	schema := uniqueSchema(t, dsn)
	// Several replicas starting at once.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			s, err := Open(context.Background(), dsn, &Options{Schema: schema})
			if err == nil {
				s.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(t.Context(), dsn, &Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	rows, _ := s.pool.Query(t.Context(), `SELECT version FROM schema_migrations ORDER BY version`)
	got, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, m := range migrations {
		want = append(want, m.version)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("versions (-want +got):\n%s", diff)
	}
	var relpersistence string
	if err := s.pool.QueryRow(t.Context(), `SELECT relpersistence::text FROM pg_class WHERE oid = 'rate_log'::regclass`).Scan(&relpersistence); err != nil || relpersistence != "u" {
		t.Errorf("rate_log persistence %q (%v), want unlogged", relpersistence, err)
	}
	if _, err := s.pool.Exec(t.Context(), `INSERT INTO schema_migrations (version, name) VALUES (99, 'future')`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t.Context(), dsn, &Options{Schema: schema}); err == nil {
		t.Fatal("opened a schema migrated by a newer binary")
	}
}

func TestOpenRejectsBadInput(t *testing.T) {
	if _, err := Open(t.Context(), "postgres://u:hunter2@127.0.0.1:1/x", &Options{Schema: "Bad-Name"}); err == nil {
		t.Error("accepted invalid schema")
	}
	_, err := Open(t.Context(), "postgres://u:hunter2@[::1/x", nil)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("bad DSN error %v must exist and not echo the password", err)
	}
	// A dead port fails at once, and fails closed.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := Open(ctx, "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=2", nil); err == nil {
		t.Error("opened a store on a dead port")
	}
}

// TestTerminatedBackends kills every server process of both replicas'
// pools: the calls that hit a dead connection fail closed, and the pools
// recover by themselves.
func TestTerminatedBackends(t *testing.T) {
	dsn := testDSN(t)
	schema := uniqueSchema(t, dsn)
	app := "warden_term_" + strings.ToLower(rand.Text()[:8])
	var lims []*limits.Limiter
	for range 2 {
		s, err := Open(t.Context(), dsn, &Options{Schema: schema, ApplicationName: app})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		l, err := limits.New(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		lims = append(lims, l)
	}
	for _, l := range lims {
		if _, err := l.AllowRequest(t.Context(), "c"); err != nil {
			t.Fatal(err)
		}
	}
	admin, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	var killed int
	if err := admin.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))
		FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&killed); err != nil || killed == 0 {
		t.Fatalf("terminated %d backends: %v", killed, err)
	}
	var failures int
	for i := range 20 {
		_, err := lims[i%2].AllowRequest(t.Context(), "c")
		switch {
		case err == nil:
		case limits.CodeOf(err) == limits.CodeRateLimitUnavailable:
			failures++
		default:
			t.Fatalf("call %d: %v, want success or rate_limit_unavailable", i, err)
		}
	}
	// Once the pools have replaced their dead connections, service is
	// back. On a loaded machine that can take more than the 20 calls
	// above, so each replica is given a bounded number of tries.
	for i, l := range lims {
		var err error
		for try := 0; try < 50; try++ {
			if _, err = l.AllowRequest(t.Context(), "c"); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("replica %d after termination and 50 more tries: %v", i, err)
		}
	}
	t.Logf("%d of 20 calls right after termination failed closed", failures)
}

// TestUpgradeFromVersion2 applies the first two migrations, as a binary of
// that era would have, then opens with this one: version 3 is applied and
// admissions work.
func TestUpgradeFromVersion2(t *testing.T) {
	dsn := testDSN(t)
	schema := uniqueSchema(t, dsn)
	saved := migrations
	migrations = migrations[:2]
	old, err := Open(t.Context(), dsn, &Options{Schema: schema})
	migrations = saved
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	s, err := Open(t.Context(), dsn, &Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	l, _ := limits.New(s, nil)
	sc, err := l.BeginScan(t.Context(), limits.ScanRequest{Credential: "c", Tool: "t", ScanKey: "k", Charge: true, CallID: "x"})
	if err != nil {
		t.Fatalf("admission after upgrade: %v", err)
	}
	sc.Release(t.Context())
}

func TestPrune(t *testing.T) {
	dsn := testDSN(t)
	s, err := Open(t.Context(), dsn, &Options{Schema: uniqueSchema(t, dsn)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	p := limits.RatePolicy{Limit: 2, Window: time.Minute}
	for _, k := range []struct {
		key string
		at  time.Time
	}{{"a", t0}, {"b", t0.Add(time.Hour)}, {"edge", t0.Add(time.Hour - time.Minute)}} {
		if _, err := s.TakeRate(t.Context(), k.key, k.at, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AppendAudit(t.Context(), limits.AuditRecord{Time: t0, Credential: "c", Tool: "t", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Prune(t.Context(), t0.Add(time.Hour), t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	rows, _ := s.pool.Query(t.Context(), `SELECT key FROM rate_log ORDER BY key`)
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	// "edge" was admitted exactly one window ago: it still counts, so it stays.
	if diff := cmp.Diff([]string{"b", "edge"}, keys); diff != "" {
		t.Errorf("rate keys after prune (-want +got):\n%s", diff)
	}
	var audits int
	s.pool.QueryRow(t.Context(), `SELECT count(*) FROM audit_log`).Scan(&audits)
	if audits != 0 {
		t.Errorf("%d audit rows after prune, want 0", audits)
	}
}

// TestOpenWaitsForAnotherReplicasMigration: a replica starting while
// another holds the migration lock for longer than the request path's
// lock_timeout (1 s) waits for it instead of failing to start.
func TestOpenWaitsForAnotherReplicasMigration(t *testing.T) {
	dsn := testDSN(t)
	schema := uniqueSchema(t, dsn)
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	tx, err := conn.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(t.Context(), `SELECT pg_advisory_xact_lock($1)`, lockKey(schema, "migrate")); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	time.AfterFunc(1500*time.Millisecond, func() {
		tx.Rollback(context.Background())
		close(released)
	})
	defer func() { <-released }() // the holder's connection is closed after this
	start := time.Now()
	s, err := Open(t.Context(), dsn, &Options{Schema: schema})
	if err != nil {
		t.Fatalf("Open while another replica migrates: %v", err)
	}
	defer s.Close()
	if waited := time.Since(start); waited < time.Second {
		t.Fatalf("Open returned after %v without waiting for the lock", waited)
	}
}

func TestApprovals(t *testing.T) {
	testDSN(t)
	approvaltest.Run(t, func(t *testing.T) approval.Store { return newBackend(t).Instance(t).(*Store) })
	approvaltest.RunRequests(t, func(t *testing.T) approval.RequestStore { return newBackend(t).Instance(t).(*Store) })
}

type annotationBackend struct{ b *backend }

func (a annotationBackend) Instance(t *testing.T) annotation.Store { return a.b.Instance(t).(*Store) }

// TestAnnotations runs the suite; each Instance is another pool on the
// same schema, as a second replica would open it.
func TestAnnotations(t *testing.T) {
	testDSN(t)
	annotationtest.Run(t, func(t *testing.T) annotationtest.Backend { return annotationBackend{newBackend(t)} })
}

func TestAuthorizationServerRecords(t *testing.T) {
	testDSN(t)
	asstoretest.Run(t, newBackend(t).Instance(t).(*Store))
}

type viewBackend struct{ *backend }

func (b viewBackend) Instance(t *testing.T) viewstore.Store { return b.backend.Instance(t).(*Store) }

func (b viewBackend) Prune(t *testing.T, now time.Time) {
	if err := b.backend.Instance(t).(*Store).Prune(t.Context(), now, time.Time{}); err != nil {
		t.Fatal(err)
	}
}

func TestViews(t *testing.T) {
	testDSN(t)
	viewstoretest.Run(t, func(t *testing.T) viewstoretest.Backend { return viewBackend{newBackend(t)} })
}

func TestFindings(t *testing.T) {
	testDSN(t)
	findingtest.Run(t, func(t *testing.T) finding.Store { return newBackend(t).Instance(t).(*Store) })
}

// TestMigrationMergedOutOfOrder: a schema migrated by a build that lacked
// a lower-numbered migration (branches merged out of order) gets it on
// the next open.
func TestMigrationMergedOutOfOrder(t *testing.T) {
	dsn := testDSN(t)
	schema := uniqueSchema(t, dsn)
	saved := migrations
	var without []migration
	for _, m := range migrations {
		if m.name != "annotations" {
			without = append(without, m)
		}
	}
	migrations = without
	old, err := Open(t.Context(), dsn, &Options{Schema: schema})
	migrations = saved
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	s, err := Open(t.Context(), dsn, &Options{Schema: schema})
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
