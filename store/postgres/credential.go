package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/warden-mcp/warden/credential"
)

var _ credential.Store = (*Store)(nil)

const credentialColumns = `id, kind, tenant, issuer, subject, key_hash, entitlements, label, created_us, expires_us, revoked_us`

// CreateCredential implements credential.Store.
func (s *Store) CreateCredential(ctx context.Context, c credential.Credential) error {
	ents, err := json.Marshal(c.Entitlements)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO credential (`+credentialColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		c.ID, c.Kind, c.Tenant, c.Issuer, c.Subject, c.KeyHash, string(ents), c.Label,
		c.Created.UnixMicro(), microsOrZero(c.Expires), microsOrZero(c.Revoked))
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" { // unique_violation
		return credential.ErrExists
	}
	return err
}

// CredentialByID implements credential.Store.
func (s *Store) CredentialByID(ctx context.Context, id string) (credential.Credential, error) {
	return scanCredential(s.pool.QueryRow(ctx, `SELECT `+credentialColumns+` FROM credential WHERE id = $1`, id))
}

// CredentialBySubject implements credential.Store.
func (s *Store) CredentialBySubject(ctx context.Context, issuer, tenant, subject string) (credential.Credential, error) {
	return scanCredential(s.pool.QueryRow(ctx, `SELECT `+credentialColumns+` FROM credential
		WHERE kind = 'jwt' AND issuer = $1 AND tenant = $2 AND subject = $3`, issuer, tenant, subject))
}

// ListCredentials implements credential.Store.
func (s *Store) ListCredentials(ctx context.Context, f credential.Filter) ([]credential.Credential, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+credentialColumns+` FROM credential
		WHERE ($1 = '' OR tenant = $1) AND ($2 = '' OR kind = $2) ORDER BY created_us, id LIMIT $3`,
		f.Tenant, f.Kind, f.Limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []credential.Credential
	for rows.Next() {
		c, err := scanCredential(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RevokeCredential implements credential.Store.
func (s *Store) RevokeCredential(ctx context.Context, id string, at time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE credential SET revoked_us = $1 WHERE id = $2 AND revoked_us = 0`, at.UnixMicro(), id)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

func scanCredential(row pgx.Row) (credential.Credential, error) {
	var c credential.Credential
	var ents string
	var created, expires, revoked int64
	err := row.Scan(&c.ID, &c.Kind, &c.Tenant, &c.Issuer, &c.Subject, &c.KeyHash, &ents, &c.Label, &created, &expires, &revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, credential.ErrNotFound
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal([]byte(ents), &c.Entitlements); err != nil {
		return c, err
	}
	c.Created, c.Expires, c.Revoked = fromMicros(created), fromMicros(expires), fromMicros(revoked)
	if len(c.KeyHash) == 0 {
		c.KeyHash = nil
	}
	return c, nil
}

func microsOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

func fromMicros(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}
