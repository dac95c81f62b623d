package postgres

import (
	"context"
	"github.com/warden-mcp/warden/store/internal/sqlshare"

	"github.com/jackc/pgx/v5"

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

// RecordFinding implements finding.Store: under a per-tenant advisory
// lock, so replicas writing at once cannot pass the cap.
func (s *Store) RecordFinding(ctx context.Context, f finding.Finding) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey(s.schema, "finding:"+f.Tenant)); err != nil {
			return err
		}
		var n int64
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM finding WHERE tenant = $1`, f.Tenant).Scan(&n); err != nil {
			return err
		}
		if n >= s.findingsLimit() {
			return finding.ErrTenantFull
		}
		_, err := tx.Exec(ctx, qInsertFinding, sqlshare.FindingArgs(f)...)
		return err
	})
}

// ListFindings implements finding.Store.
func (s *Store) ListFindings(ctx context.Context, f finding.Filter) ([]finding.Finding, error) {
	q, args := sqlshare.Postgres.ListFindings(f)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshare.Collect(rows, sqlshare.ScanFinding)
}
