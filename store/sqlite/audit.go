package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// AppendAudit implements limits.AuditStore: one record in its own
// statement, several in one transaction.
func (s *Store) AppendAudit(ctx context.Context, rs ...limits.AuditRecord) error {
	switch len(rs) {
	case 0:
		return nil
	case 1:
		_, err := s.stmts[qInsertAudit].ExecContext(ctx, auditArgs(rs[0])...)
		return err
	}
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		st := tx.StmtContext(ctx, s.stmts[qInsertAudit])
		for _, r := range rs {
			if _, err := st.ExecContext(ctx, auditArgs(r)...); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

const qInsertAudit = `INSERT INTO audit_log
	(at_us, correlation_id, credential, tenant, tool, outcome, duration_us, quota_charged)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)`

func auditArgs(r limits.AuditRecord) []any {
	return []any{r.Time.UnixMicro(), r.CorrelationID, r.Credential, r.Tenant, r.Tool, r.Outcome,
		r.Duration.Microseconds(), r.QuotaCharged}
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
