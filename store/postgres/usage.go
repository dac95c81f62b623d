package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/warden-mcp/warden/limits"
)

// ReadUsage implements limits.UsageStore in one read-only round trip per
// table: it takes no lock and changes nothing.
func (s *Store) ReadUsage(ctx context.Context, q limits.UsageQuery) (limits.UsageState, error) {
	st := limits.UsageState{Logs: map[string][]int64{}}
	rows, err := s.pool.Query(ctx, `SELECT key, log_us FROM rate_log WHERE key = ANY($1)`, q.RateKeys)
	if err != nil {
		return st, err
	}
	for rows.Next() {
		var k string
		var log []int64
		if err := rows.Scan(&k, &log); err != nil {
			rows.Close()
			return st, err
		}
		st.Logs[k] = log
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, err
	}
	err = s.pool.QueryRow(ctx, `SELECT used FROM quota_counter WHERE credential = $1 AND period = $2`, q.Credential, q.Period).Scan(&st.MonthlyUsed)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return st, err
	}
	now := q.Now.UnixMicro()
	err = s.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE credential = $1), count(*) FROM scan_lease WHERE expires_us > $2`,
		q.Credential, now).Scan(&st.Leases, &st.AllLeases)
	return st, err
}
