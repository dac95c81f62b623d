package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// TakeRate implements limits.RateStore.
func (s *Store) TakeRate(ctx context.Context, key string, now time.Time, p limits.RatePolicy) (limits.RateDecision, error) {
	var d limits.RateDecision
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		var err error
		d, err = s.takeRate(ctx, tx, key, now.UnixMicro(), p)
		return err == nil, err
	})
	return d, err
}

// takeRate runs limits.TakeLog on the row under key inside tx.
func (s *Store) takeRate(ctx context.Context, tx *sql.Tx, key string, nowUS int64, p limits.RatePolicy) (limits.RateDecision, error) {
	var blob []byte
	err := tx.StmtContext(ctx, s.selectLog).QueryRowContext(ctx, key).Scan(&blob)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return limits.RateDecision{}, err
	}
	log, err := decodeLog(blob)
	if err != nil {
		return limits.RateDecision{}, err
	}
	next, d, changed := limits.TakeLog(log, nowUS, p)
	if !changed {
		return d, nil
	}
	var expires int64
	if len(next) > 0 {
		expires = next[len(next)-1] + p.Window.Microseconds()
	}
	_, err = tx.StmtContext(ctx, s.upsertLog).ExecContext(ctx, key, encodeLog(next), expires)
	return d, err
}
