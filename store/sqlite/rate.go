package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// The per-request statements, prepared once by Open.
const (
	qSelectLog = `SELECT log FROM rate_log WHERE key = ?`
	qUpsertLog = `INSERT INTO rate_log (key, log, expires_us) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET log = excluded.log, expires_us = excluded.expires_us`
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
	err := s.queryRow(ctx, tx, qSelectLog, key).Scan(&blob)
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
	_, err = s.exec(ctx, tx, qUpsertLog, key, encodeLog(next), expires)
	return d, err
}
