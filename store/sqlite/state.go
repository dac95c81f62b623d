package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"github.com/warden-mcp/warden/store/internal/sqlshare"
	"time"

	"github.com/warden-mcp/warden/statestore"
)

var _ statestore.Store = (*Store)(nil)

// PutState implements statestore.Store.
func (s *Store) PutState(ctx context.Context, r statestore.Record) (int64, error) {
	var v int64
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		var cur, exp int64
		err := tx.QueryRowContext(ctx, `SELECT version, expires_us FROM state_record WHERE kind = ? AND id = ?`, r.Kind, r.ID).Scan(&cur, &exp)
		found := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return false, err
		}
		if found && exp < time.Now().UnixMicro() {
			if _, err := tx.ExecContext(ctx, `DELETE FROM state_record WHERE kind = ? AND id = ?`, r.Kind, r.ID); err != nil {
				return false, err
			}
			found = false
		}
		switch {
		case r.Version == 0 && found:
			return false, statestore.ErrConflict
		case r.Version != 0 && !found:
			return false, statestore.ErrNotFound
		case r.Version != 0 && cur != r.Version:
			return false, statestore.ErrConflict
		}
		v = r.Version + 1
		_, err = tx.ExecContext(ctx, `INSERT INTO state_record (kind, id, owner, data, version, expires_us) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (kind, id) DO UPDATE SET owner = excluded.owner, data = excluded.data, version = excluded.version, expires_us = excluded.expires_us`,
			r.Kind, r.ID, r.Owner, r.Data, v, r.Expires.UnixMicro())
		return err == nil, err
	})
	return v, err
}

// GetState implements statestore.Store.
func (s *Store) GetState(ctx context.Context, kind, id string, now time.Time) (statestore.Record, error) {
	r := statestore.Record{Kind: kind, ID: id}
	var exp int64
	err := s.db.QueryRowContext(ctx, `SELECT owner, data, version, expires_us FROM state_record WHERE kind = ? AND id = ? AND expires_us >= ?`,
		kind, id, now.UnixMicro()).Scan(&r.Owner, &r.Data, &r.Version, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return r, statestore.ErrNotFound
	}
	r.Expires = time.UnixMicro(exp)
	return r, err
}

// DeleteState implements statestore.Store.
func (s *Store) DeleteState(ctx context.Context, kind, id string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM state_record WHERE kind = ? AND id = ?`, kind, id)
	return err
}

// CountState implements statestore.Store.
func (s *Store) CountState(ctx context.Context, kind, owner string, now time.Time) (total, owned int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE owner = ?) FROM state_record WHERE kind = ? AND expires_us >= ?`,
		owner, kind, now.UnixMicro()).Scan(&total, &owned)
	return total, owned, err
}

// AppendMessage implements statestore.Store. The single writer connection
// serialises appends, so sequence numbers are committed in order.
func (s *Store) AppendMessage(ctx context.Context, channel string, data []byte, expires time.Time) (int64, error) {
	var seq int64
	err := s.db.QueryRowContext(ctx, `INSERT INTO state_message (channel, seq, data, expires_us)
		SELECT ?, coalesce(max(seq), 0) + 1, ?, ? FROM state_message WHERE channel = ? RETURNING seq`,
		channel, data, expires.UnixMicro(), channel).Scan(&seq)
	return seq, err
}

// Messages implements statestore.Store.
func (s *Store) Messages(ctx context.Context, channel string, after int64, now time.Time, limit int) ([]statestore.Message, error) {
	rows, err := s.db.QueryContext(ctx, sqlshare.Messages,
		channel, after, now.UnixMicro(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshare.Collect(rows, sqlshare.ScanMessage)
}

// DeleteMessages implements statestore.Store.
func (s *Store) DeleteMessages(ctx context.Context, channel string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM state_message WHERE channel = ?`, channel)
	return err
}
