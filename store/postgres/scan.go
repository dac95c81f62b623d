package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/warden-mcp/warden/limits"
)

// AdmitScan implements limits.ScanStore: the admission steps of package
// limits in one call to the scan_admit function (one round trip, one
// transaction), serialised across replicas by a transaction-scoped advisory
// lock and rolled back on any refusal.
func (s *Store) AdmitScan(ctx context.Context, a limits.Admit) (limits.Admission, error) {
	now := a.Now.UnixMicro()
	var refusal string
	var retryUS, expUS int64
	var adm limits.Admission
	err := s.pool.QueryRow(ctx, `SELECT o_refusal, o_retry_us, o_charged, o_used, o_expires_us
		FROM scan_admit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		lockKey(s.schema, "admit"), now, a.Credential, a.Tenant, a.Tool,
		a.ScanKey, a.LeaseID, a.LeaseTTL.Microseconds(), a.MaxPerCredential, a.Capacity, a.Charge, a.CallID,
		a.Rate.Window.Microseconds(), a.Rate.Limit, a.Period, a.Monthly,
	).Scan(&refusal, &retryUS, &adm.Charged, &adm.MonthlyUsed, &expUS)
	if err != nil {
		return limits.Admission{}, err
	}
	if refusal != "" {
		return limits.Admission{Refusal: limits.Code(refusal), RetryAfter: time.Duration(retryUS) * time.Microsecond}, nil
	}
	adm.LeaseExpires = time.UnixMicro(expUS)
	return adm, nil
}

// RenewLease implements limits.ScanStore.
func (s *Store) RenewLease(ctx context.Context, leaseID string, now time.Time, ttl time.Duration) error {
	n := now.UnixMicro()
	tag, err := s.pool.Exec(ctx, `UPDATE scan_lease SET expires_us = $1 WHERE lease_id = $2 AND expires_us > $3`,
		n+ttl.Microseconds(), leaseID, n)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return limits.ErrStoreLeaseLost
	}
	return nil
}

// ReleaseLease implements limits.ScanStore.
func (s *Store) ReleaseLease(ctx context.Context, leaseID string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM scan_lease WHERE lease_id = $1`, leaseID)
	return err
}

// RefundScan implements limits.ScanStore.
func (s *Store) RefundScan(ctx context.Context, credential, callID string) (bool, error) {
	var found bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var period string
		err := tx.QueryRow(ctx, `DELETE FROM scan_ledger WHERE credential = $1 AND call_id = $2 RETURNING period`,
			credential, callID).Scan(&period)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		_, err = tx.Exec(ctx, `UPDATE quota_counter SET used = used - 1 WHERE credential = $1 AND period = $2 AND used > 0`,
			credential, period)
		return err
	})
	return found, err
}
