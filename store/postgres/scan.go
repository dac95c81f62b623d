package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/warden-mcp/warden/limits"
)

// errRefused rolls a refused admission back through pgx.BeginFunc.
var errRefused = errors.New("refused")

// AdmitScan implements limits.ScanStore: the admission steps of package
// limits in one transaction, serialised across replicas by a
// transaction-scoped advisory lock, and rolled back on any refusal.
func (s *Store) AdmitScan(ctx context.Context, a limits.Admit) (limits.Admission, error) {
	var adm limits.Admission
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		adm, err = s.admit(ctx, tx, a)
		if err == nil && adm.Refusal != "" {
			return errRefused
		}
		return err
	})
	if errors.Is(err, errRefused) {
		return adm, nil
	}
	if err != nil {
		return limits.Admission{}, err
	}
	return adm, nil
}

func (s *Store) admit(ctx context.Context, tx pgx.Tx, a limits.Admit) (limits.Admission, error) {
	now := a.Now.UnixMicro()
	// One lock for the whole pool of slots: capacity is a global count.
	// Admissions are rare next to requests, so this is not a hot lock.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey(s.schema, "admit")); err != nil {
		return limits.Admission{}, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM scan_lease WHERE expires_us <= $1`, now); err != nil {
		return limits.Admission{}, err
	}
	var mine, dup int
	var soonestMine *int64
	if err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE scan_key = $1), min(expires_us)
		FROM scan_lease WHERE credential = $2`, a.ScanKey, a.Credential).Scan(&mine, &dup, &soonestMine); err != nil {
		return limits.Admission{}, err
	}
	if dup > 0 {
		return limits.Admission{Refusal: limits.CodeDuplicateScan}, nil
	}
	if mine >= a.MaxPerCredential {
		return limits.Admission{Refusal: limits.CodeTooManyConcurrentScans, RetryAfter: retryUntil(soonestMine, now)}, nil
	}
	var all int
	var soonestAll *int64
	if err := tx.QueryRow(ctx, `SELECT count(*), min(expires_us) FROM scan_lease`).Scan(&all, &soonestAll); err != nil {
		return limits.Admission{}, err
	}
	if all >= a.Capacity {
		return limits.Admission{Refusal: limits.CodeScannerBusy, RetryAfter: retryUntil(soonestAll, now)}, nil
	}
	var adm limits.Admission
	if a.Charge {
		var key string
		err := tx.QueryRow(ctx, `SELECT scan_key FROM scan_ledger WHERE credential = $1 AND call_id = $2`,
			a.Credential, a.CallID).Scan(&key)
		switch {
		case err == nil && key != a.ScanKey:
			return limits.Admission{Refusal: limits.CodeIdempotencyConflict}, nil
		case err == nil:
			// Replay of a call already charged: admit without a charge.
		case errors.Is(err, pgx.ErrNoRows):
			d, err := takeRate(ctx, tx, "scan:"+a.Credential, now, a.Rate)
			if err != nil {
				return limits.Admission{}, err
			}
			if !d.Allowed {
				return limits.Admission{Refusal: limits.CodeRateLimitExceeded, RetryAfter: d.RetryAfter}, nil
			}
			var used int64
			err = tx.QueryRow(ctx, `INSERT INTO quota_counter AS q (credential, period, used)
				SELECT $1, $2, 1 WHERE $3::bigint <> 0
				ON CONFLICT (credential, period) DO UPDATE SET used = q.used + 1 WHERE $3::bigint < 0 OR q.used < $3::bigint
				RETURNING used`, a.Credential, a.Period, a.Monthly).Scan(&used)
			if errors.Is(err, pgx.ErrNoRows) {
				return limits.Admission{Refusal: limits.CodeQuotaExceeded}, nil
			}
			if err != nil {
				return limits.Admission{}, err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO scan_ledger
				(credential, call_id, scan_key, tenant, tool, period, charged_us) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
				a.Credential, a.CallID, a.ScanKey, a.Tenant, a.Tool, a.Period, now); err != nil {
				return limits.Admission{}, err
			}
			adm.Charged, adm.MonthlyUsed = true, used
		default:
			return limits.Admission{}, err
		}
	}
	exp := now + a.LeaseTTL.Microseconds()
	if _, err := tx.Exec(ctx, `INSERT INTO scan_lease (lease_id, credential, scan_key, tool, expires_us)
		VALUES ($1, $2, $3, $4, $5)`, a.LeaseID, a.Credential, a.ScanKey, a.Tool, exp); err != nil {
		return limits.Admission{}, err
	}
	adm.LeaseExpires = time.UnixMicro(exp)
	return adm, nil
}

func retryUntil(expUS *int64, nowUS int64) time.Duration {
	if expUS == nil {
		return time.Second
	}
	return max(time.Duration(*expUS-nowUS)*time.Microsecond, time.Second)
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
