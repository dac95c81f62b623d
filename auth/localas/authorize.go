package localas

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/warden-mcp/warden/auth/asstore"
)

// authRequest is a validated authorization request (RFC 6749 §4.1.1 with
// PKCE, RFC 7636, and the resource indicator, RFC 8707).
type authRequest struct {
	client asstore.Client
	// redirect is where answers go; nil until the client and its
	// redirect URI are known good, and errors before that are shown to
	// the person, never redirected (RFC 6749 §4.1.2.1).
	redirect *url.URL
	// redirectParam is the redirect_uri as sent, "" when left out.
	redirectParam string
	// state is returned as sent, whatever its length; a request without
	// one gets none back (OAuth 2.1: PKCE binds the code).
	state     string
	scopes    []string
	challenge string
}

// single are the parameters that may appear at most once (RFC 6749 §3.1).
var single = []string{"client_id", "redirect_uri", "response_type", "response_mode", "state", "scope",
	"code_challenge", "code_challenge_method", "resource"}

// authorizeRequest validates an authorization request. It keeps only the
// scopes this server serves, rewriting q, so that the consent page and the
// decision see the same request.
func (s *Server) authorizeRequest(ctx context.Context, q url.Values) (*authRequest, *protocolError) {
	if scope := q.Get("scope"); scope != "" {
		var keep []string
		for _, sc := range strings.Fields(scope) {
			if slices.Contains(s.opts.Scopes, sc) && !slices.Contains(keep, sc) {
				keep = append(keep, sc)
			}
		}
		q.Set("scope", strings.Join(keep, " "))
		if len(keep) == 0 {
			q.Del("scope")
		}
	}
	if len(q["client_id"]) > 1 || len(q["redirect_uri"]) > 1 {
		return nil, errInvalidRequest("The client_id and redirect_uri parameters must appear once.")
	}
	ar := &authRequest{state: q.Get("state")}
	c, err := s.st.Client(ctx, q.Get("client_id"))
	switch {
	case errors.Is(err, asstore.ErrNotFound):
		return nil, errInvalidClient("The client is not registered here; register it again.")
	case err != nil:
		s.log.LogAttrs(ctx, slog.LevelError, "oauth: reading a client failed", slog.String("cause", err.Error()))
		return nil, errUnavailable
	}
	ar.client = c
	ar.redirectParam = q.Get("redirect_uri")
	if ar.redirect = matchRedirect(ar.redirectParam, c.RedirectURIs); ar.redirect == nil {
		return ar, errInvalidRequest("The redirect_uri parameter does not match any of the client's registered redirect URIs.")
	}
	for _, k := range single {
		if len(q[k]) > 1 {
			return ar, errInvalidRequest("The " + k + " parameter must appear once.")
		}
	}
	switch rt := q.Get("response_type"); rt {
	case "code":
	case "":
		return ar, errInvalidRequest("The response_type parameter is missing; only code is supported.")
	default:
		return ar, &protocolError{"unsupported_response_type", "Only the code response type is supported.", http.StatusBadRequest}
	}
	if rm := q.Get("response_mode"); rm != "" && rm != "query" {
		return ar, errInvalidRequest("Only the query response mode is supported.")
	}
	switch {
	case q.Get("code_challenge") == "":
		return ar, errInvalidRequest("PKCE is required: send code_challenge with code_challenge_method=S256.")
	case q.Get("code_challenge_method") != "S256":
		return ar, errInvalidRequest("Only the S256 code_challenge_method is supported.")
	case !validChallenge(q.Get("code_challenge")):
		return ar, errInvalidRequest("The code_challenge must be the base64url SHA-256 of the code verifier, 43 characters.")
	}
	ar.challenge = q.Get("code_challenge")
	ar.scopes = strings.Fields(q.Get("scope"))
	if err := s.checkResource(q); err != nil {
		return ar, err
	}
	return ar, nil
}

// validChallenge: an S256 challenge is 32 bytes in unpadded base64url.
func validChallenge(c string) bool {
	if len(c) != 43 {
		return false
	}
	for i := 0; i < len(c); i++ {
		if !isUnreserved(c[i]) || c[i] == '.' || c[i] == '~' {
			return false
		}
	}
	return true
}

// isUnreserved reports RFC 3986 unreserved characters, the alphabet of
// PKCE verifiers.
func isUnreserved(b byte) bool {
	return 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '-' || b == '.' || b == '_' || b == '~'
}

// matchRedirect returns where to send the answer: the registered URI
// that raw names exactly, or raw itself when it is a loopback redirect
// that differs from a registered one only by its port (RFC 8252 §7.3:
// a native client listens on whatever port it got). A client with one
// registered URI may leave raw empty. nil: no match.
func matchRedirect(raw string, registered []string) *url.URL {
	if raw == "" {
		if len(registered) != 1 {
			return nil
		}
		raw = registered[0]
	}
	req, err := url.Parse(raw)
	if err != nil || !req.IsAbs() || req.Fragment != "" || strings.Contains(raw, "#") {
		return nil
	}
	for _, r := range registered {
		if r == raw {
			return req
		}
		reg, err := url.Parse(r)
		if err == nil && req.Scheme == "http" && reg.Scheme == "http" && loopbackRedirectHost(req.Hostname()) &&
			req.Hostname() == reg.Hostname() && req.User == nil && reg.User == nil &&
			req.EscapedPath() == reg.EscapedPath() && req.RawQuery == reg.RawQuery && validPort(req.Port()) {
			return req
		}
	}
	return nil
}

func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n < 1<<16 && strings.Trim(p, "0123456789") == ""
}

// redirectWith sends the browser to ar's redirect URI with params added
// to its query, and the issuer (RFC 9207) and state when there is one.
func (s *Server) redirectWith(w http.ResponseWriter, ar *authRequest, params url.Values) {
	u := *ar.redirect
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if ar.state != "" {
		q.Set("state", ar.state)
	}
	q.Set("iss", s.opts.Issuer)
	u.RawQuery = q.Encode()
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	h.Set("Location", u.String())
	w.WriteHeader(http.StatusSeeOther)
}

// writeAuthorizeError answers a refused authorization request: back to
// the client by redirect once its redirect URI is known good, otherwise
// to the person, as JSON.
func (s *Server) writeAuthorizeError(w http.ResponseWriter, ar *authRequest, e *protocolError) {
	if ar == nil || ar.redirect == nil {
		writeOAuthJSON(w, e)
		return
	}
	s.redirectWith(w, ar, url.Values{"error": {e.code}, "error_description": {e.desc}})
}
