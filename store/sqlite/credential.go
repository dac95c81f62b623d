package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"github.com/warden-mcp/warden/store/internal/sqlshare"
	"strings"
	"time"

	"github.com/warden-mcp/warden/credential"
)

var _ credential.Store = (*Store)(nil)

// CreateCredential implements credential.Store.
func (s *Store) CreateCredential(ctx context.Context, c credential.Credential) error {
	ents, err := json.Marshal(c.Entitlements)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, sqlshare.InsertCredential, sqlshare.CredentialArgs(c, ents)...)
	if err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return credential.ErrExists
	}
	return err
}

// CredentialByID implements credential.Store.
func (s *Store) CredentialByID(ctx context.Context, id string) (credential.Credential, error) {
	return scanCredential(s.db.QueryRowContext(ctx, sqlshare.CredentialByID, id))
}

// CredentialBySubject implements credential.Store.
func (s *Store) CredentialBySubject(ctx context.Context, issuer, tenant, subject string) (credential.Credential, error) {
	return scanCredential(s.db.QueryRowContext(ctx, sqlshare.CredentialByJWT, issuer, tenant, subject))
}

// ListCredentials implements credential.Store.
func (s *Store) ListCredentials(ctx context.Context, f credential.Filter) ([]credential.Credential, error) {
	rows, err := s.ro.QueryContext(ctx, sqlshare.ListCredentials,
		f.Tenant, f.Tenant, f.Kind, f.Kind, f.Limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlshare.Collect(rows, func(sc sqlshare.Scanner) (credential.Credential, error) { return scanCredential(sc) })
}

// RevokeCredential implements credential.Store.
func (s *Store) RevokeCredential(ctx context.Context, id string, at time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, sqlshare.RevokeCredential, at.UnixMicro(), id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// scanCredential reads a credential, ErrNotFound for no row.
func scanCredential(row interface{ Scan(...any) error }) (credential.Credential, error) {
	c, err := sqlshare.ScanCredential(row)
	if errors.Is(err, sql.ErrNoRows) {
		return c, credential.ErrNotFound
	}
	return c, err
}
