package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
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
