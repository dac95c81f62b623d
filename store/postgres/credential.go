package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/warden-mcp/warden/store/internal/sqlshare"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/warden-mcp/warden/credential"
)

var _ credential.Store = (*Store)(nil)

// CreateCredential implements credential.Store.
func (s *Store) CreateCredential(ctx context.Context, c credential.Credential) error {
	ents, err := json.Marshal(c.Entitlements)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, qInsertCredential, sqlshare.CredentialArgs(c, ents)...)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" { // unique_violation
		return credential.ErrExists
	}
	return err
}

// CredentialByID implements credential.Store.
func (s *Store) CredentialByID(ctx context.Context, id string) (credential.Credential, error) {
	return scanCredential(s.pool.QueryRow(ctx, qCredentialByID, id))
}

// CredentialBySubject implements credential.Store.
func (s *Store) CredentialBySubject(ctx context.Context, issuer, tenant, subject string) (credential.Credential, error) {
	return scanCredential(s.pool.QueryRow(ctx, qCredentialByJWT, issuer, tenant, subject))
}

// ListCredentials implements credential.Store.
func (s *Store) ListCredentials(ctx context.Context, f credential.Filter) ([]credential.Credential, error) {
	rows, err := s.pool.Query(ctx, qListCredentials,
		f.Tenant, f.Tenant, f.Kind, f.Kind, f.Limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshare.Collect(rows, func(sc sqlshare.Scanner) (credential.Credential, error) { return scanCredential(sc) })
}

// RevokeCredential implements credential.Store.
func (s *Store) RevokeCredential(ctx context.Context, id string, at time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, qRevokeCredential, at.UnixMicro(), id)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// scanCredential reads a credential, ErrNotFound for no row.
func scanCredential(row pgx.Row) (credential.Credential, error) {
	c, err := sqlshare.ScanCredential(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, credential.ErrNotFound
	}
	return c, err
}
