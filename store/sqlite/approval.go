package sqlite

import (
	"context"
	"database/sql"
	"time"
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
