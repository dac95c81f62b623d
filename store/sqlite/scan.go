package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// The admission path's statements, prepared once by Open.
const (
	qDeleteExpired    = `DELETE FROM scan_lease WHERE expires_us <= ?1 AND fence_until_us <= ?1`
	qCredentialLeases = `SELECT count(*), count(*) FILTER (WHERE scan_key = ?), min(expires_us)
		FROM scan_lease WHERE credential = ? AND expires_us > ?`
	qAllLeases   = `SELECT count(*), min(expires_us) FROM scan_lease WHERE expires_us > ?`
	qLedgerKey   = `SELECT scan_key FROM scan_ledger WHERE credential = ? AND call_id = ?`
	qChargeMonth = `INSERT INTO quota_counter (credential, period, used)
		SELECT ?1, ?2, 1 WHERE ?3 < 0 OR ?3 > 0
		ON CONFLICT (credential, period) DO UPDATE SET used = used + 1 WHERE ?3 < 0 OR used < ?3
		RETURNING used`
	qInsertLedger = `INSERT INTO scan_ledger
		(credential, call_id, scan_key, tenant, tool, period, charged_us, lease_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	qInsertLease = `INSERT INTO scan_lease (lease_id, credential, scan_key, tool, expires_us) VALUES (?, ?, ?, ?, ?)`
)

// AdmitScan implements limits.ScanStore: the admission steps of package
// limits in one immediate transaction, rolled back on any refusal.
func (s *Store) AdmitScan(ctx context.Context, a limits.Admit) (limits.Admission, error) {
	var adm limits.Admission
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		var err error
		adm, err = s.admit(ctx, tx, a)
		return err == nil && adm.Refusal == "", err
	})
	if err != nil {
		return limits.Admission{}, err
	}
	return adm, nil
}

func (s *Store) admit(ctx context.Context, tx *sql.Tx, a limits.Admit) (limits.Admission, error) {
	now := a.Now.UnixMicro()
	if _, err := s.exec(ctx, tx, qDeleteExpired, now); err != nil {
		return limits.Admission{}, err
	}
	var mine, dup int
	var soonestMine sql.NullInt64
	if err := s.queryRow(ctx, tx, qCredentialLeases, a.ScanKey, a.Credential, now).Scan(&mine, &dup, &soonestMine); err != nil {
		return limits.Admission{}, err
	}
	if dup > 0 {
		return limits.Admission{Refusal: limits.CodeDuplicateScan}, nil
	}
	if mine >= a.MaxPerCredential {
		return limits.Admission{Refusal: limits.CodeTooManyConcurrentScans, RetryAfter: retryUntil(soonestMine.Int64, now)}, nil
	}
	var all int
	var soonestAll sql.NullInt64
	if err := s.queryRow(ctx, tx, qAllLeases, now).Scan(&all, &soonestAll); err != nil {
		return limits.Admission{}, err
	}
	if all >= a.Capacity {
		return limits.Admission{Refusal: limits.CodeScannerBusy, RetryAfter: retryUntil(soonestAll.Int64, now)}, nil
	}
	var adm limits.Admission
	if a.Charge {
		var key string
		err := s.queryRow(ctx, tx, qLedgerKey, a.Credential, a.CallID).Scan(&key)
		switch {
		case err == nil && key != a.ScanKey:
			return limits.Admission{Refusal: limits.CodeIdempotencyConflict}, nil
		case err == nil:
			// Replay of a call already charged: admit without a charge.
		case errors.Is(err, sql.ErrNoRows):
			d, err := s.takeRate(ctx, tx, "scan:"+a.Credential, now, a.Rate)
			if err != nil {
				return limits.Admission{}, err
			}
			if !d.Allowed {
				return limits.Admission{Refusal: limits.CodeRateLimitExceeded, RetryAfter: d.RetryAfter}, nil
			}
			var used int64
			err = s.queryRow(ctx, tx, qChargeMonth, a.Credential, a.Period, a.Monthly).Scan(&used)
			if errors.Is(err, sql.ErrNoRows) {
				return limits.Admission{Refusal: limits.CodeQuotaExceeded}, nil
			}
			if err != nil {
				return limits.Admission{}, err
			}
			if _, err := s.exec(ctx, tx, qInsertLedger,
				a.Credential, a.CallID, a.ScanKey, a.Tenant, a.Tool, a.Period, now, a.LeaseID); err != nil {
				return limits.Admission{}, err
			}
			adm.Charged, adm.MonthlyUsed = true, used
		default:
			return limits.Admission{}, err
		}
	}
	exp := now + a.LeaseTTL.Microseconds()
	// A fenced lease id (a cancelled admission) is still a row: the
	// insert fails and the whole admission rolls back.
	if _, err := s.exec(ctx, tx, qInsertLease, a.LeaseID, a.Credential, a.ScanKey, a.Tool, exp); err != nil {
		return limits.Admission{}, err
	}
	adm.LeaseExpires = time.UnixMicro(exp)
	return adm, nil
}

// retryUntil is the wait until the lease expiring at expUS frees its slot,
// at least one second.
func retryUntil(expUS, nowUS int64) time.Duration {
	return max(time.Duration(expUS-nowUS)*time.Microsecond, time.Second)
}

// RenewLease implements limits.ScanStore.
func (s *Store) RenewLease(ctx context.Context, leaseID string, now time.Time, ttl time.Duration) error {
	n := now.UnixMicro()
	res, err := s.db.ExecContext(ctx, `UPDATE scan_lease SET expires_us = ? WHERE lease_id = ? AND expires_us > ?`,
		n+ttl.Microseconds(), leaseID, n)
	if err != nil {
		return err
	}
	if k, err := res.RowsAffected(); err != nil {
		return err
	} else if k == 0 {
		return limits.ErrStoreLeaseLost
	}
	return nil
}

// ReleaseLease implements limits.ScanStore. It leaves a fence alone.
func (s *Store) ReleaseLease(ctx context.Context, leaseID string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM scan_lease WHERE lease_id = ? AND fence_until_us = 0`, leaseID)
	return err
}

// CancelAdmission implements limits.ScanStore in one transaction: the
// fence (which frees the lease if the admission committed), then the
// charge that admission made, found by its lease.
func (s *Store) CancelAdmission(ctx context.Context, a limits.Admit, now time.Time) (bool, error) {
	var refunded bool
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO scan_lease (lease_id, credential, scan_key, tool, expires_us, fence_until_us)
			VALUES (?, ?, '', ?, 0, ?)
			ON CONFLICT (lease_id) DO UPDATE SET expires_us = 0, fence_until_us = max(fence_until_us, excluded.fence_until_us)`,
			a.LeaseID, a.Credential, a.Tool, now.Add(a.LeaseTTL).UnixMicro()); err != nil {
			return false, err
		}
		var period string
		err := tx.QueryRowContext(ctx, `DELETE FROM scan_ledger WHERE credential = ? AND call_id = ? AND lease_id = ? RETURNING period`,
			a.Credential, a.CallID, a.LeaseID).Scan(&period)
		if errors.Is(err, sql.ErrNoRows) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE quota_counter SET used = used - 1
			WHERE credential = ? AND period = ? AND used > 0`, a.Credential, period); err != nil {
			return false, err
		}
		refunded = true
		return true, nil
	})
	return refunded && err == nil, err
}

// RefundScan implements limits.ScanStore.
func (s *Store) RefundScan(ctx context.Context, credential, callID string) (bool, error) {
	var found bool
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		var period string
		err := tx.QueryRowContext(ctx, `DELETE FROM scan_ledger WHERE credential = ? AND call_id = ? RETURNING period`,
			credential, callID).Scan(&period)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE quota_counter SET used = used - 1
			WHERE credential = ? AND period = ? AND used > 0`, credential, period); err != nil {
			return false, err
		}
		found = true
		return true, nil
	})
	return found, err
}
