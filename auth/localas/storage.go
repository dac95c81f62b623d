package localas

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"time"

	"github.com/ory/fosite"

	"github.com/warden-mcp/warden/auth/asstore"
)

// session is what a grant carries from the consent to every token minted
// under it. It is fosite's Session, stored inside the token records.
type session struct {
	Subject      string                         `json:"sub"`
	Entitlements []string                       `json:"ent"`
	ExpiresAt    map[fosite.TokenType]time.Time `json:"exp,omitempty"`
}

func (s *session) SetExpiresAt(key fosite.TokenType, exp time.Time) {
	if s.ExpiresAt == nil {
		s.ExpiresAt = map[fosite.TokenType]time.Time{}
	}
	s.ExpiresAt[key] = exp
}

func (s *session) GetExpiresAt(key fosite.TokenType) time.Time { return s.ExpiresAt[key] }
func (s *session) GetUsername() string                         { return "" }
func (s *session) GetSubject() string                          { return s.Subject }

func (s *session) Clone() fosite.Session {
	c := &session{Subject: s.Subject, Entitlements: append([]string(nil), s.Entitlements...)}
	for k, v := range s.ExpiresAt {
		c.SetExpiresAt(k, v)
	}
	return c
}

// keptForm are the request parameters a record keeps: what the token
// step compares (redirect_uri) and what PKCE checks.
var keptForm = []string{"redirect_uri", "code_challenge", "code_challenge_method"}

// snapshot is the stored form of a fosite request.
type snapshot struct {
	ID          string     `json:"id"`
	RequestedAt time.Time  `json:"at"`
	Requested   []string   `json:"rs,omitempty"`
	Granted     []string   `json:"gs,omitempty"`
	Audience    []string   `json:"aud,omitempty"`
	Form        url.Values `json:"form,omitempty"`
	Session     session    `json:"session"`
}

// storage adapts an asstore.Store to the interfaces fosite's handlers
// use. Records never hold a token: codes and refresh tokens are keyed by
// their HMAC signature, access tokens by their jti.
type storage struct {
	st    asstore.Store
	now   func() time.Time
	rsrc  string // the only audience
	scope []string
}

func (s *storage) record(kind asstore.Kind, sig string, r fosite.Requester, exp time.Time) (asstore.Token, error) {
	sess, ok := r.GetSession().(*session)
	if !ok {
		return asstore.Token{}, errors.New("localas: foreign session type")
	}
	snap := snapshot{ID: r.GetID(), RequestedAt: r.GetRequestedAt(), Requested: r.GetRequestedScopes(),
		Granted: r.GetGrantedScopes(), Audience: r.GetGrantedAudience(), Session: *sess, Form: url.Values{}}
	for _, k := range keptForm {
		if v := r.GetRequestForm().Get(k); v != "" {
			snap.Form.Set(k, v)
		}
	}
	data, err := json.Marshal(snap)
	if err != nil {
		return asstore.Token{}, err
	}
	if exp.IsZero() {
		return asstore.Token{}, errors.New("localas: token without expiry")
	}
	return asstore.Token{Kind: kind, Signature: sig, GrantID: r.GetID(), ClientID: r.GetClient().GetID(),
		Active: true, ExpiresAt: exp, Data: data}, nil
}

func (s *storage) put(ctx context.Context, kind asstore.Kind, sig string, r fosite.Requester, tt fosite.TokenType) error {
	exp := r.GetSession().GetExpiresAt(tt)
	rec, err := s.record(kind, sig, r, exp)
	if err != nil {
		return err
	}
	return s.st.PutToken(ctx, rec)
}

// get loads a record as a fosite request. An expired record is not found;
// an inactive one comes back with inactive set.
func (s *storage) get(ctx context.Context, kind asstore.Kind, sig string) (fosite.Requester, bool, error) {
	rec, err := s.st.Token(ctx, kind, sig)
	if errors.Is(err, asstore.ErrNotFound) {
		return nil, false, fosite.ErrNotFound
	}
	if err != nil {
		return nil, false, err
	}
	if !rec.ExpiresAt.After(s.now()) {
		return nil, false, fosite.ErrNotFound
	}
	var snap snapshot
	if err := json.Unmarshal(rec.Data, &snap); err != nil {
		return nil, false, err
	}
	c, err := s.GetClient(ctx, rec.ClientID)
	if err != nil {
		return nil, false, err
	}
	r := fosite.NewRequest()
	r.ID = snap.ID
	r.RequestedAt = snap.RequestedAt
	r.Client = c
	r.RequestedScope = snap.Requested
	r.GrantedScope = snap.Granted
	r.RequestedAudience = snap.Audience
	r.GrantedAudience = snap.Audience
	r.Form = snap.Form
	sess := snap.Session
	r.Session = &sess
	return r, !rec.Active, nil
}

// GetClient implements fosite.ClientManager: every registered client is
// public (no secret; PKCE proves the caller), may use the authorization
// code and refresh token grants, and is granted the supported scopes.
func (s *storage) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	c, err := s.st.Client(ctx, id)
	if errors.Is(err, asstore.ErrNotFound) {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &fosite.DefaultClient{
		ID:            c.ID,
		RedirectURIs:  c.RedirectURIs,
		GrantTypes:    []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"},
		Scopes:        s.scope,
		Audience:      []string{s.rsrc},
		Public:        true,
	}, nil
}

// ClientAssertionJWTValid implements fosite.ClientManager. Clients never
// authenticate with assertions here, so no jti is ever known.
func (s *storage) ClientAssertionJWTValid(context.Context, string) error { return nil }

// SetClientAssertionJWT implements fosite.ClientManager; see above.
func (s *storage) SetClientAssertionJWT(context.Context, string, time.Time) error {
	return errors.New("localas: client assertions are not supported")
}

func (s *storage) CreateAuthorizeCodeSession(ctx context.Context, code string, r fosite.Requester) error {
	return s.put(ctx, asstore.KindCode, code, r, fosite.AuthorizeCode)
}

func (s *storage) GetAuthorizeCodeSession(ctx context.Context, code string, _ fosite.Session) (fosite.Requester, error) {
	r, used, err := s.get(ctx, asstore.KindCode, code)
	if err == nil && used {
		return r, fosite.ErrInvalidatedAuthorizeCode
	}
	return r, err
}

func (s *storage) InvalidateAuthorizeCodeSession(ctx context.Context, code string) error {
	return s.st.DeactivateToken(ctx, asstore.KindCode, code)
}

func (s *storage) CreatePKCERequestSession(ctx context.Context, sig string, r fosite.Requester) error {
	return s.put(ctx, asstore.KindPKCE, sig, r, fosite.AuthorizeCode)
}

func (s *storage) GetPKCERequestSession(ctx context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	r, _, err := s.get(ctx, asstore.KindPKCE, sig)
	return r, err
}

func (s *storage) DeletePKCERequestSession(ctx context.Context, sig string) error {
	return s.st.DeleteToken(ctx, asstore.KindPKCE, sig)
}

func (s *storage) CreateAccessTokenSession(ctx context.Context, sig string, r fosite.Requester) error {
	return s.put(ctx, asstore.KindAccess, sig, r, fosite.AccessToken)
}

func (s *storage) GetAccessTokenSession(ctx context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	r, revoked, err := s.get(ctx, asstore.KindAccess, sig)
	if err == nil && revoked {
		return nil, fosite.ErrNotFound
	}
	return r, err
}

func (s *storage) DeleteAccessTokenSession(ctx context.Context, sig string) error {
	return s.st.DeleteToken(ctx, asstore.KindAccess, sig)
}

func (s *storage) CreateRefreshTokenSession(ctx context.Context, sig, _ string, r fosite.Requester) error {
	return s.put(ctx, asstore.KindRefresh, sig, r, fosite.RefreshToken)
}

// GetRefreshTokenSession returns fosite.ErrInactiveToken, with the
// request, for a refresh token that was rotated or revoked: fosite then
// treats the call as reuse and revokes the whole grant.
func (s *storage) GetRefreshTokenSession(ctx context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	r, inactive, err := s.get(ctx, asstore.KindRefresh, sig)
	if err == nil && inactive {
		return r, fosite.ErrInactiveToken
	}
	return r, err
}

func (s *storage) DeleteRefreshTokenSession(ctx context.Context, sig string) error {
	return s.st.DeleteToken(ctx, asstore.KindRefresh, sig)
}

// RotateRefreshToken retires every refresh token of the grant (kept,
// inactive, so that a second use is seen as reuse) and every access
// token minted under it: the client goes on with the pair it is about to
// receive.
func (s *storage) RotateRefreshToken(ctx context.Context, grantID, _ string) error {
	if err := s.RevokeRefreshToken(ctx, grantID); err != nil {
		return err
	}
	return s.RevokeAccessToken(ctx, grantID)
}

// RevokeRefreshToken implements RFC 7009 for a grant's refresh tokens.
func (s *storage) RevokeRefreshToken(ctx context.Context, grantID string) error {
	return s.st.DeactivateGrant(ctx, asstore.KindRefresh, grantID)
}

// RevokeAccessToken removes the grant's access tokens, which the
// verifier's credential check then refuses.
func (s *storage) RevokeAccessToken(ctx context.Context, grantID string) error {
	return s.st.DeleteGrant(ctx, asstore.KindAccess, grantID)
}
