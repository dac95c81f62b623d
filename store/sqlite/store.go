package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/viewstore"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// FileName is the database file Open creates inside the state directory.
const FileName = "warden.db"

// Store implements limits.Store on one SQLite file.
type Store struct {
	db *sql.DB
	// ro is a read-only pool for audit queries: in WAL mode readers never
	// block the writer, so a large `warden audit` query cannot hold up
	// request decisions queued on db's single connection.
	ro *sql.DB
	// ckpt, when Options.CheckpointInterval is set, is a second connection
	// that checkpoints the WAL in the background.
	ckpt     *sql.DB
	stopCkpt context.CancelFunc
	ckptDone chan struct{}
	// truncateFrames is the WAL length (in frames) past which the
	// checkpointer stops being polite: under sustained writes a passive
	// checkpoint may never catch up, so it runs a TRUNCATE checkpoint, which
	// briefly waits for the writer, to bound the WAL file.
	truncateFrames atomic.Int64
	// stmts holds the request and admission paths' statements, prepared
	// once on the single connection (preparing dominated a decision's CPU).
	stmts map[string]*sql.Stmt
	// findingsCap, when positive, lowers finding.MaxPerTenant.
	findingsCap atomic.Int64
}

var _ limits.Store = (*Store)(nil)

// Options tunes Open. The zero value is the default for every field.
type Options struct {
	// BusyTimeout is how long a write waits for another process holding the
	// file's write lock. Zero: 5 s. Each call is still bounded by its
	// context.
	BusyTimeout time.Duration
	// CheckpointInterval, when positive, moves WAL checkpoints from inside
	// commits (SQLite's default, every 1000 pages) to a second connection
	// that runs PRAGMA wal_checkpoint(PASSIVE) at this interval and
	// truncates the WAL past 16 MiB. Zero or negative: SQLite's default.
	// Measured under a saturating load it gave no better p99 and larger
	// worst cases (see docs/PERFORMANCE-limits.md), so it is off by default.
	CheckpointInterval time.Duration

	// checkpointed, in tests, gets a token after each checkpoint round.
	checkpointed chan<- struct{}
}

// Open opens (creating if needed) the store in the state directory dir,
// which is created with mode 0700, and applies pending migrations.
func Open(ctx context.Context, dir string, opts *Options) (*Store, error) {
	if dir == "" {
		return nil, errors.New("sqlite store: empty state directory")
	}
	if strings.ContainsAny(dir, "?#") {
		return nil, errors.New("sqlite store: path must not contain '?' or '#'")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sqlite store: %w", err)
	}
	return OpenFile(ctx, filepath.Join(dir, FileName), opts)
}

// OpenFile opens the store in the database file path. Most callers want
// Open with a state directory.
func OpenFile(ctx context.Context, path string, opts *Options) (*Store, error) {
	if strings.ContainsAny(path, "?#") {
		return nil, errors.New("sqlite store: path must not contain '?' or '#'")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	// Create the file owner-only before SQLite opens it: SQLite gives the
	// -wal and -shm files the database file's mode, and would otherwise
	// create all three readable by everyone under the usual umask.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sqlite store: %w", err)
	}
	f.Close()
	base := fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)",
		path, o.BusyTimeout.Milliseconds())
	dsn := base + "&_txlock=immediate"
	if o.CheckpointInterval > 0 {
		dsn += "&_pragma=wal_autocheckpoint(0)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite store: %w", err)
	}
	// One connection: writers queue in Go under their contexts rather than
	// in SQLite's sleeping busy handler.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := migrateRetrying(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite store: migrate: %w", err)
	}
	ro, err := sql.Open("sqlite", base+"&mode=ro")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite store: %w", err)
	}
	ro.SetMaxOpenConns(2)
	s := &Store{db: db, ro: ro}
	s.truncateFrames.Store(4096) // 16 MiB of 4 KiB pages
	s.stmts = make(map[string]*sql.Stmt)
	queries := []string{qSelectLog, qUpsertLog, qDeleteExpired, qCredentialLeases, qAllLeases,
		qLedgerKey, qChargeMonth, qInsertLedger, qInsertLease}
	for _, n := range auditChunks {
		queries = append(queries, qInsertAudits(n))
	}
	for _, q := range queries {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("sqlite store: prepare: %w", err)
		}
		s.stmts[q] = st
	}
	if o.CheckpointInterval > 0 {
		if s.ckpt, err = sql.Open("sqlite", base); err != nil {
			s.Close()
			return nil, fmt.Errorf("sqlite store: %w", err)
		}
		s.ckpt.SetMaxOpenConns(1)
		cctx, cancel := context.WithCancel(context.Background())
		s.stopCkpt, s.ckptDone = cancel, make(chan struct{})
		go s.checkpointLoop(cctx, o.CheckpointInterval, o.checkpointed)
	}
	return s, nil
}

// checkpointLoop copies the WAL back into the database every interval
// without blocking writers. Errors are left for the next round: the WAL
// only grows meanwhile, and decisions are unaffected.
func (s *Store) checkpointLoop(ctx context.Context, every time.Duration, rounds chan<- struct{}) {
	defer close(s.ckptDone)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.checkpoint(ctx)
		if rounds != nil {
			select {
			case rounds <- struct{}{}:
			default:
			}
		}
	}
}

// checkpoint runs one round of checkpointLoop.
func (s *Store) checkpoint(ctx context.Context) {
	var busy, frames, done int
	if err := s.ckpt.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done); err != nil {
		return
	}
	if int64(frames) > s.truncateFrames.Load() {
		s.ckpt.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
}

// Close closes the database. Calls after Close fail, and the Limiter turns
// those failures into *_unavailable errors.
func (s *Store) Close() error {
	if s.ckpt != nil {
		s.stopCkpt()
		<-s.ckptDone
		s.ckpt.Close()
	}
	s.ro.Close()
	return s.db.Close()
}

// Ping checks that the database is at SchemaVersion and that it accepts
// writes: it takes the write lock (a file locked by another process for
// longer than ctx allows is reported as unavailable) and commits a write
// to the readiness probe's row, which fails on a full disk or a
// read-only file as every decision would.
func (s *Store) Ping(ctx context.Context) error {
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		var v int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
			return false, err
		}
		if v != SchemaVersion {
			return false, fmt.Errorf("sqlite store: schema version %d, want %d", v, SchemaVersion)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO readiness_probe (id, at_us) VALUES (1, ?)
			ON CONFLICT (id) DO UPDATE SET at_us = excluded.at_us`, time.Now().UnixMicro())
		return err == nil, err
	})
}

// exec runs the prepared statement q inside tx.
func (s *Store) exec(ctx context.Context, tx *sql.Tx, q string, args ...any) (sql.Result, error) {
	return tx.StmtContext(ctx, s.stmts[q]).ExecContext(ctx, args...)
}

// queryRow runs the prepared statement q inside tx.
func (s *Store) queryRow(ctx context.Context, tx *sql.Tx, q string, args ...any) *sql.Row {
	return tx.StmtContext(ctx, s.stmts[q]).QueryRowContext(ctx, args...)
}

// withTx runs fn in an immediate transaction and commits if fn returns
// commit true and no error; otherwise it rolls back.
func (s *Store) withTx(ctx context.Context, fn func(tx *sql.Tx) (commit bool, err error)) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	commit, err := fn(tx)
	if err != nil || !commit {
		if rerr := tx.Rollback(); rerr != nil && err == nil {
			err = rerr
		}
		return err
	}
	return tx.Commit()
}

// Prune deletes state that can no longer affect a decision at now: rate
// logs whose every entry has left its window, expired leases, approvals
// and binary views, blobs and analyses no live view needs, and expired
// protocol state (sessions, tasks, stream events). Audit
// rows and ledger rows older than before are deleted too when before is
// not zero. It is safe to run at any time.
func (s *Store) Prune(ctx context.Context, now, before time.Time) error {
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		n := now.UnixMicro()
		if _, err := tx.ExecContext(ctx, `DELETE FROM rate_log WHERE expires_us < ?`, n); err != nil {
			return false, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM scan_lease WHERE expires_us <= ?1 AND fence_until_us <= ?1`, n); err != nil {
			return false, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM approval_grant WHERE until_us <= ?`, n); err != nil {
			return false, err
		}
		// Out-of-band requests stay a week past their expiry, for the
		// console's history of who decided.
		if _, err := tx.ExecContext(ctx, `DELETE FROM approval_request WHERE expires_us < ?`, now.Add(-approval.History).UnixMicro()); err != nil {
			return false, err
		}
		if err := pruneViews(ctx, tx, n, viewstore.Day(now)); err != nil {
			return false, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM state_record WHERE expires_us < ?`, n); err != nil {
			return false, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM state_message WHERE expires_us < ?`, n); err != nil {
			return false, err
		}
		if !before.IsZero() {
			b := before.UnixMicro()
			if _, err := tx.ExecContext(ctx, `DELETE FROM audit_log WHERE at_us < ?`, b); err != nil {
				return false, err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM scan_ledger WHERE charged_us < ?`, b); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// migrateRetrying migrates, trying again while another process holds the
// database busy. Two processes opening a new database at once race to
// turn it into WAL mode, and SQLite answers the loser SQLITE_BUSY without
// consulting the busy handler; a short wait and a second try succeed.
func migrateRetrying(ctx context.Context, db *sql.DB) error {
	delay := 10 * time.Millisecond
	for attempt := 0; ; attempt++ {
		err := migrate(ctx, db, time.Now().UnixMicro())
		if err == nil || attempt == 8 || !isBusy(err) {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay *= 2
	}
}

// isBusy reports SQLite's "database is locked" (SQLITE_BUSY).
func isBusy(err error) bool {
	var se interface{ Code() int }
	return errors.As(err, &se) && se.Code()&0xff == 5
}
