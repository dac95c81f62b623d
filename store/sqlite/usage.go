package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/warden-mcp/warden/limits"
)

// ReadUsage implements limits.UsageStore on the read-only pool: it takes,
// renews and deletes nothing.
func (s *Store) ReadUsage(ctx context.Context, q limits.UsageQuery) (limits.UsageState, error) {
	st := limits.UsageState{Logs: map[string][]int64{}}
	for _, k := range q.RateKeys {
		var blob []byte
		err := s.ro.QueryRowContext(ctx, `SELECT log FROM rate_log WHERE key = ?`, k).Scan(&blob)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return st, err
		}
		log, err := decodeLog(blob)
		if err != nil {
			return st, err
		}
		st.Logs[k] = log
	}
	err := s.ro.QueryRowContext(ctx, `SELECT used FROM quota_counter WHERE credential = ? AND period = ?`, q.Credential, q.Period).Scan(&st.MonthlyUsed)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return st, err
	}
	now := q.Now.UnixMicro()
	if err := s.ro.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE credential = ?), count(*) FROM scan_lease WHERE expires_us > ?`,
		q.Credential, now).Scan(&st.Leases, &st.AllLeases); err != nil {
		return st, err
	}
	return st, nil
}
