package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/store/internal/sqlshare"
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

var _ finding.StatusStore = (*Store)(nil)

// SetFindingStatus implements finding.StatusStore: only a finding the
// tenant holds gets a state.
func (s *Store) SetFindingStatus(ctx context.Context, tenant, id string, st finding.Status) error {
	tag, err := s.pool.Exec(ctx, `INSERT INTO finding_status (tenant, id, state, set_by, set_us)
		SELECT tenant, id, $1, $2, $3 FROM finding WHERE tenant = $4 AND id = $5
		ON CONFLICT (tenant, id) DO UPDATE SET state = excluded.state, set_by = excluded.set_by, set_us = excluded.set_us`,
		st.State, st.By, st.At.UnixMicro(), tenant, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return finding.ErrNotFound
	}
	return nil
}

// FindingStatuses implements finding.StatusStore.
func (s *Store) FindingStatuses(ctx context.Context, tenant string, ids []string) (map[string]finding.Status, error) {
	out := map[string]finding.Status{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id, state, set_by, set_us FROM finding_status WHERE tenant = $1 AND id = ANY($2)`, tenant, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var st finding.Status
		var us int64
		if err := rows.Scan(&id, &st.State, &st.By, &us); err != nil {
			return nil, err
		}
		st.At = time.UnixMicro(us)
		out[id] = st
	}
	return out, rows.Err()
}
