package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

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

var _ finding.StatusStore = (*Store)(nil)

// SetFindingStatus implements finding.StatusStore: only a finding the
// tenant holds gets a state.
func (s *Store) SetFindingStatus(ctx context.Context, tenant, id string, st finding.Status) error {
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		res, err := tx.ExecContext(ctx, `INSERT INTO finding_status (tenant, id, state, set_by, set_us)
			SELECT tenant, id, ?, ?, ? FROM finding WHERE tenant = ? AND id = ?
			ON CONFLICT (tenant, id) DO UPDATE SET state = excluded.state, set_by = excluded.set_by, set_us = excluded.set_us`,
			st.State, st.By, st.At.UnixMicro(), tenant, id)
		if err != nil {
			return false, err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = finding.ErrNotFound
			}
			return false, err
		}
		return true, nil
	})
}

// FindingStatuses implements finding.StatusStore.
func (s *Store) FindingStatuses(ctx context.Context, tenant string, ids []string) (map[string]finding.Status, error) {
	out := map[string]finding.Status{}
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{tenant}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT id, state, set_by, set_us FROM finding_status
		WHERE tenant = ? AND id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
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
