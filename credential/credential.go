// Package credential is Warden's credential registry: opaque API keys
// issued by the operator, and, when binding is on, the JWT subjects a
// server admits. Every request checks that its credential is known, bound
// to the tenant it claims and not revoked or expired, against the store
// every replica shares, through a short cache whose staleness is bounded:
// a revocation takes effect everywhere within Options.TTL.
//
// An API key reads "wdn_<id>_<secret>": the id names the registry row, the
// secret is 32 random bytes of which only the SHA-256 is stored. The
// secret is high-entropy, so a plain hash suffices; the key is shown once,
// at creation.
//
// Refusals carry the codes clients match on: credential_binding_failed (the
// credential is unknown, revoked, expired, or bound to another tenant; 401)
// and binding_check_unavailable (the registry cannot be read; 503 with
// Retry-After). Nothing is admitted on error.
package credential

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/warden-mcp/warden/errcode"
)

// Kinds of credential.
const (
	// KindAPIKey is an opaque key issued by `warden credentials create`.
	KindAPIKey = "api_key"
	// KindJWT binds a JWT subject (issuer, tenant, subject) so that its
	// tokens are admitted while binding is on.
	KindJWT = "jwt"
)

// Issuer is the Principal.Issuer of requests made with an API key.
const Issuer = "urn:warden:credential"

// KeyPrefix starts every API key, so that a key is told from a JWT
// without parsing and found by secret scanners.
const KeyPrefix = "wdn_"

// Public codes.
const (
	CodeBindingFailed      = "credential_binding_failed"
	CodeBindingUnavailable = "binding_check_unavailable"
)

// Bounds.
const (
	idBytes        = 8  // 16 hex digits
	secretBytes    = 32 // 43 base64url characters
	maxNameLen     = 256
	maxEntitlement = 256
)

// Credential is one registry row. It never holds a key, only the hash of
// its secret.
type Credential struct {
	ID     string
	Kind   string
	Tenant string
	// Issuer and Subject name the JWT subject a KindJWT row binds; empty
	// for API keys.
	Issuer, Subject string
	// Entitlements name the tools the credential may call (see
	// auth.Principal.Entitled). For a bound JWT subject they narrow the
	// token's own.
	Entitlements []string
	Label        string
	// KeyHash is the SHA-256 of an API key's secret.
	KeyHash []byte
	Created time.Time
	// Expires is when the credential stops being admitted; zero: never.
	Expires time.Time
	// Revoked is when it was revoked; zero: not revoked.
	Revoked time.Time
}

// Active reports whether the credential is admitted at now.
func (c Credential) Active(now time.Time) bool {
	return c.Revoked.IsZero() && (c.Expires.IsZero() || now.Before(c.Expires))
}

// Status is "active", "revoked" or "expired" at now.
func (c Credential) Status(now time.Time) string {
	switch {
	case !c.Revoked.IsZero():
		return "revoked"
	case !c.Expires.IsZero() && !now.Before(c.Expires):
		return "expired"
	}
	return "active"
}

// ErrNotFound is what a Store returns for an unknown credential.
var ErrNotFound = errors.New("credential: not found")

// ErrExists is what a Store returns when a row would duplicate another
// (an id, or a JWT subject already bound in the tenant).
var ErrExists = errors.New("credential: already registered")

// Filter selects credentials to list. Zero fields do not filter.
type Filter struct {
	Tenant string
	Kind   string
	// Limit caps the rows; zero: 1000.
	Limit int
}

// Store keeps the registry. Adapters live in store/sqlite and
// store/postgres; credentialtest is the behaviour suite each must pass.
type Store interface {
	// CreateCredential adds c; ErrExists if its id, or for KindJWT its
	// (issuer, tenant, subject), is taken.
	CreateCredential(ctx context.Context, c Credential) error
	// CredentialByID returns the row with id, or ErrNotFound.
	CredentialByID(ctx context.Context, id string) (Credential, error)
	// CredentialBySubject returns the KindJWT row binding (issuer,
	// tenant, subject), or ErrNotFound.
	CredentialBySubject(ctx context.Context, issuer, tenant, subject string) (Credential, error)
	// ListCredentials returns matching rows, oldest first.
	ListCredentials(ctx context.Context, f Filter) ([]Credential, error)
	// RevokeCredential marks id revoked at the given time, once; it
	// reports whether a row was revoked now (false: unknown or already
	// revoked).
	RevokeCredential(ctx context.Context, id string, at time.Time) (bool, error)
}

// newID returns a fresh credential id.
func newID() string {
	var b [idBytes]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newSecret returns a fresh secret and its hash.
func newSecret() (string, []byte) {
	var b [secretBytes]byte
	_, _ = rand.Read(b[:])
	s := base64.RawURLEncoding.EncodeToString(b[:])
	h := sha256.Sum256([]byte(s))
	return s, h[:]
}

// parseKey splits an API key into its id and secret.
func parseKey(key string) (id, secret string, ok bool) {
	rest, ok := strings.CutPrefix(key, KeyPrefix)
	if !ok || len(rest) != 2*idBytes+1+43 || rest[2*idBytes] != '_' {
		return "", "", false
	}
	id, secret = rest[:2*idBytes], rest[2*idBytes+1:]
	if _, err := hex.DecodeString(id); err != nil || strings.ToLower(id) != id {
		return "", "", false
	}
	if _, err := base64.RawURLEncoding.Strict().DecodeString(secret); err != nil {
		return "", "", false
	}
	return id, secret, true
}

// secretMatches compares a presented secret with a stored hash in
// constant time.
func secretMatches(secret string, hash []byte) bool {
	h := sha256.Sum256([]byte(secret))
	return len(hash) == len(h) && subtle.ConstantTimeCompare(h[:], hash) == 1
}

// IsKey reports whether a bearer token is shaped as an API key (it may
// still be unknown).
func IsKey(token string) bool { return strings.HasPrefix(token, KeyPrefix) }

// ValidID reports whether id is shaped as a credential id.
func ValidID(id string) bool {
	if len(id) != 2*idBytes || strings.ToLower(id) != id {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

func bindingFailed(cause error) *errcode.Error {
	return errcode.Wrap(CodeBindingFailed, "the credential is unknown, revoked, expired or bound to another tenant", cause)
}

func bindingUnavailable(retry time.Duration, cause error) *errcode.Error {
	e := errcode.Wrap(CodeBindingUnavailable, "the credential cannot be checked now; retry later", cause)
	e.RetryAfter = retry
	return e
}

// checkName validates a tenant, subject or label.
func checkName(what, v string, required bool) error {
	if v == "" && required {
		return fmt.Errorf("credential: %s is required", what)
	}
	if len(v) > maxNameLen {
		return fmt.Errorf("credential: %s longer than %d bytes", what, maxNameLen)
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return fmt.Errorf("credential: %s must be printable ASCII", what)
		}
	}
	return nil
}
