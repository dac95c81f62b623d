package auth

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Middleware authenticates every request before next sees it. It admits a
// request only with a verified token that carries every scope in
// Config.RequiredScopes, and then passes next a request whose context holds
// the [Principal] and whose headers no longer include Authorization.
//
// Refusals:
//   - no credential, or another scheme: 401, challenge without error;
//   - two Authorization headers, an empty credential, a token in the query:
//     400 invalid_request;
//   - a presented token that is malformed or fails verification: 401
//     invalid_token;
//   - a valid token without a required scope: 403 insufficient_scope;
//   - keys that cannot be evaluated: 503 key_set_unavailable, Retry-After;
//   - Config.CheckCredential refusing the credential: 401 invalid_token, or
//     failing: 503 credential_check_unavailable, Retry-After.
//
// Each has a JSON body {"error": code, "error_description": message} and
// Cache-Control: no-store.
func (v *Verifier) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, e := bearerToken(r)
		var p Principal
		if e == nil {
			p, e = v.verify(r.Context(), tok)
		}
		if e == nil {
			e = v.checkScopes(p)
		}
		if e != nil {
			v.logRefusal(r.Context(), e)
			v.WriteError(w, e)
			return
		}
		// The token stops here: next sees the principal, never the
		// credential, so nothing downstream can log or forward it.
		r = r.WithContext(WithPrincipal(r.Context(), p))
		r.Header = r.Header.Clone()
		r.Header.Del("Authorization")
		next.ServeHTTP(w, r)
	})
}

func (v *Verifier) checkScopes(p Principal) *Error {
	for _, s := range v.cfg.RequiredScopes {
		if !p.HasScope(s) {
			return &Error{Code: CodeInsufficientScope, Reason: ReasonInsufficientScope, Status: http.StatusForbidden}
		}
	}
	return nil
}

// WriteError answers a request with the status, headers and JSON body for
// err. An error that is not an *Error is answered as 401 invalid_token, so
// nothing is ever admitted by mistake.
func (v *Verifier) WriteError(w http.ResponseWriter, err error) {
	e, ok := err.(*Error)
	if !ok {
		e = invalidToken(ReasonMalformedToken)
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "application/json")
	var retry int // seconds; a 503 is cured by retrying, and says when
	switch e.Status {
	case http.StatusServiceUnavailable:
		retry = max(int((e.RetryAfter+999_999_999)/1_000_000_000), 1)
		h.Set("Retry-After", strconv.Itoa(retry))
	default:
		h.Set("WWW-Authenticate", v.Challenge(e))
	}
	w.WriteHeader(e.Status)
	body, _ := json.Marshal(struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
		RetryAfter  int    `json:"retryAfterSeconds,omitempty"`
	}{e.Code, v.describe(e), retry})
	w.Write(append(body, '\n'))
}

// describe is the error_description of e: for a token refused for a
// reason its holder can cure (expired, for another server or issuer,
// signed by a key no longer trusted, revoked), what happened and how to
// get a new one (Config.RenewHint); otherwise the code's short message.
// Only configuration and the token's own exp appear in it.
func (v *Verifier) describe(e *Error) string {
	if e.Code != CodeInvalidToken {
		return e.publicMessage()
	}
	var what string
	switch e.Reason {
	case ReasonExpired:
		what = "the access token expired"
		if !e.expiredAt.IsZero() {
			what += " at " + e.expiredAt.UTC().Format(time.RFC3339)
		}
	case ReasonAudienceMismatch:
		what = "the access token was issued for another server, not " + v.cfg.Audience
	case ReasonIssuerMismatch:
		what = "the access token comes from an issuer this server does not trust"
	case ReasonUnknownKID:
		what = "the access token is signed by a key this server does not know (was the key rotated?)"
	case ReasonCredentialRejected:
		what = "the access token was revoked"
	default:
		return e.publicMessage()
	}
	return what + "; " + v.cfg.RenewHint
}

// Challenge returns the WWW-Authenticate value for err:
//
//	Bearer realm="warden", resource_metadata="https://…/.well-known/oauth-protected-resource/mcp", scope="a b"
//	Bearer realm="warden", error="invalid_token", resource_metadata="…", scope="a b"
//	Bearer realm="warden", error="invalid_token", error_description="the access token expired at …; …", resource_metadata="…"
//	Bearer realm="warden", error="insufficient_scope", error_description="…", resource_metadata="…", scope="a b"
//
// The error parameter appears only when a credential was presented (RFC 6750
// §3.1); error_description with it for insufficient scope and for the
// invalid tokens whose holder can get a new one (see WriteError); scope
// appears when Config.RequiredScopes is set. Every value comes from
// configuration or the token's own exp, never from the request's text.
func (v *Verifier) Challenge(err error) string {
	e, _ := err.(*Error)
	var b strings.Builder
	b.WriteString("Bearer ")
	param(&b, "realm", v.cfg.Realm)
	if e != nil && e.Code != CodeMissingToken {
		b.WriteString(", ")
		param(&b, "error", e.Code)
		if d := v.describe(e); e.Code == CodeInsufficientScope || d != e.publicMessage() {
			b.WriteString(", ")
			param(&b, "error_description", d)
		}
	}
	b.WriteString(", ")
	param(&b, "resource_metadata", v.cfg.metadataURL)
	if len(v.cfg.RequiredScopes) > 0 {
		b.WriteString(", ")
		param(&b, "scope", strings.Join(v.cfg.RequiredScopes, " "))
	}
	return b.String()
}

// param writes name="value" as an RFC 9110 quoted-string.
func param(b *strings.Builder, name, value string) {
	b.WriteString(name)
	b.WriteString(`="`)
	for i := 0; i < len(value); i++ {
		if c := value[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(value[i])
	}
	b.WriteByte('"')
}
