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
// transaction), rolled back on any refusal. A credential's admissions are
// serialised across replicas by a transaction-scoped advisory lock of its
// own; the capacity they share is a table of slots claimed with SKIP
// LOCKED, so admissions of different credentials never queue behind each
// other's commits.
func (s *Store) AdmitScan(ctx context.Context, a limits.Admit) (limits.Admission, error) {
	if err := s.ensureSlots(ctx, a.Capacity); err != nil {
		return limits.Admission{}, err
	}
	now := a.Now.UnixMicro()
	var refusal string
	var retryUS, expUS int64
	var adm limits.Admission
	err := s.pool.QueryRow(ctx, `SELECT o_refusal, o_retry_us, o_charged, o_used, o_expires_us
		FROM scan_admit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		lockKey(s.schema, "admit\x00"+a.Credential), now, a.Credential, a.Tenant, a.Tool,
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

// ensureSlots makes sure slots 1 to n exist, once per process and
// capacity, committed before any admission looks for a free one.
func (s *Store) ensureSlots(ctx context.Context, n int) error {
	if int64(n) <= s.slots.Load() {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO scan_slot (slot) SELECT g FROM generate_series(1, $1::int) g
		ON CONFLICT (slot) DO NOTHING`, n); err != nil {
		return err
	}
	for {
		cur := s.slots.Load()
		if int64(n) <= cur || s.slots.CompareAndSwap(cur, int64(n)) {
			return nil
		}
	}
}

// RenewLease implements limits.ScanStore: the lease and its slot
// together.
func (s *Store) RenewLease(ctx context.Context, leaseID string, now time.Time, ttl time.Duration) error {
	n := now.UnixMicro()
	tag, err := s.pool.Exec(ctx, `WITH l AS (
			UPDATE scan_lease SET expires_us = $1 WHERE lease_id = $2 AND expires_us > $3 RETURNING lease_id)
		UPDATE scan_slot s SET expires_us = $1 FROM l WHERE s.lease_id = l.lease_id`,
		n+ttl.Microseconds(), leaseID, n)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return limits.ErrStoreLeaseLost
	}
	return nil
}

// ReleaseLease implements limits.ScanStore: the lease and its slot
// together. It leaves a fence alone.
func (s *Store) ReleaseLease(ctx context.Context, leaseID string) error {
	_, err := s.pool.Exec(ctx, `WITH l AS (DELETE FROM scan_lease WHERE lease_id = $1 AND fence_until_us = 0 RETURNING lease_id)
		UPDATE scan_slot s SET lease_id = NULL, expires_us = 0 FROM l WHERE s.lease_id = l.lease_id`, leaseID)
	return err
}

// CancelAdmission implements limits.ScanStore in one transaction. The
// fence comes first: if the admission is still running and has written
// its lease, the fence waits for it to end (the lease's primary key) and
// then frees what it committed; if it has not, the fence commits first
// and the admission's own lease insert fails, rolling it back whole.
// Either way the charge is looked up only after the admission can no
// longer commit one.
func (s *Store) CancelAdmission(ctx context.Context, a limits.Admit, now time.Time) (bool, error) {
	var refunded bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		refunded = false
		if _, err := tx.Exec(ctx, `INSERT INTO scan_lease (lease_id, credential, scan_key, tool, expires_us, fence_until_us)
			VALUES ($1, $2, '', $3, 0, $4)
			ON CONFLICT (lease_id) DO UPDATE SET expires_us = 0, fence_until_us = greatest(scan_lease.fence_until_us, excluded.fence_until_us)`,
			a.LeaseID, a.Credential, a.Tool, now.Add(a.LeaseTTL).UnixMicro()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE scan_slot SET lease_id = NULL, expires_us = 0 WHERE lease_id = $1`, a.LeaseID); err != nil {
			return err
		}
		var period string
		err := tx.QueryRow(ctx, `DELETE FROM scan_ledger WHERE credential = $1 AND call_id = $2 AND lease_id = $3 RETURNING period`,
			a.Credential, a.CallID, a.LeaseID).Scan(&period)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		refunded = true
		_, err = tx.Exec(ctx, `UPDATE quota_counter SET used = used - 1 WHERE credential = $1 AND period = $2 AND used > 0`,
			a.Credential, period)
		return err
	})
	return refunded && err == nil, err
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
