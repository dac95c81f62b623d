package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/warden-mcp/warden/auth/asstore"
)

// The local authorization server's records (asstore.Store). A local
// profile may keep its state in PostgreSQL too.

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
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// One registration at a time, so the cap holds across replicas.
		if _, err := tx.Exec(ctx, `LOCK TABLE oauth_client IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		var n int
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(bool_or(id = $1), false) FROM oauth_client`, c.ID).Scan(&n, &exists); err != nil {
			return err
		}
		if exists {
			refusal = asstore.ErrExists
			return nil
		}
		if over := n - max + 1; over > 0 {
			// The oldest clients that hold no token make room.
			tag, err := tx.Exec(ctx, `DELETE FROM oauth_client WHERE id IN (SELECT c.id FROM oauth_client c
				WHERE NOT EXISTS (SELECT 1 FROM oauth_token t WHERE t.client_id = c.id) ORDER BY c.created_us, c.id LIMIT $1)`, over)
			if err != nil {
				return err
			}
			if tag.RowsAffected() < int64(over) {
				refusal = asstore.ErrTooManyClients
				return errRollback
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO oauth_client (id, name, redirect_uris, created_us) VALUES ($1, $2, $3, $4)`,
			c.ID, c.Name, string(uris), c.CreatedAt.UnixMicro())
		return err
	})
	if err != nil && !errors.Is(err, errRollback) {
		return err
	}
	return refusal
}

// errRollback ends a transaction without an error of its own: the
// refusal it records is the answer.
var errRollback = errors.New("rolled back")

// Client implements asstore.Store.
func (s *Store) Client(ctx context.Context, id string) (asstore.Client, error) {
	var c asstore.Client
	var uris []byte
	var created int64
	err := s.pool.QueryRow(ctx, `SELECT id, name, redirect_uris, created_us FROM oauth_client WHERE id = $1`, id).
		Scan(&c.ID, &c.Name, &uris, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return asstore.Client{}, asstore.ErrNotFound
	}
	if err != nil {
		return asstore.Client{}, err
	}
	if err := json.Unmarshal(uris, &c.RedirectURIs); err != nil {
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
	tag, err := s.pool.Exec(ctx, `INSERT INTO oauth_token (kind, signature, grant_id, client_id, active, expires_us, data)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (kind, signature) DO NOTHING`,
		string(t.Kind), t.Signature, t.GrantID, t.ClientID, t.Active, t.ExpiresAt.UnixMicro(), append([]byte{}, t.Data...))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return asstore.ErrExists
	}
	return nil
}

// Token implements asstore.Store.
func (s *Store) Token(ctx context.Context, kind asstore.Kind, sig string) (asstore.Token, error) {
	t := asstore.Token{Kind: kind, Signature: sig}
	var expires int64
	err := s.pool.QueryRow(ctx, `SELECT grant_id, client_id, active, expires_us, data FROM oauth_token WHERE kind = $1 AND signature = $2`,
		string(kind), sig).Scan(&t.GrantID, &t.ClientID, &t.Active, &expires, &t.Data)
	if errors.Is(err, pgx.ErrNoRows) {
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
	tag, err := s.pool.Exec(ctx, `UPDATE oauth_token SET active = false WHERE kind = $1 AND signature = $2`, string(kind), sig)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return asstore.ErrNotFound
	}
	return nil
}

// DeleteToken implements asstore.Store.
func (s *Store) DeleteToken(ctx context.Context, kind asstore.Kind, sig string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM oauth_token WHERE kind = $1 AND signature = $2`, string(kind), sig)
	return err
}

// DeactivateGrant implements asstore.Store.
func (s *Store) DeactivateGrant(ctx context.Context, kind asstore.Kind, grant string) error {
	_, err := s.pool.Exec(ctx, `UPDATE oauth_token SET active = false WHERE kind = $1 AND grant_id = $2`, string(kind), grant)
	return err
}

// DeleteGrant implements asstore.Store.
func (s *Store) DeleteGrant(ctx context.Context, kind asstore.Kind, grant string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM oauth_token WHERE kind = $1 AND grant_id = $2`, string(kind), grant)
	return err
}

// PruneGrants implements asstore.Store.
func (s *Store) PruneGrants(ctx context.Context, now time.Time, idle time.Duration) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM oauth_token WHERE expires_us < $1`, now.UnixMicro()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM oauth_client c WHERE c.created_us < $1
			AND NOT EXISTS (SELECT 1 FROM oauth_token t WHERE t.client_id = c.id)`, now.Add(-idle).UnixMicro())
		return err
	})
}
