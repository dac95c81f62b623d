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
	{3, "scan_admit", `
-- Scan admission in one round trip, so the advisory lock that serialises
-- admissions is held for server-side work only. Steps and refusal codes are
-- those of package limits. A refusal after the rate window or the monthly
-- counter was touched raises WR001 inside an inner block, whose
-- subtransaction rollback undoes those writes; OUT values survive it.
CREATE FUNCTION scan_admit(p_lock bigint, p_now bigint, p_cred text, p_tenant text, p_tool text,
	p_key text, p_lease text, p_ttl bigint, p_max int, p_cap int, p_charge boolean, p_call text,
	p_rate_window bigint, p_rate_limit int, p_period text, p_monthly bigint,
	OUT o_refusal text, OUT o_retry_us bigint, OUT o_charged boolean, OUT o_used bigint, OUT o_expires_us bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
	v_mine int;
	v_dup  int;
	v_all  int;
	v_soon bigint;
	v_key  text;
	v_rl   record;
BEGIN
	o_refusal := ''; o_retry_us := 0; o_charged := false; o_used := 0; o_expires_us := 0;
	PERFORM pg_advisory_xact_lock(p_lock);
	DELETE FROM scan_lease l WHERE l.expires_us <= p_now;
	SELECT count(*), count(*) FILTER (WHERE l.scan_key = p_key), min(l.expires_us)
	  INTO v_mine, v_dup, v_soon FROM scan_lease l WHERE l.credential = p_cred;
	IF v_dup > 0 THEN
		o_refusal := 'duplicate_scan';
		RETURN;
	END IF;
	IF v_mine >= p_max THEN
		o_refusal := 'too_many_concurrent_scans';
		o_retry_us := greatest(coalesce(v_soon - p_now, 0), 1000000);
		RETURN;
	END IF;
	SELECT count(*), min(l.expires_us) INTO v_all, v_soon FROM scan_lease l;
	IF v_all >= p_cap THEN
		o_refusal := 'scanner_busy';
		o_retry_us := greatest(coalesce(v_soon - p_now, 0), 1000000);
		RETURN;
	END IF;
	IF p_charge THEN
		SELECT g.scan_key INTO v_key FROM scan_ledger g WHERE g.credential = p_cred AND g.call_id = p_call;
		IF FOUND THEN
			IF v_key <> p_key THEN
				o_refusal := 'idempotency_conflict';
				RETURN;
			END IF;
			-- A replay of a call already charged: admitted, not charged.
		ELSE
			BEGIN
				SELECT * INTO v_rl FROM rate_take('scan:' || p_cred, p_now, p_rate_window, p_rate_limit);
				IF NOT v_rl.allowed THEN
					o_refusal := 'rate_limit_exceeded';
					o_retry_us := v_rl.retry_us;
					RAISE EXCEPTION USING ERRCODE = 'WR001';
				END IF;
				INSERT INTO quota_counter AS q (credential, period, used)
				SELECT p_cred, p_period, 1 WHERE p_monthly <> 0
				ON CONFLICT (credential, period) DO UPDATE SET used = q.used + 1
				 WHERE p_monthly < 0 OR q.used < p_monthly
				RETURNING q.used INTO o_used;
				IF NOT FOUND THEN
					o_refusal := 'quota_exceeded';
					RAISE EXCEPTION USING ERRCODE = 'WR001';
				END IF;
				INSERT INTO scan_ledger (credential, call_id, scan_key, tenant, tool, period, charged_us)
				VALUES (p_cred, p_call, p_key, p_tenant, p_tool, p_period, p_now);
				o_charged := true;
			EXCEPTION WHEN SQLSTATE 'WR001' THEN
				o_used := 0;
				RETURN;
			END;
		END IF;
	END IF;
	o_expires_us := p_now + p_ttl;
	INSERT INTO scan_lease (lease_id, credential, scan_key, tool, expires_us)
	VALUES (p_lease, p_cred, p_key, p_tool, o_expires_us);
END
$fn$;
`},
	{4, "approvals", `
CREATE TABLE approval_grant (
	key      text PRIMARY KEY,          -- SHA-256 of who approved what (approval.Key)
	until_us bigint NOT NULL
);
`},
	{5, "binary_views", `
-- File contents by SHA-256: uploads and data_base64 snippets, so that any
-- replica can rebuild a view.
CREATE TABLE bin_blob (
	sha256     text PRIMARY KEY,        -- lower-case hex
	data       bytea NOT NULL,
	expires_us bigint NOT NULL
);
CREATE INDEX bin_blob_expires ON bin_blob (expires_us);

-- Which tenant uploaded or opened which file: a cached analysis or a blob
-- is served only to such a tenant.
CREATE TABLE bin_access (
	tenant     text NOT NULL,
	sha256     text NOT NULL,
	expires_us bigint NOT NULL,
	PRIMARY KEY (tenant, sha256)
);
CREATE INDEX bin_access_expires ON bin_access (expires_us);

-- Analysis snapshots by file, engine version and load options.
CREATE TABLE bin_analysis (
	cache_key  text PRIMARY KEY,
	sha256     text NOT NULL,
	snapshot   bytea NOT NULL,
	expires_us bigint NOT NULL
);
CREATE INDEX bin_analysis_sha ON bin_analysis (sha256);
CREATE INDEX bin_analysis_expires ON bin_analysis (expires_us);

-- Open views per caller (a digest of issuer, tenant and credential).
CREATE TABLE bin_view (
	caller     text NOT NULL,
	id         text NOT NULL,
	tenant     text NOT NULL,
	sha256     text NOT NULL,
	name       text NOT NULL,
	options    bytea NOT NULL,
	path       text NOT NULL,           -- server path of a path-backed view, never shown; '' for a blob
	size       bigint NOT NULL,
	opened_us  bigint NOT NULL,
	used_us    bigint NOT NULL,
	expires_us bigint NOT NULL,         -- live iff expires_us > now
	PRIMARY KEY (caller, id)
);
CREATE INDEX bin_view_sha ON bin_view (sha256, expires_us);
CREATE INDEX bin_view_expires ON bin_view (expires_us);

-- Bytes uploaded per credential digest and UTC day.
CREATE TABLE bin_upload (
	credential text NOT NULL,
	day        text NOT NULL,           -- UTC 'YYYY-MM-DD'
	bytes      bigint NOT NULL CHECK (bytes >= 0),
	PRIMARY KEY (credential, day)
);
`},
	{6, "annotations", `
CREATE TABLE annotation_log (           -- append-only: rows are never updated or deleted
	tenant   text NOT NULL,
	sha256   text NOT NULL,             -- the file's digest, lower-case hex
	seq      bigint NOT NULL,           -- 1, 2, ... per file, assigned under a per-file advisory lock
	kind     text NOT NULL,             -- comment, name, function
	rel_addr bigint NOT NULL,           -- address minus image base, as a uint64 bit pattern
	text     text NOT NULL,
	author   text NOT NULL,             -- credential
	at_us    bigint NOT NULL,
	deleted  boolean NOT NULL,
	PRIMARY KEY (tenant, sha256, seq)
);
CREATE INDEX annotation_log_addr ON annotation_log (tenant, sha256, kind, rel_addr, seq);
`},
	{7, "findings", `
CREATE TABLE finding (
	tenant         text NOT NULL,
	id             text NOT NULL,
	created_us     bigint NOT NULL,
	credential     text NOT NULL,       -- who recorded it
	title          text NOT NULL,
	severity       text NOT NULL,
	severity_rank  int NOT NULL,        -- finding.Rank: info 0 ... critical 4
	target         text NOT NULL,
	evidence       text NOT NULL,       -- already redacted by the tenant's privacy mode
	source_tool    text NOT NULL,
	correlation_id text NOT NULL,
	PRIMARY KEY (tenant, id)
);
CREATE INDEX finding_tenant_created ON finding (tenant, created_us, id);
`},
	{9, "local_authorization_server", `
CREATE TABLE oauth_client (
	id            text PRIMARY KEY,
	name          text NOT NULL,
	redirect_uris jsonb NOT NULL,
	created_us    bigint NOT NULL
);
CREATE TABLE oauth_token (
	kind       text NOT NULL,
	signature  text NOT NULL,         -- HMAC signature or jti: never a token
	grant_id   text NOT NULL,
	client_id  text NOT NULL,
	active     boolean NOT NULL,
	expires_us bigint NOT NULL,
	data       bytea NOT NULL,
	PRIMARY KEY (kind, signature)
);
CREATE INDEX oauth_token_grant ON oauth_token (grant_id, kind);
CREATE INDEX oauth_token_expires ON oauth_token (expires_us);
`},
	{10, "readiness", `
CREATE TABLE readiness_probe (
	id    int PRIMARY KEY CHECK (id = 1), -- one row, rewritten by every probe
	at_us bigint NOT NULL
);
`},
	{11, "credentials", `
CREATE TABLE credential (
	id           text PRIMARY KEY,
	kind         text NOT NULL,         -- 'api_key' | 'jwt'
	tenant       text NOT NULL,
	issuer       text NOT NULL,         -- jwt only; '' for API keys
	subject      text NOT NULL,
	key_hash     bytea,                 -- SHA-256 of an API key's secret
	entitlements text NOT NULL,         -- JSON array
	label        text NOT NULL,
	created_us   bigint NOT NULL,
	expires_us   bigint NOT NULL,       -- 0: never
	revoked_us   bigint NOT NULL        -- 0: not revoked
);
CREATE UNIQUE INDEX credential_subject ON credential (issuer, tenant, subject) WHERE kind = 'jwt';
CREATE INDEX credential_tenant ON credential (tenant, created_us);
`},
	{12, "protocol_state", `
CREATE TABLE state_record (             -- mcp.StateStore records: sessions, tasks, keys
	kind       text NOT NULL,
	id         text NOT NULL,
	owner      text NOT NULL,
	data       bytea NOT NULL,
	version    bigint NOT NULL,
	expires_us bigint NOT NULL,
	PRIMARY KEY (kind, id)
);
CREATE INDEX state_record_owner ON state_record (kind, owner, expires_us);
CREATE INDEX state_record_expires ON state_record (expires_us);
CREATE SEQUENCE state_message_seq;
CREATE TABLE state_message (            -- mcp.StateStore channels: stream events, answers
	channel    text NOT NULL,
	seq        bigint NOT NULL,
	data       bytea NOT NULL,
	expires_us bigint NOT NULL,
	PRIMARY KEY (channel, seq)
);
CREATE INDEX state_message_expires ON state_message (expires_us);
`},
	{20, "scan_fence", `
-- Admissions the Limiter could not hear back from are cancelled by lease
-- id (limits.ScanStore.CancelAdmission): the charge records the lease that
-- made it, and a cancelled lease id stays fenced, as a row that is never
-- live (expires_us 0), until fence_until_us. scan_admit sweeps and counts
-- accordingly.
ALTER TABLE scan_ledger ADD COLUMN lease_id text NOT NULL DEFAULT '';
ALTER TABLE scan_lease ADD COLUMN fence_until_us bigint NOT NULL DEFAULT 0;
CREATE OR REPLACE FUNCTION scan_admit(p_lock bigint, p_now bigint, p_cred text, p_tenant text, p_tool text,
	p_key text, p_lease text, p_ttl bigint, p_max int, p_cap int, p_charge boolean, p_call text,
	p_rate_window bigint, p_rate_limit int, p_period text, p_monthly bigint,
	OUT o_refusal text, OUT o_retry_us bigint, OUT o_charged boolean, OUT o_used bigint, OUT o_expires_us bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
	v_mine int;
	v_dup  int;
	v_all  int;
	v_soon bigint;
	v_key  text;
	v_rl   record;
BEGIN
	o_refusal := ''; o_retry_us := 0; o_charged := false; o_used := 0; o_expires_us := 0;
	PERFORM pg_advisory_xact_lock(p_lock);
	DELETE FROM scan_lease l WHERE l.expires_us <= p_now AND l.fence_until_us <= p_now;
	SELECT count(*), count(*) FILTER (WHERE l.scan_key = p_key), min(l.expires_us)
	  INTO v_mine, v_dup, v_soon FROM scan_lease l WHERE l.credential = p_cred AND l.expires_us > p_now;
	IF v_dup > 0 THEN
		o_refusal := 'duplicate_scan';
		RETURN;
	END IF;
	IF v_mine >= p_max THEN
		o_refusal := 'too_many_concurrent_scans';
		o_retry_us := greatest(coalesce(v_soon - p_now, 0), 1000000);
		RETURN;
	END IF;
	SELECT count(*), min(l.expires_us) INTO v_all, v_soon FROM scan_lease l WHERE l.expires_us > p_now;
	IF v_all >= p_cap THEN
		o_refusal := 'scanner_busy';
		o_retry_us := greatest(coalesce(v_soon - p_now, 0), 1000000);
		RETURN;
	END IF;
	IF p_charge THEN
		SELECT g.scan_key INTO v_key FROM scan_ledger g WHERE g.credential = p_cred AND g.call_id = p_call;
		IF FOUND THEN
			IF v_key <> p_key THEN
				o_refusal := 'idempotency_conflict';
				RETURN;
			END IF;
			-- A replay of a call already charged: admitted, not charged.
		ELSE
			BEGIN
				SELECT * INTO v_rl FROM rate_take('scan:' || p_cred, p_now, p_rate_window, p_rate_limit);
				IF NOT v_rl.allowed THEN
					o_refusal := 'rate_limit_exceeded';
					o_retry_us := v_rl.retry_us;
					RAISE EXCEPTION USING ERRCODE = 'WR001';
				END IF;
				INSERT INTO quota_counter AS q (credential, period, used)
				SELECT p_cred, p_period, 1 WHERE p_monthly <> 0
				ON CONFLICT (credential, period) DO UPDATE SET used = q.used + 1
				 WHERE p_monthly < 0 OR q.used < p_monthly
				RETURNING q.used INTO o_used;
				IF NOT FOUND THEN
					o_refusal := 'quota_exceeded';
					RAISE EXCEPTION USING ERRCODE = 'WR001';
				END IF;
				INSERT INTO scan_ledger (credential, call_id, scan_key, tenant, tool, period, charged_us, lease_id)
				VALUES (p_cred, p_call, p_key, p_tenant, p_tool, p_period, p_now, p_lease);
				o_charged := true;
			EXCEPTION WHEN SQLSTATE 'WR001' THEN
				o_used := 0;
				RETURN;
			END;
		END IF;
	END IF;
	o_expires_us := p_now + p_ttl;
	-- A fenced lease id (a cancelled admission) is still a row: the
	-- insert fails and the whole admission rolls back.
	INSERT INTO scan_lease (lease_id, credential, scan_key, tool, expires_us)
	VALUES (p_lease, p_cred, p_key, p_tool, o_expires_us);
END
$fn$;
`},
	{21, "scan_slots", `
-- Scan admission without one lock per schema. A credential's admissions
-- are serialised by an advisory lock of its own (its concurrency cap and
-- duplicate check); the capacity shared by every credential is a table of
-- numbered slots, each taken by one lease, which admissions claim with
-- FOR UPDATE SKIP LOCKED: admissions of different credentials no longer
-- wait for each other's commits. The store adds the slots a capacity
-- needs in a statement of its own (Store.ensureSlots), never inside an
-- admission, whose uncommitted rows every other admission would wait on.
CREATE TABLE scan_slot (
	slot       int PRIMARY KEY,
	lease_id   text UNIQUE,               -- the lease holding it; NULL when free
	expires_us bigint NOT NULL DEFAULT 0  -- held iff expires_us > now; equal to its lease's
);
ALTER TABLE scan_lease ADD COLUMN slot int;  -- NULL for a fence
-- Leases live at the upgrade keep a slot each.
INSERT INTO scan_slot (slot, lease_id, expires_us)
SELECT row_number() OVER (ORDER BY lease_id), lease_id, expires_us FROM scan_lease WHERE fence_until_us = 0;
UPDATE scan_lease l SET slot = s.slot FROM scan_slot s WHERE s.lease_id = l.lease_id;

CREATE OR REPLACE FUNCTION scan_admit(p_lock bigint, p_now bigint, p_cred text, p_tenant text, p_tool text,
	p_key text, p_lease text, p_ttl bigint, p_max int, p_cap int, p_charge boolean, p_call text,
	p_rate_window bigint, p_rate_limit int, p_period text, p_monthly bigint,
	OUT o_refusal text, OUT o_retry_us bigint, OUT o_charged boolean, OUT o_used bigint, OUT o_expires_us bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
	v_mine int;
	v_dup  int;
	v_all  int;
	v_soon bigint;
	v_key  text;
	v_slot int;
	v_rl   record;
BEGIN
	o_refusal := ''; o_retry_us := 0; o_charged := false; o_used := 0; o_expires_us := 0;
	-- This credential's admissions, one at a time. The wait is bounded by
	-- the statement's timeout, and by the caller's deadline, rather than
	-- by the connection's lock_timeout, which is meant for locks held by
	-- something stuck, not by a queue of the credential's own calls.
	PERFORM set_config('lock_timeout', current_setting('statement_timeout'), true);
	PERFORM pg_advisory_xact_lock(p_lock);
	SELECT count(*), count(*) FILTER (WHERE l.scan_key = p_key), min(l.expires_us)
	  INTO v_mine, v_dup, v_soon FROM scan_lease l WHERE l.credential = p_cred AND l.expires_us > p_now;
	IF v_dup > 0 THEN
		o_refusal := 'duplicate_scan';
		RETURN;
	END IF;
	IF v_mine >= p_max THEN
		o_refusal := 'too_many_concurrent_scans';
		o_retry_us := greatest(coalesce(v_soon - p_now, 0), 1000000);
		RETURN;
	END IF;
	-- Slots above a lowered capacity still count until they are freed.
	SELECT count(*), min(s.expires_us) INTO v_all, v_soon FROM scan_slot s WHERE s.expires_us > p_now;
	IF v_all >= p_cap THEN
		o_refusal := 'scanner_busy';
		o_retry_us := greatest(coalesce(v_soon - p_now, 0), 1000000);
		RETURN;
	END IF;
	o_expires_us := p_now + p_ttl;
	BEGIN
		-- A free slot no other admission is taking right now.
		SELECT s.slot INTO v_slot FROM scan_slot s WHERE s.slot <= p_cap AND s.expires_us <= p_now
		 ORDER BY s.slot LIMIT 1 FOR UPDATE SKIP LOCKED;
		IF NOT FOUND THEN
			o_refusal := 'scanner_busy';
			o_retry_us := 1000000;
			RAISE EXCEPTION USING ERRCODE = 'WR001';
		END IF;
		UPDATE scan_slot SET lease_id = p_lease, expires_us = o_expires_us WHERE slot = v_slot;
		IF p_charge THEN
			SELECT g.scan_key INTO v_key FROM scan_ledger g WHERE g.credential = p_cred AND g.call_id = p_call;
			IF FOUND THEN
				IF v_key <> p_key THEN
					o_refusal := 'idempotency_conflict';
					RAISE EXCEPTION USING ERRCODE = 'WR001';
				END IF;
				-- A replay of a call already charged: admitted, not charged.
			ELSE
				SELECT * INTO v_rl FROM rate_take('scan:' || p_cred, p_now, p_rate_window, p_rate_limit);
				IF NOT v_rl.allowed THEN
					o_refusal := 'rate_limit_exceeded';
					o_retry_us := v_rl.retry_us;
					RAISE EXCEPTION USING ERRCODE = 'WR001';
				END IF;
				INSERT INTO quota_counter AS q (credential, period, used)
				SELECT p_cred, p_period, 1 WHERE p_monthly <> 0
				ON CONFLICT (credential, period) DO UPDATE SET used = q.used + 1
				 WHERE p_monthly < 0 OR q.used < p_monthly
				RETURNING q.used INTO o_used;
				IF NOT FOUND THEN
					o_refusal := 'quota_exceeded';
					RAISE EXCEPTION USING ERRCODE = 'WR001';
				END IF;
				INSERT INTO scan_ledger (credential, call_id, scan_key, tenant, tool, period, charged_us, lease_id)
				VALUES (p_cred, p_call, p_key, p_tenant, p_tool, p_period, p_now, p_lease);
				o_charged := true;
			END IF;
		END IF;
	EXCEPTION WHEN SQLSTATE 'WR001' THEN
		o_used := 0; o_expires_us := 0; o_charged := false;
		RETURN;
	END;
	-- A fenced lease id (a cancelled admission) is still a row: the
	-- insert fails and the whole admission rolls back.
	INSERT INTO scan_lease (lease_id, credential, scan_key, tool, expires_us, slot)
	VALUES (p_lease, p_cred, p_key, p_tool, o_expires_us, v_slot);
END
$fn$;
`},
	{22, "audit_once", `
-- A record is kept once: the Limiter writes a record again when the commit
-- that held it gave no answer (it may have committed), and the insert skips
-- a record already kept. Records are the same when every field is: a replay
-- of a call, or its refund, differs at least in time, outcome or charge.
-- The unique index leads with at_us, so it also serves the time-range
-- queries the index it replaces served.
DELETE FROM audit_log a USING audit_log b
	WHERE a.id > b.id AND a.at_us = b.at_us AND a.correlation_id = b.correlation_id
	AND a.credential = b.credential AND a.tenant = b.tenant AND a.tool = b.tool AND a.outcome = b.outcome
	AND a.duration_us = b.duration_us AND a.quota_charged = b.quota_charged;
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
	id          text PRIMARY KEY,            -- 128 random bits, hex
	match_key   text NOT NULL,               -- caller, scope, tool, arguments
	caller      text NOT NULL,               -- who may decide
	owner       text NOT NULL,               -- or the owner of the tenant
	tenant      text NOT NULL,
	grant_key   text NOT NULL,               -- what approve-for-session grants
	tool        text NOT NULL,
	trust       text NOT NULL,
	summary     text NOT NULL,
	state       text NOT NULL,
	decided_by  text NOT NULL,
	spent       boolean NOT NULL DEFAULT false,
	created_us  bigint NOT NULL,
	expires_us  bigint NOT NULL,
	decided_us  bigint NOT NULL
);
CREATE INDEX approval_request_match ON approval_request (match_key, created_us);
CREATE INDEX approval_request_tenant ON approval_request (tenant, created_us);
CREATE INDEX approval_request_caller ON approval_request (caller, expires_us);
`},
	{24, "finding_status", `
-- A finding's triage state set on the console (issue 23): accepted risk or
-- fixed, who set it and when. A finding without a row is open.
CREATE TABLE finding_status (
	tenant   text NOT NULL,
	id       text NOT NULL,
	state    text NOT NULL,
	set_by   text NOT NULL,
	set_us   bigint NOT NULL,
	PRIMARY KEY (tenant, id)
);
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
		// Replicas starting together queue here for the whole of each
		// other's migration, which can outlast the per-connection
		// lock_timeout meant for the request path; bound it separately.
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '60s'`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SET LOCAL statement_timeout = '60s'`); err != nil {
			return err
		}
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
		rows, err := tx.Query(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return err
		}
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return err
		}
		done := map[int]bool{}
		cur := 0
		for _, v := range applied {
			done[v], cur = true, max(cur, v)
		}
		if cur > SchemaVersion {
			return fmt.Errorf("postgres store: schema version %d is newer than this binary's %d", cur, SchemaVersion)
		}
		// Every migration not yet applied, also one numbered below the
		// newest applied: numbers are handed out to parallel branches,
		// which may merge out of order.
		for _, m := range migrations {
			if done[m.version] {
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
