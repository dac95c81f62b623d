package localas

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"time"

	"github.com/ory/fosite"
	foauth2 "github.com/ory/fosite/handler/oauth2"

	"github.com/warden-mcp/warden/auth"
)

// strategy makes the codes and tokens. Authorization codes and refresh
// tokens are fosite's HMAC tokens (random, keyed by their signature under
// a secret derived from the signing key, so they survive a restart).
// Access tokens are JWTs from the local issuer, the same kind `warden
// token` mints, so the server's one verifier accepts both; their jti keys
// the record that revocation removes.
type strategy struct {
	*foauth2.HMACSHAStrategy
	issuer   *auth.LocalIssuer
	resource string
	tenant   string
	now      func() time.Time
}

var _ foauth2.CoreStrategy = (*strategy)(nil)

func (s *strategy) AccessTokenSignature(_ context.Context, token string) string {
	m, ok := s.issuer.ReadMinted(token)
	if !ok {
		return ""
	}
	return m.TokenID
}

func (s *strategy) GenerateAccessToken(_ context.Context, r fosite.Requester) (string, string, error) {
	sess, ok := r.GetSession().(*session)
	if !ok {
		return "", "", errors.New("localas: foreign session type")
	}
	now := s.now()
	exp := sess.GetExpiresAt(fosite.AccessToken)
	if !exp.After(now) {
		return "", "", errors.New("localas: access token expiry not set")
	}
	var b [16]byte
	rand.Read(b[:])
	jti := base64.RawURLEncoding.EncodeToString(b[:])
	tok, err := s.issuer.Mint(auth.TokenSpec{
		Audience:     s.resource,
		Subject:      sess.Subject,
		Tenant:       s.tenant,
		Entitlements: sess.Entitlements,
		Scopes:       r.GetGrantedScopes(),
		Lifetime:     exp.Sub(now).Round(time.Second),
		IssuedAt:     now,
		ClientID:     r.GetClient().GetID(),
		TokenID:      jti,
	})
	return tok, jti, err
}

func (s *strategy) ValidateAccessToken(_ context.Context, _ fosite.Requester, token string) error {
	m, ok := s.issuer.ReadMinted(token)
	switch {
	case !ok:
		return fosite.ErrInvalidTokenFormat
	case !m.ExpiresAt.After(s.now()):
		return fosite.ErrTokenExpired
	}
	return nil
}
