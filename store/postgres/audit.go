package postgres

import (
	"context"
	"strconv"
	"strings"
	"time"

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
	var where []string
	var args []any
	add := func(col, op string, v any) {
		args = append(args, v)
		where = append(where, col+" "+op+" $"+strconv.Itoa(len(args)))
	}
	if !f.Since.IsZero() {
		add("at_us", ">=", f.Since.UnixMicro())
	}
	if !f.Until.IsZero() {
		add("at_us", "<", f.Until.UnixMicro())
	}
	for _, c := range []struct{ col, v string }{
		{"credential", f.Credential}, {"tenant", f.Tenant}, {"tool", f.Tool}, {"outcome", f.Outcome},
	} {
		if c.v != "" {
			add(c.col, "=", c.v)
		}
	}
	q := `SELECT at_us, correlation_id, credential, tenant, tool, outcome, duration_us, quota_charged FROM audit_log`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, f.Limit)
	q += " ORDER BY at_us DESC, id DESC LIMIT $" + strconv.Itoa(len(args))
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []limits.AuditRecord
	for rows.Next() {
		var r limits.AuditRecord
		var at, dur int64
		if err := rows.Scan(&at, &r.CorrelationID, &r.Credential, &r.Tenant, &r.Tool, &r.Outcome, &dur, &r.QuotaCharged); err != nil {
			return nil, err
		}
		r.Time = time.UnixMicro(at).UTC()
		r.Duration = time.Duration(dur) * time.Microsecond
		out = append(out, r)
	}
	return out, rows.Err()
}
