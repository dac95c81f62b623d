package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/warden-mcp/warden/auth/asstore"
)

// The local authorization server's records (asstore.Store): clients
// registered by loopback MCP clients, and the hashed records behind their
// codes and tokens, kept across restarts so a client stays signed in.

var _ asstore.Store = (*Store)(nil)

// CreateClient implements asstore.Store.
func (s *Store) CreateClient(ctx context.Context, c asstore.Client, max int) error {
	if err := asstore.CheckClient(c); err != nil {
		return err
	}
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return err
	}
	var refusal error
	err = s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		var n int
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(max(id = ?), 0) FROM oauth_client`, c.ID).Scan(&n, &exists); err != nil {
			return false, err
		}
		if exists {
			refusal = asstore.ErrExists
			return false, nil
		}
		if over := n - max + 1; over > 0 {
			// The oldest clients that hold no token make room.
			res, err := tx.ExecContext(ctx, `DELETE FROM oauth_client WHERE id IN (SELECT id FROM oauth_client
				WHERE id NOT IN (SELECT client_id FROM oauth_token) ORDER BY created_us, id LIMIT ?)`, over)
			if err != nil {
				return false, err
			}
			if gone, _ := res.RowsAffected(); gone < int64(over) {
				refusal = asstore.ErrTooManyClients
				return false, nil
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO oauth_client (id, name, redirect_uris, created_us) VALUES (?, ?, ?, ?)`,
			c.ID, c.Name, string(uris), c.CreatedAt.UnixMicro())
		return err == nil, err
	})
	if err != nil {
		return err
	}
	return refusal
}

// Client implements asstore.Store.
func (s *Store) Client(ctx context.Context, id string) (asstore.Client, error) {
	var c asstore.Client
	var uris string
	var created int64
	err := s.ro.QueryRowContext(ctx, `SELECT id, name, redirect_uris, created_us FROM oauth_client WHERE id = ?`, id).
		Scan(&c.ID, &c.Name, &uris, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return asstore.Client{}, asstore.ErrNotFound
	}
	if err != nil {
		return asstore.Client{}, err
	}
	if err := json.Unmarshal([]byte(uris), &c.RedirectURIs); err != nil {
		return asstore.Client{}, err
	}
	c.CreatedAt = time.UnixMicro(created).UTC()
	return c, nil
}

// PutToken implements asstore.Store.
func (s *Store) PutToken(ctx context.Context, t asstore.Token) error {
	if err := asstore.CheckToken(t); err != nil {
		return err
	}
	var refusal error
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		res, err := tx.ExecContext(ctx, `INSERT INTO oauth_token (kind, signature, grant_id, client_id, active, expires_us, data)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (kind, signature) DO NOTHING`,
			string(t.Kind), t.Signature, t.GrantID, t.ClientID, t.Active, t.ExpiresAt.UnixMicro(), append([]byte{}, t.Data...))
		if err != nil {
			return false, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			refusal = asstore.ErrExists
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	return refusal
}

// Token implements asstore.Store.
func (s *Store) Token(ctx context.Context, kind asstore.Kind, sig string) (asstore.Token, error) {
	t := asstore.Token{Kind: kind, Signature: sig}
	var expires int64
	err := s.ro.QueryRowContext(ctx, `SELECT grant_id, client_id, active, expires_us, data FROM oauth_token WHERE kind = ? AND signature = ?`,
		string(kind), sig).Scan(&t.GrantID, &t.ClientID, &t.Active, &expires, &t.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return asstore.Token{}, asstore.ErrNotFound
	}
	if err != nil {
		return asstore.Token{}, err
	}
	t.ExpiresAt = time.UnixMicro(expires).UTC()
	if len(t.Data) == 0 {
		t.Data = nil // stored as an empty value, read back as none
	}
	return t, nil
}

// DeactivateToken implements asstore.Store.
func (s *Store) DeactivateToken(ctx context.Context, kind asstore.Kind, sig string) error {
	var missing bool
	err := s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		res, err := tx.ExecContext(ctx, `UPDATE oauth_token SET active = 0 WHERE kind = ? AND signature = ?`, string(kind), sig)
		if err != nil {
			return false, err
		}
		n, _ := res.RowsAffected()
		missing = n == 0
		return true, nil
	})
	if err == nil && missing {
		return asstore.ErrNotFound
	}
	return err
}

// DeleteToken implements asstore.Store.
func (s *Store) DeleteToken(ctx context.Context, kind asstore.Kind, sig string) error {
	return s.execTx(ctx, `DELETE FROM oauth_token WHERE kind = ? AND signature = ?`, string(kind), sig)
}

// DeactivateGrant implements asstore.Store.
func (s *Store) DeactivateGrant(ctx context.Context, kind asstore.Kind, grant string) error {
	return s.execTx(ctx, `UPDATE oauth_token SET active = 0 WHERE kind = ? AND grant_id = ?`, string(kind), grant)
}

// DeleteGrant implements asstore.Store.
func (s *Store) DeleteGrant(ctx context.Context, kind asstore.Kind, grant string) error {
	return s.execTx(ctx, `DELETE FROM oauth_token WHERE kind = ? AND grant_id = ?`, string(kind), grant)
}

// PruneGrants implements asstore.Store.
func (s *Store) PruneGrants(ctx context.Context, now time.Time, idle time.Duration) error {
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_token WHERE expires_us < ?`, now.UnixMicro()); err != nil {
			return false, err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM oauth_client WHERE created_us < ?
			AND NOT EXISTS (SELECT 1 FROM oauth_token WHERE oauth_token.client_id = oauth_client.id)`, now.Add(-idle).UnixMicro())
		return err == nil, err
	})
}

// execTx runs one statement in a write transaction.
func (s *Store) execTx(ctx context.Context, q string, args ...any) error {
	return s.withTx(ctx, func(tx *sql.Tx) (bool, error) {
		_, err := tx.ExecContext(ctx, q, args...)
		return err == nil, err
	})
}
