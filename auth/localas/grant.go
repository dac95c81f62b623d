package localas

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/auth/asstore"
)

// A grant is one authorization: what the person allowed at the consent
// page, carried from the code to every access and refresh token rotated
// from it. Its records in the store share the grant id, so the grant is
// revoked as a whole.
type grant struct {
	ID           string
	ClientID     string
	RequestedAt  time.Time
	Scopes       []string
	Subject      string
	Entitlements []string
	// RedirectURI is the redirect_uri of the authorization request as
	// sent ("" when the client left it out); the code step must repeat it.
	RedirectURI string
	// Challenge is the PKCE S256 code challenge (codes only).
	Challenge string
}

// snapshot is the stored form of a grant inside a token record (its Data).
// The layout is the one records written before this package had its own
// grant code used, so refresh tokens stored then still redeem.
type snapshot struct {
	ID          string     `json:"id"`
	RequestedAt time.Time  `json:"at"`
	Requested   []string   `json:"rs,omitempty"`
	Granted     []string   `json:"gs,omitempty"`
	Audience    []string   `json:"aud,omitempty"`
	Form        url.Values `json:"form,omitempty"`
	Session     struct {
		Subject      string               `json:"sub"`
		Entitlements []string             `json:"ent"`
		ExpiresAt    map[string]time.Time `json:"exp,omitempty"`
	} `json:"session"`
}

// Keys of snapshot.Session.ExpiresAt, by record kind.
var expiryKey = map[asstore.Kind]string{
	asstore.KindCode:    "authorize_code",
	asstore.KindAccess:  "access_token",
	asstore.KindRefresh: "refresh_token",
}

// record is the store record of one code or token of g.
func (s *Server) record(kind asstore.Kind, sig string, g *grant, exp time.Time) (asstore.Token, error) {
	snap := snapshot{ID: g.ID, RequestedAt: g.RequestedAt, Requested: g.Scopes, Granted: g.Scopes,
		Audience: []string{s.opts.Resource}, Form: url.Values{}}
	snap.Session.Subject = g.Subject
	snap.Session.Entitlements = g.Entitlements
	snap.Session.ExpiresAt = map[string]time.Time{expiryKey[kind]: exp}
	if kind == asstore.KindCode {
		if g.RedirectURI != "" {
			snap.Form.Set("redirect_uri", g.RedirectURI)
		}
		snap.Form.Set("code_challenge", g.Challenge)
		snap.Form.Set("code_challenge_method", "S256")
	}
	data, err := json.Marshal(snap)
	if err != nil {
		return asstore.Token{}, err
	}
	return asstore.Token{Kind: kind, Signature: sig, GrantID: g.ID, ClientID: g.ClientID,
		Active: true, ExpiresAt: exp, Data: data}, nil
}

// errNoRecord: no live record under that key (absent or expired).
var errNoRecord = errors.New("localas: no such record")

// load reads the record of kind under sig and the grant it holds. An
// expired record is errNoRecord; an inactive one (a used code, a rotated
// or revoked refresh token) comes back with active false.
func (s *Server) load(ctx context.Context, kind asstore.Kind, sig string) (g *grant, active bool, err error) {
	rec, err := s.st.Token(ctx, kind, sig)
	if errors.Is(err, asstore.ErrNotFound) {
		return nil, false, errNoRecord
	}
	if err != nil {
		return nil, false, err
	}
	if !rec.ExpiresAt.After(time.Now()) {
		return nil, false, errNoRecord
	}
	var snap snapshot
	if err := json.Unmarshal(rec.Data, &snap); err != nil {
		return nil, false, err
	}
	g = &grant{ID: rec.GrantID, ClientID: rec.ClientID, RequestedAt: snap.RequestedAt, Scopes: snap.Granted,
		Subject: snap.Session.Subject, Entitlements: snap.Session.Entitlements,
		RedirectURI: snap.Form.Get("redirect_uri"), Challenge: snap.Form.Get("code_challenge")}
	if kind == asstore.KindCode && snap.Form.Get("code_challenge_method") != "S256" {
		return nil, false, errors.New("localas: a code record without an S256 challenge")
	}
	return g, rec.Active, nil
}

// revokeGrant ends every token of a grant: its refresh tokens stay,
// inactive, so that a later use is seen as reuse; its access tokens go,
// and the verifier's credential check refuses them from then on.
func (s *Server) revokeGrant(ctx context.Context, grantID string) error {
	if err := s.st.DeactivateGrant(ctx, asstore.KindRefresh, grantID); err != nil {
		return err
	}
	return s.st.DeleteGrant(ctx, asstore.KindAccess, grantID)
}

// Prefixes of the opaque codes and tokens. Refresh tokens issued before
// this package had its own grant code carry legacyRefreshPrefix; they are
// built and signed the same way, and still redeem.
const (
	codePrefix          = "wdn_ac_"
	refreshPrefix       = "wdn_rt_"
	legacyRefreshPrefix = "ory_rt_"
	opaqueKeyBytes      = 32
	maxOpaqueTokenBytes = 256
)

// opaque makes and checks authorization codes and refresh tokens:
// prefix, 32 random bytes and their HMAC-SHA-512/256 under a secret
// derived from the signing key, both base64url, joined by a dot. The
// store keys a record by the HMAC alone, so it never holds a usable
// token, and a token survives a restart of the server.
type opaque struct{ key []byte }

func (o opaque) mac(data []byte) []byte {
	m := hmac.New(sha512.New512_256, o.key)
	m.Write(data)
	return m.Sum(nil)
}

// generate returns a new token with prefix and its signature, the key of
// its record.
func (o opaque) generate(prefix string) (token, sig string) {
	k := make([]byte, opaqueKeyBytes)
	rand.Read(k)
	sig = base64.RawURLEncoding.EncodeToString(o.mac(k))
	return prefix + base64.RawURLEncoding.EncodeToString(k) + "." + sig, sig
}

// signature checks that token is one of ours with one of prefixes and
// returns the key of its record.
func (o opaque) signature(token string, prefixes ...string) (string, bool) {
	if len(token) > maxOpaqueTokenBytes {
		return "", false
	}
	for _, p := range prefixes {
		rest, ok := strings.CutPrefix(token, p)
		if !ok {
			continue
		}
		k, sig, ok := strings.Cut(rest, ".")
		kb, err1 := base64.RawURLEncoding.DecodeString(k)
		sb, err2 := base64.RawURLEncoding.DecodeString(sig)
		if !ok || err1 != nil || err2 != nil || len(kb) == 0 || !hmac.Equal(sb, o.mac(kb)) {
			return "", false
		}
		return sig, true
	}
	return "", false
}

// randomID is 128 random bits, base64url: grant ids and access token jtis.
func randomID() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// issued is what the token endpoint answers.
type issued struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// issue mints an access token and a refresh token for g and stores their
// records. The access token is a JWT of the local issuer, the kind
// `warden token` mints, so the MCP endpoint's one verifier accepts both;
// its jti keys its record.
func (s *Server) issue(ctx context.Context, g *grant) (issued, error) {
	now := time.Now()
	life := s.opts.AccessTokenLifetime
	jti := randomID()
	at, err := s.opts.Keys.Mint(auth.TokenSpec{
		Audience:     s.opts.Resource,
		Subject:      g.Subject,
		Tenant:       s.opts.Tenant,
		Entitlements: g.Entitlements,
		Scopes:       g.Scopes,
		Lifetime:     life,
		IssuedAt:     now,
		ClientID:     g.ClientID,
		TokenID:      jti,
	})
	if err != nil {
		return issued{}, err
	}
	rt, rsig := s.tokens.generate(refreshPrefix)
	for _, r := range []struct {
		kind asstore.Kind
		sig  string
		exp  time.Time
	}{{asstore.KindAccess, jti, now.Add(life)}, {asstore.KindRefresh, rsig, now.Add(s.opts.RefreshTokenLifetime)}} {
		rec, err := s.record(r.kind, r.sig, g, r.exp)
		if err == nil {
			err = s.st.PutToken(ctx, rec)
		}
		if err != nil {
			return issued{}, err
		}
	}
	return issued{AccessToken: at, TokenType: "bearer", ExpiresIn: int64(life / time.Second),
		RefreshToken: rt, Scope: strings.Join(g.Scopes, " ")}, nil
}
