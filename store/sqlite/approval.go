package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/store/internal/sqlshare"
)

// GrantApproval implements approval.Store.
func (s *Store) GrantApproval(ctx context.Context, key string, until time.Time) error {
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		_, err := tx.ExecContext(ctx, `INSERT INTO approval_grant (key, until_us) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET until_us = excluded.until_us`, key, until.UnixMicro())
		return err == nil, err
	})
}

// ApprovalGranted implements approval.Store.
func (s *Store) ApprovalGranted(ctx context.Context, key string, now time.Time) (bool, error) {
	var until int64
	err := s.ro.QueryRowContext(ctx, `SELECT until_us FROM approval_grant WHERE key = ?`, key).Scan(&until)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return now.UnixMicro() < until, nil
}

const requestColumns = `id, match_key, caller, owner, tenant, grant_key, tool, trust, summary, state, decided_by, spent, created_us, expires_us, decided_us`

// CreateApprovalRequest implements approval.RequestStore.
func (s *Store) CreateApprovalRequest(ctx context.Context, r approval.Request) error {
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		_, err := tx.ExecContext(ctx, `INSERT INTO approval_request (`+requestColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.Match, r.Caller, r.Owner, r.Tenant, r.Grant, r.Tool, r.Trust, r.Summary, r.State, r.DecidedBy, r.Spent,
			r.Created.UnixMicro(), r.Expires.UnixMicro(), sqlshare.MicrosOrZero(r.DecidedAt))
		return err == nil, err
	})
}

func scanRequest(row rowScanner) (approval.Request, error) {
	var r approval.Request
	var created, expires, decided int64
	err := row.Scan(&r.ID, &r.Match, &r.Caller, &r.Owner, &r.Tenant, &r.Grant, &r.Tool, &r.Trust, &r.Summary, &r.State, &r.DecidedBy, &r.Spent,
		&created, &expires, &decided)
	if err == sql.ErrNoRows {
		return r, approval.ErrNotFound
	}
	if err != nil {
		return r, err
	}
	r.Created, r.Expires = time.UnixMicro(created), time.UnixMicro(expires)
	if decided != 0 {
		r.DecidedAt = time.UnixMicro(decided)
	}
	return r, nil
}

// ApprovalRequest implements approval.RequestStore.
func (s *Store) ApprovalRequest(ctx context.Context, id string) (approval.Request, error) {
	return scanRequest(s.ro.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM approval_request WHERE id = ?`, id))
}

// LatestApprovalRequest implements approval.RequestStore.
func (s *Store) LatestApprovalRequest(ctx context.Context, match string, now time.Time) (approval.Request, error) {
	return scanRequest(s.ro.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM approval_request
		WHERE match_key = ? AND spent = 0 AND expires_us > ? ORDER BY created_us DESC LIMIT 1`, match, now.UnixMicro()))
}

// DecideApprovalRequest implements approval.RequestStore.
func (s *Store) DecideApprovalRequest(ctx context.Context, id, state, by string, at time.Time) error {
	if !approval.Decided(state) {
		return errors.New("sqlite store: not an approval decision")
	}
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		res, err := tx.ExecContext(ctx, `UPDATE approval_request SET state = ?, decided_by = ?, decided_us = ?
			WHERE id = ? AND state = 'pending' AND expires_us > ?`, state, by, at.UnixMicro(), id, at.UnixMicro())
		if err != nil {
			return false, err
		}
		return requestChanged(ctx, tx, res, id)
	})
}

// requestChanged turns an update that changed no row into ErrNotFound or
// ErrNotPending.
func requestChanged(ctx context.Context, tx *sql.Tx, res sql.Result, id string) (bool, error) {
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err == nil, err
	}
	var one int
	if err := tx.QueryRowContext(ctx, `SELECT 1 FROM approval_request WHERE id = ?`, id).Scan(&one); err == sql.ErrNoRows {
		return false, approval.ErrNotFound
	} else if err != nil {
		return false, err
	}
	return false, approval.ErrNotPending
}

// SpendApprovalRequest implements approval.RequestStore.
func (s *Store) SpendApprovalRequest(ctx context.Context, id string) error {
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		res, err := tx.ExecContext(ctx, `UPDATE approval_request SET spent = 1
			WHERE id = ? AND spent = 0 AND state IN ('approved', 'approved_session', 'denied')`, id)
		if err != nil {
			return false, err
		}
		return requestChanged(ctx, tx, res, id)
	})
}

// ApprovalRequests implements approval.RequestStore.
func (s *Store) ApprovalRequests(ctx context.Context, tenant string, limit int) ([]approval.Request, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT `+requestColumns+` FROM approval_request
		WHERE tenant = ? ORDER BY created_us DESC LIMIT ?`, tenant, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []approval.Request
	for rows.Next() {
		r, err := scanRequest(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// OpenApprovalRequests implements approval.RequestStore.
func (s *Store) OpenApprovalRequests(ctx context.Context, caller string, now time.Time) (int, error) {
	var n int
	err := s.ro.QueryRowContext(ctx, `SELECT count(*) FROM approval_request
		WHERE caller = ? AND state = 'pending' AND expires_us > ?`, caller, now.UnixMicro()).Scan(&n)
	return n, err
}
