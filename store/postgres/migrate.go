package postgres

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

type migration struct {
	version int
	name    string
	sql     string
}

// migrations run with search_path set to the store's schema.
var migrations = []migration{
	{1, "limits", `
CREATE UNLOGGED TABLE rate_log (
	key        text PRIMARY KEY,
	log_us     bigint[] NOT NULL,      -- sorted µs timestamps, at most the policy's limit
	expires_us bigint NOT NULL         -- newest entry + window: row is dead after this
);
CREATE INDEX rate_log_expires ON rate_log (expires_us);

-- The sliding log of limits.TakeLog, under a row lock. Same semantics: an
-- entry exactly one window old still counts; the log is kept sorted and
-- trimmed to the newest p_limit entries.
CREATE FUNCTION rate_take(p_key text, p_now bigint, p_window bigint, p_limit int,
	OUT allowed boolean, OUT remaining int, OUT reset_us bigint, OUT retry_us bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
	v_log  bigint[];
	v_kept bigint[];
	v_n    int;
BEGIN
	SELECT r.log_us INTO v_log FROM rate_log r WHERE r.key = p_key FOR UPDATE;
	IF NOT FOUND THEN
		INSERT INTO rate_log (key, log_us, expires_us) VALUES (p_key, '{}', 0) ON CONFLICT (key) DO NOTHING;
		SELECT r.log_us INTO v_log FROM rate_log r WHERE r.key = p_key FOR UPDATE;
	END IF;
	SELECT coalesce(array_agg(e ORDER BY e), '{}') INTO v_kept
	  FROM unnest(v_log) AS u(e) WHERE e >= p_now - p_window;
	v_n := cardinality(v_kept);
	IF v_n < p_limit THEN
		SELECT array_agg(e ORDER BY e) INTO v_kept FROM unnest(array_append(v_kept, p_now)) AS u(e);
		UPDATE rate_log SET log_us = v_kept, expires_us = v_kept[v_n + 1] + p_window WHERE key = p_key;
		allowed   := true;
		remaining := p_limit - v_n - 1;
		reset_us  := greatest(v_kept[v_n + 1] + p_window + 1 - p_now, 0);
		retry_us  := 0;
		RETURN;
	END IF;
	IF v_n > p_limit THEN
		v_kept := v_kept[v_n - p_limit + 1 : v_n];
	END IF;
	IF cardinality(v_kept) <> cardinality(v_log) THEN
		UPDATE rate_log SET log_us = v_kept, expires_us = v_kept[p_limit] + p_window WHERE key = p_key;
	END IF;
	allowed   := false;
	remaining := 0;
	retry_us  := greatest(v_kept[1] + p_window + 1 - p_now, 0);
	reset_us  := retry_us;
END
$fn$;

CREATE TABLE scan_lease (
	lease_id   text PRIMARY KEY,
	credential text NOT NULL,
	scan_key   text NOT NULL,
	tool       text NOT NULL,
	expires_us bigint NOT NULL         -- live iff expires_us > now
);
CREATE INDEX scan_lease_cred ON scan_lease (credential, expires_us);
CREATE INDEX scan_lease_expires ON scan_lease (expires_us);

CREATE TABLE quota_counter (
	credential text NOT NULL,
	period     text NOT NULL,          -- UTC 'YYYY-MM'
	used       bigint NOT NULL CHECK (used >= 0),
	PRIMARY KEY (credential, period)
);

CREATE TABLE scan_ledger (
	credential text NOT NULL,
	call_id    text NOT NULL,
	scan_key   text NOT NULL,
	tenant     text NOT NULL,
	tool       text NOT NULL,
	period     text NOT NULL,
	charged_us bigint NOT NULL,
	PRIMARY KEY (credential, call_id)
);
`},
	{2, "audit", `
CREATE TABLE audit_log (
	id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at_us          bigint NOT NULL,
	correlation_id text NOT NULL,
	credential     text NOT NULL,
	tenant         text NOT NULL,
	tool           text NOT NULL,
	outcome        text NOT NULL,
	duration_us    bigint NOT NULL,
	quota_charged  bigint NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at_us);
CREATE INDEX audit_log_cred_at ON audit_log (credential, at_us);
`},
}

// SchemaVersion is the schema version this package migrates to.
var SchemaVersion = migrations[len(migrations)-1].version

// lockKey derives an advisory lock key from the schema and a purpose, so
// stores in different schemas of one database never wait on each other.
func lockKey(schema, purpose string) int64 {
	h := fnv.New64a()
	h.Write([]byte("warden:" + schema + ":" + purpose))
	return int64(h.Sum64())
}

// migrate creates the schema if needed and applies pending migrations in
// one transaction under an advisory lock, so replicas starting together
// apply each step once.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey(schema, "migrate")); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{schema}.Sanitize()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		var cur int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&cur); err != nil {
			return err
		}
		if cur > SchemaVersion {
			return fmt.Errorf("postgres store: schema version %d is newer than this binary's %d", cur, SchemaVersion)
		}
		for _, m := range migrations {
			if m.version <= cur {
				continue
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("postgres store: migration %d (%s): %w", m.version, m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return err
			}
		}
		return nil
	})
}
