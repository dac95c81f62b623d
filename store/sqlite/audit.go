package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// AppendAudit implements limits.AuditStore: one record in its own
// statement, several in one transaction, written by multi-row INSERTs of
// auditChunks rows (largest first) and single rows for the rest.
func (s *Store) AppendAudit(ctx context.Context, rs ...limits.AuditRecord) error {
	switch len(rs) {
	case 0:
		return nil
	case 1:
		_, err := s.stmts[qInsertAudits(1)].ExecContext(ctx, auditArgs(nil, rs[0])...)
		return err
	}
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		var args []any
		for _, n := range auditChunks {
			if len(rs) < n {
				continue
			}
			st := tx.StmtContext(ctx, s.stmts[qInsertAudits(n)])
			for ; len(rs) >= n; rs = rs[n:] {
				args = args[:0]
				for _, r := range rs[:n] {
					args = auditArgs(args, r)
				}
				if _, err := st.ExecContext(ctx, args...); err != nil {
					return false, err
				}
			}
		}
		return true, nil
	})
}

// auditChunks are the row counts of the prepared audit INSERTs, largest
// first; the last is 1. One statement of many rows costs much less than
// as many statements of one: binding and running a statement, not the
// row, is most of the work.
var auditChunks = []int{16, 4, 1}

const qInsertAudit = `INSERT INTO audit_log
	(at_us, correlation_id, credential, tenant, tool, outcome, duration_us, quota_charged)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)`

// qInsertAudits is the INSERT of n audit rows. A row already kept (a
// record written again after a commit whose answer was lost) is skipped.
func qInsertAudits(n int) string {
	return qInsertAudit + strings.Repeat(", (?, ?, ?, ?, ?, ?, ?, ?)", n-1) + onConflictAudit
}

// onConflictAudit skips a record already kept (index audit_log_once).
const onConflictAudit = "\n\tON CONFLICT DO NOTHING"

func auditArgs(args []any, r limits.AuditRecord) []any {
	return append(args, r.Time.UnixMicro(), r.CorrelationID, r.Credential, r.Tenant, r.Tool, r.Outcome,
		r.Duration.Microseconds(), r.QuotaCharged)
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
