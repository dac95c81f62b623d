package postgres

import (
	"context"
	"errors"
	"github.com/warden-mcp/warden/store/internal/sqlshare"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/warden-mcp/warden/statestore"
)

var _ statestore.Store = (*Store)(nil)

// PutState implements statestore.Store in one statement: a create that
// finds a live row, or an update whose version no longer matches, changes
// nothing, and a second query says why.
func (s *Store) PutState(ctx context.Context, r statestore.Record) (int64, error) {
	now := time.Now().UnixMicro()
	var v int64
	var err error
	if r.Version == 0 {
		err = s.pool.QueryRow(ctx, `INSERT INTO state_record AS t (kind, id, owner, data, version, expires_us) VALUES ($1, $2, $3, $4, 1, $5)
			ON CONFLICT (kind, id) DO UPDATE SET owner = excluded.owner, data = excluded.data, version = 1, expires_us = excluded.expires_us
			WHERE t.expires_us < $6 RETURNING version`, r.Kind, r.ID, r.Owner, r.Data, r.Expires.UnixMicro(), now).Scan(&v)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, statestore.ErrConflict
		}
		return v, err
	}
	err = s.pool.QueryRow(ctx, `UPDATE state_record SET owner = $3, data = $4, version = version + 1, expires_us = $5
		WHERE kind = $1 AND id = $2 AND version = $6 AND expires_us >= $7 RETURNING version`,
		r.Kind, r.ID, r.Owner, r.Data, r.Expires.UnixMicro(), r.Version, now).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, gerr := s.GetState(ctx, r.Kind, r.ID, time.UnixMicro(now)); errors.Is(gerr, statestore.ErrNotFound) {
			return 0, statestore.ErrNotFound
		}
		return 0, statestore.ErrConflict
	}
	return v, err
}

// GetState implements statestore.Store.
func (s *Store) GetState(ctx context.Context, kind, id string, now time.Time) (statestore.Record, error) {
	r := statestore.Record{Kind: kind, ID: id}
	var exp int64
	err := s.pool.QueryRow(ctx, `SELECT owner, data, version, expires_us FROM state_record WHERE kind = $1 AND id = $2 AND expires_us >= $3`,
		kind, id, now.UnixMicro()).Scan(&r.Owner, &r.Data, &r.Version, &exp)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, statestore.ErrNotFound
	}
	r.Expires = time.UnixMicro(exp)
	return r, err
}

// DeleteState implements statestore.Store.
func (s *Store) DeleteState(ctx context.Context, kind, id string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM state_record WHERE kind = $1 AND id = $2`, kind, id)
	return err
}

// CountState implements statestore.Store.
func (s *Store) CountState(ctx context.Context, kind, owner string, now time.Time) (total, owned int, err error) {
	err = s.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE owner = $1) FROM state_record WHERE kind = $2 AND expires_us >= $3`,
		owner, kind, now.UnixMicro()).Scan(&total, &owned)
	return total, owned, err
}

// AppendMessage implements statestore.Store. Appends to one channel are
// serialised by a transaction-scoped advisory lock on the channel, so
// they commit in sequence order and a reader following the channel by
// "after the last seen" never skips one that commits late.
func (s *Store) AppendMessage(ctx context.Context, channel string, data []byte, expires time.Time) (int64, error) {
	var seq int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey(s.schema, "channel:"+channel)); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `INSERT INTO state_message (channel, seq, data, expires_us) VALUES ($1, nextval('state_message_seq'), $2, $3) RETURNING seq`,
			channel, data, expires.UnixMicro()).Scan(&seq)
	})
	return seq, err
}

// Messages implements statestore.Store.
func (s *Store) Messages(ctx context.Context, channel string, after int64, now time.Time, limit int) ([]statestore.Message, error) {
	rows, err := s.pool.Query(ctx, qMessages,
		channel, after, now.UnixMicro(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshare.Collect(rows, sqlshare.ScanMessage)
}

// DeleteMessages implements statestore.Store.
func (s *Store) DeleteMessages(ctx context.Context, channel string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM state_message WHERE channel = $1`, channel)
	return err
}
