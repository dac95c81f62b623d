// Package asstore keeps the state of Warden's local OAuth authorization
// server (package auth/localas): registered clients and the records behind
// authorization codes, PKCE challenges, access tokens and refresh tokens.
//
// The records are the server's own types; their Data is an opaque,
// size-capped encoding the server reads back. Only hashes of codes and
// refresh tokens (their HMAC signatures) and the jti of access tokens are
// kept as keys, never a token. A [Memory] store serves tests and a server
// whose store has no table for this; store/sqlite keeps them across
// restarts. asstoretest is the behaviour suite every implementation runs.
package asstore

import (
	"context"
	"errors"
	"time"
)

// Errors every implementation returns, tested with errors.Is.
var (
	// ErrNotFound: no client or token record under that key.
	ErrNotFound = errors.New("asstore: not found")
	// ErrTooManyClients: registering one more client would pass the cap.
	ErrTooManyClients = errors.New("asstore: too many registered clients")
	// ErrExists: a record with that key is already stored.
	ErrExists = errors.New("asstore: already exists")
)

// Bounds checked by every implementation before anything is stored.
const (
	MaxIDBytes       = 256     // client id, signature, grant id
	MaxClientBytes   = 1 << 14 // name and redirect URIs together
	MaxRedirectURIs  = 10
	MaxTokenDataSize = 1 << 15 // Token.Data
)

// Client is a dynamically registered public client (RFC 7591).
type Client struct {
	ID           string
	Name         string
	RedirectURIs []string
	CreatedAt    time.Time
}

// Kind says what a token record stands for.
type Kind string

// The kinds of token records.
const (
	KindCode    Kind = "code"    // authorization code, keyed by its HMAC signature
	KindPKCE    Kind = "pkce"    // the PKCE challenge of a code, keyed like the code
	KindAccess  Kind = "access"  // access token, keyed by its jti
	KindRefresh Kind = "refresh" // refresh token, keyed by its HMAC signature
	KindConsent Kind = "consent" // a consent page decided, keyed by its random name: each decides once
)

// Token is the record behind one code or token. Every token of one
// authorization (the code, and each access and refresh token rotated from
// it) shares a GrantID, so a grant is revoked as a whole.
type Token struct {
	Kind      Kind
	Signature string
	GrantID   string
	ClientID  string
	// Active is false once the code was used or the refresh token was
	// rotated or revoked: the record stays until it expires so that a
	// second use is recognised as reuse.
	Active    bool
	ExpiresAt time.Time
	Data      []byte
}

// Store is what the authorization server needs. Implementations are safe
// for concurrent use and fail closed: an error other than the ones above
// means the state could not be read or written.
type Store interface {
	// CreateClient stores a new client, unless the id is taken
	// (ErrExists). With max clients stored already, the oldest clients
	// that hold no token record (registered and never used, or every
	// grant of theirs lapsed) are removed to make room, so that unused
	// registrations cannot lock new clients out; ErrTooManyClients, with
	// nothing removed, when too few hold none.
	CreateClient(ctx context.Context, c Client, max int) error
	// Client returns the client with that id, or ErrNotFound.
	Client(ctx context.Context, id string) (Client, error)
	// PutToken stores a new record; ErrExists if (Kind, Signature) is taken.
	PutToken(ctx context.Context, t Token) error
	// Token returns the record, active or not, or ErrNotFound. A record
	// past its ExpiresAt may still be returned until PruneGrants removes it.
	Token(ctx context.Context, kind Kind, signature string) (Token, error)
	// DeactivateToken marks one record inactive; ErrNotFound if absent.
	DeactivateToken(ctx context.Context, kind Kind, signature string) error
	// DeleteToken removes one record; absent is not an error.
	DeleteToken(ctx context.Context, kind Kind, signature string) error
	// DeactivateGrant marks every record of kind in the grant inactive.
	DeactivateGrant(ctx context.Context, kind Kind, grantID string) error
	// DeleteGrant removes every record of kind in the grant.
	DeleteGrant(ctx context.Context, kind Kind, grantID string) error
	// PruneGrants removes token records that expired before now, and clients
	// created before now−idle that no longer hold any token record.
	PruneGrants(ctx context.Context, now time.Time, idle time.Duration) error
}

// CheckClient reports a client that breaks the bounds.
func CheckClient(c Client) error {
	n := len(c.Name)
	for _, u := range c.RedirectURIs {
		n += len(u)
	}
	switch {
	case c.ID == "" || len(c.ID) > MaxIDBytes:
		return errors.New("asstore: client id must be 1–256 bytes")
	case len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > MaxRedirectURIs:
		return errors.New("asstore: a client has 1–10 redirect URIs")
	case n > MaxClientBytes:
		return errors.New("asstore: client name and redirect URIs exceed 16 KiB")
	}
	return nil
}

// CheckToken reports a token record that breaks the bounds.
func CheckToken(t Token) error {
	switch {
	case t.Kind != KindCode && t.Kind != KindPKCE && t.Kind != KindAccess && t.Kind != KindRefresh && t.Kind != KindConsent:
		return errors.New("asstore: unknown token kind")
	case t.Signature == "" || len(t.Signature) > MaxIDBytes || t.GrantID == "" || len(t.GrantID) > MaxIDBytes || len(t.ClientID) > MaxIDBytes:
		return errors.New("asstore: signature, grant id and client id must be 1–256 bytes")
	case len(t.Data) > MaxTokenDataSize:
		return errors.New("asstore: token data exceeds 32 KiB")
	case t.ExpiresAt.IsZero():
		return errors.New("asstore: a token record needs an expiry")
	}
	return nil
}
