package sqlite

import (
	"context"
	"database/sql"
	"github.com/warden-mcp/warden/store/internal/sqlshare"
	"strings"

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
		_, err := s.stmts[qInsertAudits(1)].ExecContext(ctx, sqlshare.AuditArgs(nil, rs[0])...)
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
					args = sqlshare.AuditArgs(args, r)
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

// QueryAudit implements limits.AuditStore.
func (s *Store) QueryAudit(ctx context.Context, f limits.AuditFilter) ([]limits.AuditRecord, error) {
	q, args := sqlshare.SQLite.QueryAudit(f)
	rows, err := s.ro.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshare.Collect(rows, sqlshare.ScanAudit)
}
