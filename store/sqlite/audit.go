package sqlite

import (
	"context"
	"strings"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// AppendAudit implements limits.AuditStore.
func (s *Store) AppendAudit(ctx context.Context, r limits.AuditRecord) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO audit_log
		(at_us, correlation_id, credential, tenant, tool, outcome, duration_us, quota_charged)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Time.UnixMicro(), r.CorrelationID, r.Credential, r.Tenant, r.Tool, r.Outcome,
		r.Duration.Microseconds(), r.QuotaCharged)
	return err
}

// QueryAudit implements limits.AuditStore.
func (s *Store) QueryAudit(ctx context.Context, f limits.AuditFilter) ([]limits.AuditRecord, error) {
	var where []string
	var args []any
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	if !f.Since.IsZero() {
		add("at_us >= ?", f.Since.UnixMicro())
	}
	if !f.Until.IsZero() {
		add("at_us < ?", f.Until.UnixMicro())
	}
	for _, c := range []struct{ col, v string }{
		{"credential", f.Credential}, {"tenant", f.Tenant}, {"tool", f.Tool}, {"outcome", f.Outcome},
	} {
		if c.v != "" {
			add(c.col+" = ?", c.v)
		}
	}
	q := `SELECT at_us, correlation_id, credential, tenant, tool, outcome, duration_us, quota_charged FROM audit_log`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY at_us DESC, id DESC LIMIT ?"
	args = append(args, f.Limit)
	rows, err := s.ro.QueryContext(ctx, q, args...)
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
