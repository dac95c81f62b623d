package sqlite

import (
	"context"
	"database/sql"
	"github.com/warden-mcp/warden/store/internal/sqlshare"

	"github.com/warden-mcp/warden/finding"
)

var _ finding.Store = (*Store)(nil)

// SetFindingsCap lowers the findings kept per tenant (finding.MaxPerTenant
// by default), for tests and operators who want fewer.
func (s *Store) SetFindingsCap(n int) { s.findingsCap.Store(int64(n)) }

func (s *Store) findingsLimit() int64 {
	if n := s.findingsCap.Load(); n > 0 {
		return n
	}
	return finding.MaxPerTenant
}

// RecordFinding implements finding.Store: the count and the insert in one
// immediate transaction, so concurrent writers cannot pass the cap.
func (s *Store) RecordFinding(ctx context.Context, f finding.Finding) error {
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		var n int64
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM finding WHERE tenant = ?`, f.Tenant).Scan(&n); err != nil {
			return false, err
		}
		if n >= s.findingsLimit() {
			return false, finding.ErrTenantFull
		}
		_, err := tx.ExecContext(ctx, sqlshare.InsertFinding, sqlshare.FindingArgs(f)...)
		return err == nil, err
	})
}

// ListFindings implements finding.Store on the read-only pool.
func (s *Store) ListFindings(ctx context.Context, f finding.Filter) ([]finding.Finding, error) {
	q, args := sqlshare.SQLite.ListFindings(f)
	rows, err := s.ro.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshare.Collect(rows, sqlshare.ScanFinding)
}
