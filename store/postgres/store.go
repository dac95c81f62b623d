package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/viewstore"
)

// DefaultSchema is the schema Open uses when Options.Schema is empty.
const DefaultSchema = "warden"

// DefaultMaxConns is each store's pool size when Options.MaxConns is
// zero: two replicas use 32 of PostgreSQL's default 100 connections.
const DefaultMaxConns = 16

var schemaRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Options tunes Open. The zero value is the default for every field.
type Options struct {
	// Schema holds all of the store's tables. Zero: "warden". Lower-case
	// letters, digits and underscores only.
	Schema string
	// MaxConns caps the pool. Zero: the DSN's pool_max_conns if it has
	// one, else DefaultMaxConns. (pgx's own default,
	// max(4, CPUs), left rate decisions and admissions queueing for a
	// connection whenever more than four requests were in flight.)
	MaxConns int32
	// StatementTimeout is set as statement_timeout on every connection.
	// Zero: 2 s.
	StatementTimeout time.Duration
	// LockTimeout is set as lock_timeout on every connection. Zero: 1 s.
	LockTimeout time.Duration
	// ApplicationName is reported to PostgreSQL (pg_stat_activity). Zero:
	// "warden".
	ApplicationName string
}

// Store implements limits.Store on a PostgreSQL pool.
type Store struct {
	pool   *pgxpool.Pool
	schema string
	// findingsCap, when positive, lowers finding.MaxPerTenant.
	findingsCap atomic.Int64
	// slots is the largest capacity whose scan slots are known to exist.
	slots atomic.Int64
}

var _ limits.Store = (*Store)(nil)

// Open connects with dsn (a libpq URL or keyword/value string), and applies
// pending migrations. The DSN's own search_path, if any, is replaced by the
// store's schema.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Schema == "" {
		o.Schema = DefaultSchema
	}
	if !schemaRE.MatchString(o.Schema) {
		return nil, fmt.Errorf("postgres store: invalid schema name %q", o.Schema)
	}
	if o.StatementTimeout == 0 {
		o.StatementTimeout = 2 * time.Second
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = time.Second
	}
	if o.ApplicationName == "" {
		o.ApplicationName = "warden"
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The parse error can echo the DSN, password included.
		return nil, errors.New("postgres store: cannot parse DSN")
	}
	switch {
	case o.MaxConns > 0:
		cfg.MaxConns = o.MaxConns
	case !strings.Contains(dsn, "pool_max_conns"): // the DSN's own setting stands
		cfg.MaxConns = DefaultMaxConns
	}
	rp := cfg.ConnConfig.RuntimeParams
	rp["search_path"] = o.Schema
	rp["statement_timeout"] = strconv.FormatInt(o.StatementTimeout.Milliseconds(), 10)
	rp["lock_timeout"] = strconv.FormatInt(o.LockTimeout.Milliseconds(), 10)
	rp["application_name"] = o.ApplicationName
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres store: %w", err)
	}
	if err := migrate(ctx, pool, o.Schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres store: migrate: %w", err)
	}
	return &Store{pool: pool, schema: o.Schema}, nil
}

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping checks the database answers, is at SchemaVersion and accepts
// writes: it rewrites the readiness probe's row, which fails on a
// read-only server (a standby after a failover, default_transaction_read_only)
// or a full disk, as every decision would.
func (s *Store) Ping(ctx context.Context) error {
	var v int
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return err
	}
	if v != SchemaVersion {
		return fmt.Errorf("postgres store: schema version %d, want %d", v, SchemaVersion)
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO readiness_probe (id, at_us) VALUES (1, $1)
		ON CONFLICT (id) DO UPDATE SET at_us = excluded.at_us`, time.Now().UnixMicro())
	return err
}

// TakeRate implements limits.RateStore in one round trip.
func (s *Store) TakeRate(ctx context.Context, key string, now time.Time, p limits.RatePolicy) (limits.RateDecision, error) {
	return takeRate(ctx, s.pool, key, now.UnixMicro(), p)
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func takeRate(ctx context.Context, q querier, key string, nowUS int64, p limits.RatePolicy) (limits.RateDecision, error) {
	var d limits.RateDecision
	var resetUS, retryUS int64
	err := q.QueryRow(ctx, `SELECT allowed, remaining, reset_us, retry_us FROM rate_take($1, $2, $3, $4)`,
		key, nowUS, p.Window.Microseconds(), p.Limit).Scan(&d.Allowed, &d.Remaining, &resetUS, &retryUS)
	if err != nil {
		return limits.RateDecision{}, err
	}
	d.Policy = p
	d.Reset = time.Duration(resetUS) * time.Microsecond
	d.RetryAfter = time.Duration(retryUS) * time.Microsecond
	return d, nil
}

// Prune deletes state that can no longer affect a decision at now: rate
// logs whose every entry has left its window, expired leases, approvals
// and binary views, blobs and analyses no live view needs, and expired
// protocol state (sessions, tasks, stream events). Audit and ledger rows
// older than before are deleted too when before is not zero.
func (s *Store) Prune(ctx context.Context, now, before time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		n := now.UnixMicro()
		if _, err := tx.Exec(ctx, `DELETE FROM rate_log WHERE expires_us < $1`, n); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM scan_lease WHERE expires_us <= $1 AND fence_until_us <= $1`, n); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM approval_grant WHERE until_us <= $1`, n); err != nil {
			return err
		}
		// Out-of-band requests stay a week past their expiry, for the
		// console's history of who decided.
		if _, err := tx.Exec(ctx, `DELETE FROM approval_request WHERE expires_us < $1`, now.Add(-approval.History).UnixMicro()); err != nil {
			return err
		}
		if err := pruneViews(ctx, tx, n, viewstore.Day(now)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM state_record WHERE expires_us < $1`, n); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM state_message WHERE expires_us < $1`, n); err != nil {
			return err
		}
		if before.IsZero() {
			return nil
		}
		b := before.UnixMicro()
		if _, err := tx.Exec(ctx, `DELETE FROM audit_log WHERE at_us < $1`, b); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM scan_ledger WHERE charged_us < $1`, b)
		return err
	})
}
