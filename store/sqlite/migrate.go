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
	{4, "binary_views", `
-- File contents by SHA-256: uploads and data_base64 snippets, so that any
-- replica can rebuild a view. A rowid table: rows are large.
CREATE TABLE bin_blob (
	sha256     TEXT NOT NULL UNIQUE,       -- lower-case hex
	data       BLOB NOT NULL,
	expires_us INTEGER NOT NULL
);
CREATE INDEX bin_blob_expires ON bin_blob (expires_us);

-- Which tenant uploaded or opened which file: a cached analysis or a blob
-- is served only to such a tenant.
CREATE TABLE bin_access (
	tenant     TEXT NOT NULL,
	sha256     TEXT NOT NULL,
	expires_us INTEGER NOT NULL,
	PRIMARY KEY (tenant, sha256)
) WITHOUT ROWID;
CREATE INDEX bin_access_expires ON bin_access (expires_us);

-- Analysis snapshots by file, engine version and load options.
CREATE TABLE bin_analysis (
	cache_key  TEXT NOT NULL UNIQUE,
	sha256     TEXT NOT NULL,
	snapshot   BLOB NOT NULL,
	expires_us INTEGER NOT NULL
);
CREATE INDEX bin_analysis_sha ON bin_analysis (sha256);
CREATE INDEX bin_analysis_expires ON bin_analysis (expires_us);

-- Open views per caller (a digest of issuer, tenant and credential).
CREATE TABLE bin_view (
	caller     TEXT NOT NULL,
	id         TEXT NOT NULL,
	tenant     TEXT NOT NULL,
	sha256     TEXT NOT NULL,
	name       TEXT NOT NULL,
	options    BLOB NOT NULL,
	path       TEXT NOT NULL,              -- server path of a path-backed view, never shown; '' for a blob
	size       INTEGER NOT NULL,
	opened_us  INTEGER NOT NULL,
	used_us    INTEGER NOT NULL,
	expires_us INTEGER NOT NULL,           -- live iff expires_us > now
	PRIMARY KEY (caller, id)
) WITHOUT ROWID;
CREATE INDEX bin_view_sha ON bin_view (sha256, expires_us);
CREATE INDEX bin_view_expires ON bin_view (expires_us);

-- Bytes uploaded per credential digest and UTC day.
CREATE TABLE bin_upload (
	credential TEXT NOT NULL,
	day        TEXT NOT NULL,              -- UTC 'YYYY-MM-DD'
	bytes      INTEGER NOT NULL CHECK (bytes >= 0),
	PRIMARY KEY (credential, day)
) WITHOUT ROWID;
`},
	{5, "annotations", `
CREATE TABLE annotation_log (              -- append-only: rows are never updated or deleted
	tenant   TEXT NOT NULL,
	sha256   TEXT NOT NULL,                -- the file's digest, lower-case hex
	seq      INTEGER NOT NULL,             -- 1, 2, ... per file, assigned under the write lock
	kind     TEXT NOT NULL,                -- comment, name, function
	rel_addr INTEGER NOT NULL,             -- address minus image base, as a uint64 bit pattern
	text     TEXT NOT NULL,
	author   TEXT NOT NULL,                -- credential
	at_us    INTEGER NOT NULL,
	deleted  INTEGER NOT NULL,
	PRIMARY KEY (tenant, sha256, seq)
) WITHOUT ROWID;
CREATE INDEX annotation_log_addr ON annotation_log (tenant, sha256, kind, rel_addr, seq);
`},
	{6, "findings", `
CREATE TABLE finding (
	tenant         TEXT NOT NULL,
	id             TEXT NOT NULL,
	created_us     INTEGER NOT NULL,
	credential     TEXT NOT NULL,          -- who recorded it
	title          TEXT NOT NULL,
	severity       TEXT NOT NULL,
	severity_rank  INTEGER NOT NULL,       -- finding.Rank: info 0 ... critical 4
	target         TEXT NOT NULL,
	evidence       TEXT NOT NULL,          -- already redacted by the tenant's privacy mode
	source_tool    TEXT NOT NULL,
	correlation_id TEXT NOT NULL,
	PRIMARY KEY (tenant, id)
) WITHOUT ROWID;
CREATE INDEX finding_tenant_created ON finding (tenant, created_us, id);
`},
	{8, "local_authorization_server", `
CREATE TABLE oauth_client (
	id            TEXT PRIMARY KEY,
	name          TEXT NOT NULL,
	redirect_uris TEXT NOT NULL,          -- JSON array
	created_us    INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE oauth_token (
	kind       TEXT NOT NULL,
	signature  TEXT NOT NULL,             -- HMAC signature or jti: never a token
	grant_id   TEXT NOT NULL,
	client_id  TEXT NOT NULL,
	active     INTEGER NOT NULL,
	expires_us INTEGER NOT NULL,
	data       BLOB NOT NULL,
	PRIMARY KEY (kind, signature)
) WITHOUT ROWID;
CREATE INDEX oauth_token_grant ON oauth_token (grant_id, kind);
CREATE INDEX oauth_token_expires ON oauth_token (expires_us);
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
	{20, "scan_fence", `
-- Admissions the Limiter could not hear back from are cancelled by lease
-- id (limits.ScanStore.CancelAdmission): the charge records the lease that
-- made it, and a cancelled lease id stays fenced, as a row that is never
-- live (expires_us 0), until fence_until_us.
ALTER TABLE scan_ledger ADD COLUMN lease_id TEXT NOT NULL DEFAULT '';
ALTER TABLE scan_lease ADD COLUMN fence_until_us INTEGER NOT NULL DEFAULT 0;
`},
	{22, "audit_once", `
-- A record is kept once: the Limiter writes a record again when the commit
-- that held it gave no answer (it may have committed), and the insert skips
-- a record already kept. Records are the same when every field is: a replay
-- of a call, or its refund, differs at least in time, outcome or charge.
-- The unique index leads with at_us, so it also serves the time-range
-- queries the index it replaces served.
DELETE FROM audit_log WHERE id NOT IN
	(SELECT min(id) FROM audit_log
	 GROUP BY at_us, correlation_id, credential, tenant, tool, outcome, duration_us, quota_charged);
DROP INDEX audit_log_at;
CREATE UNIQUE INDEX audit_log_once ON audit_log
	(at_us, correlation_id, credential, tenant, tool, outcome, duration_us, quota_charged);
`},
	{23, "approval_requests", `
-- Out-of-band approval requests (issue 23): a call from a client that
-- cannot ask waits for a person's decision on the console. No credential
-- is kept: caller and match are SHA-256 keys (approval.Key), the summary
-- passed the secret filter.
CREATE TABLE approval_request (
	id          TEXT PRIMARY KEY,            -- 128 random bits, hex
	match_key   TEXT NOT NULL,               -- caller, scope, tool, arguments
	caller      TEXT NOT NULL,               -- who may decide
	owner       TEXT NOT NULL,               -- or the owner of the tenant
	tenant      TEXT NOT NULL,
	grant_key   TEXT NOT NULL,               -- what approve-for-session grants
	tool        TEXT NOT NULL,
	trust       TEXT NOT NULL,
	summary     TEXT NOT NULL,
	state       TEXT NOT NULL,
	decided_by  TEXT NOT NULL,
	spent       INTEGER NOT NULL DEFAULT 0,
	created_us  INTEGER NOT NULL,
	expires_us  INTEGER NOT NULL,
	decided_us  INTEGER NOT NULL
);
CREATE INDEX approval_request_match ON approval_request (match_key, created_us);
CREATE INDEX approval_request_tenant ON approval_request (tenant, created_us);
CREATE INDEX approval_request_caller ON approval_request (caller, expires_us);
`},
	{24, "finding_status", `
-- A finding's triage state set on the console (issue 23): accepted risk or
-- fixed, who set it and when. A finding without a row is open.
CREATE TABLE finding_status (
	tenant   TEXT NOT NULL,
	id       TEXT NOT NULL,
	state    TEXT NOT NULL,
	set_by   TEXT NOT NULL,
	set_us   INTEGER NOT NULL,
	PRIMARY KEY (tenant, id)
);
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
	rows, err := tx.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return err
	}
	done := map[int]bool{}
	cur := 0
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		done[v], cur = true, max(cur, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if cur > SchemaVersion {
		return fmt.Errorf("sqlite store: database schema version %d is newer than this binary's %d", cur, SchemaVersion)
	}
	// Every migration not yet applied, also one numbered below the
	// newest applied: numbers are handed out to parallel branches, which
	// may merge out of order.
	for _, m := range migrations {
		if done[m.version] {
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
