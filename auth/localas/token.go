package localas

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/warden-mcp/warden/auth/asstore"
)

// token serves the token endpoint: the authorization code grant (with the
// PKCE verifier and the exact redirect URI) and the refresh token grant
// (rotation; a rotated token used again revokes the grant).
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	var (
		out   issued
		grant string
		c     asstore.Client
		e     *protocolError
	)
	form, e := postForm(r)
	if e == nil {
		grant = form.Get("grant_type")
		c, e = s.authenticateClient(ctx, r, form)
	}
	if e == nil {
		e = s.checkResource(form)
	}
	if e == nil {
		switch grant {
		case "authorization_code":
			out, e = s.redeemCode(ctx, c, form)
		case "refresh_token":
			out, e = s.refresh(ctx, c, form)
		case "":
			e = errInvalidRequest("The grant_type parameter is missing.")
		default:
			e = &protocolError{"unsupported_grant_type", "Only the authorization_code and refresh_token grants are supported.", http.StatusBadRequest}
		}
	}
	if e != nil {
		s.logRefusal(ctx, "token request refused", e)
		writeOAuthJSON(w, e)
		return
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, "oauth: tokens issued", slog.String("client_id", c.ID), slog.String("grant_type", grant))
	h := w.Header()
	h.Set("Content-Type", "application/json;charset=UTF-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	json.NewEncoder(w).Encode(out)
}

// postForm reads an application/x-www-form-urlencoded body; each
// parameter may appear once (RFC 6749 §3.2).
func postForm(r *http.Request) (url.Values, *protocolError) {
	if err := r.ParseForm(); err != nil {
		return nil, errInvalidRequest("The body must be a form of at most 64 KiB (application/x-www-form-urlencoded).")
	}
	for k, v := range r.PostForm {
		if len(v) > 1 {
			return nil, errInvalidRequest("The " + strconvQuote(k) + " parameter must appear once.")
		}
	}
	return r.PostForm, nil
}

// authenticateClient finds the calling client. Every client is public
// (token_endpoint_auth_method "none"): it names itself with client_id in
// the body or as the user of HTTP Basic, and PKCE or its refresh token
// is its proof.
func (s *Server) authenticateClient(ctx context.Context, r *http.Request, form url.Values) (asstore.Client, *protocolError) {
	id := form.Get("client_id")
	if user, _, ok := r.BasicAuth(); ok {
		u, err := url.QueryUnescape(user)
		if err != nil || id != "" && id != u {
			return asstore.Client{}, errInvalidRequest("The client is named twice, differently.")
		}
		id = u
	}
	if id == "" {
		return asstore.Client{}, errInvalidRequest("The client_id parameter is missing.")
	}
	c, err := s.st.Client(ctx, id)
	switch {
	case errors.Is(err, asstore.ErrNotFound):
		return asstore.Client{}, errInvalidClient("The client is not registered here; register it again.")
	case err != nil:
		s.log.LogAttrs(ctx, slog.LevelError, "oauth: reading a client failed", slog.String("cause", err.Error()))
		return asstore.Client{}, errUnavailable
	}
	return c, nil
}

// redeemCode is the authorization code grant. A code redeems once: a
// second use revokes every token issued from it (RFC 6749 §4.1.2), and a
// wrong verifier spends it.
func (s *Server) redeemCode(ctx context.Context, c asstore.Client, form url.Values) (issued, *protocolError) {
	sig, ok := s.tokens.signature(form.Get("code"), codePrefix)
	if !ok {
		return issued{}, errInvalidGrant("The authorization code is not valid.")
	}
	s.grantMu.Lock()
	defer s.grantMu.Unlock()
	g, active, err := s.load(ctx, asstore.KindCode, sig)
	switch {
	case errors.Is(err, errNoRecord):
		return issued{}, errInvalidGrant("The authorization code is unknown or expired.")
	case err != nil:
		return issued{}, s.storeFailed(ctx, err)
	case !active:
		if err := s.revokeGrant(ctx, g.ID); err != nil {
			return issued{}, s.storeFailed(ctx, err)
		}
		s.log.LogAttrs(ctx, slog.LevelWarn, "oauth: an authorization code was used twice; its grant is revoked", slog.String("client_id", g.ClientID))
		return issued{}, errInvalidGrant("The authorization code was used already; the tokens issued from it are revoked.")
	case g.ClientID != c.ID:
		return issued{}, errInvalidGrant("The authorization code was issued to another client.")
	case g.RedirectURI != "" && form.Get("redirect_uri") != g.RedirectURI:
		return issued{}, errInvalidGrant("The redirect_uri must be the one of the authorization request.")
	}
	if !verifierMatches(form.Get("code_verifier"), g.Challenge) {
		if err := s.st.DeactivateToken(ctx, asstore.KindCode, sig); err != nil {
			return issued{}, s.storeFailed(ctx, err)
		}
		return issued{}, errInvalidGrant("The code_verifier does not match the code challenge.")
	}
	if err := s.st.DeactivateToken(ctx, asstore.KindCode, sig); err != nil {
		return issued{}, s.storeFailed(ctx, err)
	}
	out, err := s.issue(ctx, g)
	if err != nil {
		return issued{}, s.storeFailed(ctx, err)
	}
	return out, nil
}

// verifierMatches checks a PKCE verifier (RFC 7636 §4.1: 43 to 128
// unreserved characters) against an S256 challenge.
func verifierMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 || challenge == "" {
		return false
	}
	for i := 0; i < len(verifier); i++ {
		if !isUnreserved(verifier[i]) {
			return false
		}
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// refresh is the refresh token grant with rotation: each use retires
// the grant's refresh and access tokens and issues a new pair with the
// full lifetimes. A retired refresh token used again is taken for a
// stolen one, and the whole grant is revoked (OAuth 2.1 §4.3.1).
func (s *Server) refresh(ctx context.Context, c asstore.Client, form url.Values) (issued, *protocolError) {
	sig, ok := s.tokens.signature(form.Get("refresh_token"), refreshPrefix, legacyRefreshPrefix)
	if !ok {
		return issued{}, errInvalidGrant("The refresh token is not valid.")
	}
	s.grantMu.Lock()
	defer s.grantMu.Unlock()
	g, active, err := s.load(ctx, asstore.KindRefresh, sig)
	switch {
	case errors.Is(err, errNoRecord):
		return issued{}, errInvalidGrant("The refresh token is unknown or expired.")
	case err != nil:
		return issued{}, s.storeFailed(ctx, err)
	case !active:
		if err := s.revokeGrant(ctx, g.ID); err != nil {
			return issued{}, s.storeFailed(ctx, err)
		}
		s.log.LogAttrs(ctx, slog.LevelWarn, "oauth: a rotated or revoked refresh token was used; its grant is revoked", slog.String("client_id", g.ClientID))
		return issued{}, errInvalidGrant("The refresh token was used already or revoked; sign in again.")
	case g.ClientID != c.ID:
		return issued{}, errInvalidGrant("The refresh token was issued to another client.")
	}
	if scope := form.Get("scope"); scope != "" {
		narrowed := strings.Fields(scope)
		for _, sc := range narrowed {
			if !slices.Contains(g.Scopes, sc) {
				return issued{}, &protocolError{"invalid_scope", "A refresh may only ask for scopes of the original grant.", http.StatusBadRequest}
			}
		}
		g.Scopes = narrowed
	}
	if err := s.revokeGrant(ctx, g.ID); err != nil {
		return issued{}, s.storeFailed(ctx, err)
	}
	out, err := s.issue(ctx, g)
	if err != nil {
		return issued{}, s.storeFailed(ctx, err)
	}
	return out, nil
}

// revoke serves RFC 7009 revocation. Revoking either token of a grant
// revokes the grant: its refresh tokens and its access tokens. A token
// that is unknown, expired, malformed or another client's is answered
// 200 like any other (RFC 7009 §2.2), and left alone.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	form, e := postForm(r)
	if e == nil && len(form) == 0 {
		e = errInvalidRequest("The body is empty; send the token to revoke.")
	}
	var c asstore.Client
	if e == nil {
		c, e = s.authenticateClient(ctx, r, form)
	}
	if e == nil {
		e = s.revokeToken(ctx, c, form.Get("token"), form.Get("token_type_hint"))
	}
	if e != nil {
		s.logRefusal(ctx, "revocation refused", e)
		writeOAuthJSON(w, e)
		return
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, "oauth: revocation request served")
	w.Header().Set("Pragma", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func (s *Server) revokeToken(ctx context.Context, c asstore.Client, token, hint string) *protocolError {
	find := []func() (*grant, error){
		func() (*grant, error) { // a refresh token, rotated ones included
			sig, ok := s.tokens.signature(token, refreshPrefix, legacyRefreshPrefix)
			if !ok {
				return nil, errNoRecord
			}
			g, _, err := s.load(ctx, asstore.KindRefresh, sig)
			return g, err
		},
		func() (*grant, error) { // a live access token
			m, ok := s.opts.Keys.ReadMinted(token)
			if !ok {
				return nil, errNoRecord
			}
			g, active, err := s.load(ctx, asstore.KindAccess, m.TokenID)
			if err == nil && !active {
				return nil, errNoRecord
			}
			return g, err
		},
	}
	if hint == "access_token" {
		find[0], find[1] = find[1], find[0]
	}
	s.grantMu.Lock()
	defer s.grantMu.Unlock()
	for _, f := range find {
		g, err := f()
		switch {
		case errors.Is(err, errNoRecord):
			continue
		case err != nil:
			return s.storeFailed(ctx, err)
		case g.ClientID != c.ID:
			s.log.LogAttrs(ctx, slog.LevelWarn, "oauth: revocation of another client's token ignored", slog.String("client_id", c.ID))
			return nil
		}
		if err := s.revokeGrant(ctx, g.ID); err != nil {
			return s.storeFailed(ctx, err)
		}
		return nil
	}
	return nil
}

// storeFailed logs why the store failed and returns what the client sees.
func (s *Server) storeFailed(ctx context.Context, err error) *protocolError {
	s.log.LogAttrs(ctx, slog.LevelError, "oauth: the grant store failed", slog.String("cause", err.Error()))
	return errUnavailable
}
