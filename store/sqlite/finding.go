package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

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
		_, err := tx.ExecContext(ctx, `INSERT INTO finding (tenant, id, created_us, credential, title, severity, severity_rank,
			target, evidence, source_tool, correlation_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			f.Tenant, f.ID, f.Created.UnixMicro(), f.Credential, f.Title, f.Severity, finding.Rank(f.Severity),
			f.Target, f.Evidence, f.SourceTool, f.CorrelationID)
		return err == nil, err
	})
}

// ListFindings implements finding.Store on the read-only pool.
func (s *Store) ListFindings(ctx context.Context, f finding.Filter) ([]finding.Finding, error) {
	where := []string{"tenant = ?"}
	args := []any{f.Tenant}
	if f.MinSeverity != "" {
		where, args = append(where, "severity_rank >= ?"), append(args, finding.Rank(f.MinSeverity))
	}
	if f.Target != "" {
		where, args = append(where, "instr(lower(target), lower(?)) > 0"), append(args, f.Target)
	}
	if f.SourceTool != "" {
		where, args = append(where, "source_tool = ?"), append(args, f.SourceTool)
	}
	if !f.Since.IsZero() {
		where, args = append(where, "created_us >= ?"), append(args, f.Since.UnixMicro())
	}
	if !f.Until.IsZero() {
		where, args = append(where, "created_us < ?"), append(args, f.Until.UnixMicro())
	}
	if f.After.ID != "" {
		us := f.After.Created.UnixMicro()
		where, args = append(where, "(created_us < ? OR created_us = ? AND id < ?)"), append(args, us, us, f.After.ID)
	}
	args = append(args, f.Limit)
	rows, err := s.ro.QueryContext(ctx, `SELECT tenant, id, created_us, credential, title, severity, target, evidence, source_tool, correlation_id
		FROM finding WHERE `+strings.Join(where, " AND ")+` ORDER BY created_us DESC, id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []finding.Finding
	for rows.Next() {
		var f finding.Finding
		var us int64
		if err := rows.Scan(&f.Tenant, &f.ID, &us, &f.Credential, &f.Title, &f.Severity, &f.Target, &f.Evidence, &f.SourceTool, &f.CorrelationID); err != nil {
			return nil, err
		}
		f.Created = time.UnixMicro(us).UTC()
		out = append(out, f)
	}
	return out, rows.Err()
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
