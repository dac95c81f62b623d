package postgres

import (
	"context"
	"github.com/warden-mcp/warden/store/internal/sqlshare"

	"github.com/warden-mcp/warden/limits"
)

// AppendAudit implements limits.AuditStore: one record, or several in
// one statement (one round trip, committed together). A record already
// kept (written again after a commit whose answer was lost) is skipped.
func (s *Store) AppendAudit(ctx context.Context, rs ...limits.AuditRecord) error {
	switch len(rs) {
	case 0:
		return nil
	case 1:
		r := rs[0]
		_, err := s.pool.Exec(ctx, `INSERT INTO audit_log
			(at_us, correlation_id, credential, tenant, tool, outcome, duration_us, quota_charged)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT DO NOTHING`,
			r.Time.UnixMicro(), r.CorrelationID, r.Credential, r.Tenant, r.Tool, r.Outcome,
			r.Duration.Microseconds(), r.QuotaCharged)
		return err
	}
	at, dur, charged := make([]int64, len(rs)), make([]int64, len(rs)), make([]int64, len(rs))
	cid, cred, tenant, tool, outcome := make([]string, len(rs)), make([]string, len(rs)), make([]string, len(rs)),
		make([]string, len(rs)), make([]string, len(rs))
	for i, r := range rs {
		at[i], dur[i], charged[i] = r.Time.UnixMicro(), r.Duration.Microseconds(), r.QuotaCharged
		cid[i], cred[i], tenant[i], tool[i], outcome[i] = r.CorrelationID, r.Credential, r.Tenant, r.Tool, r.Outcome
	}
	// unnest yields the rows in array order, so ids follow the order of rs.
	_, err := s.pool.Exec(ctx, `INSERT INTO audit_log
		(at_us, correlation_id, credential, tenant, tool, outcome, duration_us, quota_charged)
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[])
		ON CONFLICT DO NOTHING`,
		at, cid, cred, tenant, tool, outcome, dur, charged)
	return err
}

// QueryAudit implements limits.AuditStore.
func (s *Store) QueryAudit(ctx context.Context, f limits.AuditFilter) ([]limits.AuditRecord, error) {
	q, args := sqlshare.Postgres.QueryAudit(f)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshare.Collect(rows, sqlshare.ScanAudit)
}
