package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// migration is one schema step. Versions are applied in order, each exactly
// once, recorded in schema_migrations; a database whose version is newer
// than this binary knows is refused rather than used.
type migration struct {
	version int
	name    string
	sql     string
}

var migrations = []migration{
	{1, "limits", `
CREATE TABLE rate_log (
	key        TEXT PRIMARY KEY,
	log        BLOB NOT NULL,              -- little-endian int64 µs timestamps, sorted
	expires_us INTEGER NOT NULL            -- newest entry + window: row is dead after this
) WITHOUT ROWID;                           -- no index on expires_us: it would double the pages each decision writes; Prune scans

CREATE TABLE scan_lease (
	lease_id   TEXT PRIMARY KEY,
	credential TEXT NOT NULL,
	scan_key   TEXT NOT NULL,
	tool       TEXT NOT NULL,
	expires_us INTEGER NOT NULL            -- live iff expires_us > now
) WITHOUT ROWID;
CREATE INDEX scan_lease_cred ON scan_lease (credential, expires_us);
CREATE INDEX scan_lease_expires ON scan_lease (expires_us);

CREATE TABLE quota_counter (
	credential TEXT NOT NULL,
	period     TEXT NOT NULL,              -- UTC 'YYYY-MM'
	used       INTEGER NOT NULL CHECK (used >= 0),
	PRIMARY KEY (credential, period)
) WITHOUT ROWID;

CREATE TABLE scan_ledger (
	credential TEXT NOT NULL,
	call_id    TEXT NOT NULL,
	scan_key   TEXT NOT NULL,
	tenant     TEXT NOT NULL,
	tool       TEXT NOT NULL,
	period     TEXT NOT NULL,
	charged_us INTEGER NOT NULL,
	PRIMARY KEY (credential, call_id)
) WITHOUT ROWID;
`},
	{2, "audit", `
CREATE TABLE audit_log (
	id             INTEGER PRIMARY KEY,
	at_us          INTEGER NOT NULL,
	correlation_id TEXT NOT NULL,
	credential     TEXT NOT NULL,
	tenant         TEXT NOT NULL,
	tool           TEXT NOT NULL,
	outcome        TEXT NOT NULL,
	duration_us    INTEGER NOT NULL,
	quota_charged  INTEGER NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at_us);
CREATE INDEX audit_log_cred_at ON audit_log (credential, at_us);
`},
	{3, "approvals", `
CREATE TABLE approval_grant (
	key      TEXT PRIMARY KEY,             -- SHA-256 of who approved what (approval.Key)
	until_us INTEGER NOT NULL
) WITHOUT ROWID;
`},
	{9, "readiness", `
CREATE TABLE readiness_probe (
	id    INTEGER PRIMARY KEY CHECK (id = 1),  -- one row, rewritten by every probe
	at_us INTEGER NOT NULL
);
`},
	{10, "credentials", `
CREATE TABLE credential (
	id           TEXT PRIMARY KEY,
	kind         TEXT NOT NULL,            -- 'api_key' | 'jwt'
	tenant       TEXT NOT NULL,
	issuer       TEXT NOT NULL,            -- jwt only; '' for API keys
	subject      TEXT NOT NULL,
	key_hash     BLOB,                     -- SHA-256 of an API key's secret
	entitlements TEXT NOT NULL,            -- JSON array
	label        TEXT NOT NULL,
	created_us   INTEGER NOT NULL,
	expires_us   INTEGER NOT NULL,         -- 0: never
	revoked_us   INTEGER NOT NULL          -- 0: not revoked
) WITHOUT ROWID;
CREATE UNIQUE INDEX credential_subject ON credential (issuer, tenant, subject) WHERE kind = 'jwt';
CREATE INDEX credential_tenant ON credential (tenant, created_us);
`},
	{11, "protocol_state", `
CREATE TABLE state_record (                -- mcp.StateStore records: sessions, tasks, keys
	kind       TEXT NOT NULL,
	id         TEXT NOT NULL,
	owner      TEXT NOT NULL,
	data       BLOB NOT NULL,
	version    INTEGER NOT NULL,
	expires_us INTEGER NOT NULL,
	PRIMARY KEY (kind, id)
) WITHOUT ROWID;
CREATE INDEX state_record_owner ON state_record (kind, owner, expires_us);
CREATE INDEX state_record_expires ON state_record (expires_us);
CREATE TABLE state_message (               -- mcp.StateStore channels: stream events, answers
	channel    TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	data       BLOB NOT NULL,
	expires_us INTEGER NOT NULL,
	PRIMARY KEY (channel, seq)
) WITHOUT ROWID;
CREATE INDEX state_message_expires ON state_message (expires_us);
`},
}

// SchemaVersion is the schema version this package migrates to.
var SchemaVersion = migrations[len(migrations)-1].version

// migrate applies the missing migrations in one immediate transaction, so
// two processes opening the same file at once apply each step once.
func migrate(ctx context.Context, db *sql.DB, nowUS int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_us INTEGER NOT NULL)`); err != nil {
		return err
	}
	var cur int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&cur); err != nil {
		return err
	}
	if cur > SchemaVersion {
		return fmt.Errorf("sqlite store: database schema version %d is newer than this binary's %d", cur, SchemaVersion)
	}
	for _, m := range migrations {
		if m.version <= cur {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("sqlite store: migration %d (%s): %w", m.version, m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_us) VALUES (?, ?, ?)`,
			m.version, m.name, nowUS); err != nil {
			return err
		}
	}
	return tx.Commit()
}
