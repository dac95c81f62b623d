package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/warden-mcp/warden/approval"
)

// GrantApproval implements approval.Store.
func (s *Store) GrantApproval(ctx context.Context, key string, until time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO approval_grant (key, until_us) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET until_us = excluded.until_us`, key, until.UnixMicro())
	return err
}

// ApprovalGranted implements approval.Store.
func (s *Store) ApprovalGranted(ctx context.Context, key string, now time.Time) (bool, error) {
	var until int64
	err := s.pool.QueryRow(ctx, `SELECT until_us FROM approval_grant WHERE key = $1`, key).Scan(&until)
	if errors.Is(err, pgx.ErrNoRows) {
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
	var decided int64
	if !r.DecidedAt.IsZero() {
		decided = r.DecidedAt.UnixMicro()
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO approval_request (`+requestColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
		r.ID, r.Match, r.Caller, r.Owner, r.Tenant, r.Grant, r.Tool, r.Trust, r.Summary, r.State, r.DecidedBy, r.Spent,
		r.Created.UnixMicro(), r.Expires.UnixMicro(), decided)
	return err
}

func scanRequest(row pgx.Row) (approval.Request, error) {
	var r approval.Request
	var created, expires, decided int64
	err := row.Scan(&r.ID, &r.Match, &r.Caller, &r.Owner, &r.Tenant, &r.Grant, &r.Tool, &r.Trust, &r.Summary, &r.State, &r.DecidedBy, &r.Spent,
		&created, &expires, &decided)
	if errors.Is(err, pgx.ErrNoRows) {
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
	return scanRequest(s.pool.QueryRow(ctx, `SELECT `+requestColumns+` FROM approval_request WHERE id = $1`, id))
}

// LatestApprovalRequest implements approval.RequestStore.
func (s *Store) LatestApprovalRequest(ctx context.Context, match string, now time.Time) (approval.Request, error) {
	return scanRequest(s.pool.QueryRow(ctx, `SELECT `+requestColumns+` FROM approval_request
		WHERE match_key = $1 AND NOT spent AND expires_us > $2 ORDER BY created_us DESC LIMIT 1`, match, now.UnixMicro()))
}

// DecideApprovalRequest implements approval.RequestStore.
func (s *Store) DecideApprovalRequest(ctx context.Context, id, state, by string, at time.Time) error {
	if !approval.Decided(state) {
		return errors.New("postgres store: not an approval decision")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE approval_request SET state = $1, decided_by = $2, decided_us = $3
		WHERE id = $4 AND state = 'pending' AND expires_us > $3`, state, by, at.UnixMicro(), id)
	if err != nil {
		return err
	}
	return s.requestChanged(ctx, tag.RowsAffected(), id)
}

// requestChanged turns an update that changed no row into ErrNotFound or
// ErrNotPending.
func (s *Store) requestChanged(ctx context.Context, n int64, id string) error {
	if n == 1 {
		return nil
	}
	var one int
	err := s.pool.QueryRow(ctx, `SELECT 1 FROM approval_request WHERE id = $1`, id).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return approval.ErrNotFound
	}
	if err != nil {
		return err
	}
	return approval.ErrNotPending
}

// SpendApprovalRequest implements approval.RequestStore.
func (s *Store) SpendApprovalRequest(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE approval_request SET spent = true
		WHERE id = $1 AND NOT spent AND state IN ('approved', 'approved_session', 'denied')`, id)
	if err != nil {
		return err
	}
	return s.requestChanged(ctx, tag.RowsAffected(), id)
}

// ApprovalRequests implements approval.RequestStore.
func (s *Store) ApprovalRequests(ctx context.Context, tenant string, limit int) ([]approval.Request, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	rows, err := s.pool.Query(ctx, `SELECT `+requestColumns+` FROM approval_request
		WHERE tenant = $1 ORDER BY created_us DESC LIMIT $2`, tenant, limit)
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
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM approval_request
		WHERE caller = $1 AND state = 'pending' AND expires_us > $2`, caller, now.UnixMicro()).Scan(&n)
	return n, err
}
