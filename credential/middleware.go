package credential

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/errcode"
)

// MiddlewareOptions configure Registry.Middleware.
type MiddlewareOptions struct {
	// Verifier checks every bearer token that is not an API key, and
	// writes the challenges of refusals. Required.
	Verifier *auth.Verifier
	// BindJWT requires every verified token's subject to be bound in the
	// registry (warden credentials create --subject), in the token's
	// tenant, and active. Zero: tokens need no registry row.
	BindJWT bool
	// Logger receives refusals (code and cause, never the key). Nil
	// discards.
	Logger *slog.Logger
}

// Middleware authenticates API keys against the registry and hands every
// other request to the verifier's middleware; with BindJWT, a verified
// token's subject is then checked against the registry too. A refused
// credential gets 401 with the verifier's challenge (error="invalid_token")
// and credential_binding_failed in the body; a registry that cannot be
// read gets 503 binding_check_unavailable with Retry-After. Like the
// verifier, it removes Authorization before next.
func (r *Registry) Middleware(o MiddlewareOptions) func(http.Handler) http.Handler {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(next http.Handler) http.Handler {
		bound := next
		if o.BindJWT {
			bound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				p, ok := auth.PrincipalFrom(req.Context())
				if !ok {
					r.refuse(w, o.Verifier, log, req, bindingFailed(nil))
					return
				}
				ents, err := r.CheckSubject(req.Context(), p)
				if err != nil {
					r.refuse(w, o.Verifier, log, req, err)
					return
				}
				next.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), bindingKey{}, ents)))
			})
		}
		jwt := o.Verifier.Middleware(bound)
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			key, ok := apiKey(req)
			if !ok {
				jwt.ServeHTTP(w, req)
				return
			}
			p, err := r.AuthenticateKey(req.Context(), key)
			if err != nil {
				r.refuse(w, o.Verifier, log, req, err)
				return
			}
			req = req.WithContext(auth.WithPrincipal(req.Context(), p))
			req.Header = req.Header.Clone()
			req.Header.Del("Authorization")
			next.ServeHTTP(w, req)
		})
	}
}

// apiKey returns the API key of a request that presents exactly one, in
// the one Authorization header and nowhere else; anything else is left to
// the verifier, which refuses what is malformed.
func apiKey(r *http.Request) (string, bool) {
	vs := r.Header.Values("Authorization")
	if len(vs) != 1 || r.URL.Query().Has("access_token") {
		return "", false
	}
	scheme, tok, ok := strings.Cut(vs[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || !IsKey(tok) {
		return "", false
	}
	return tok, true
}

// refuse answers a refused or unevaluable credential.
func (r *Registry) refuse(w http.ResponseWriter, v *auth.Verifier, log *slog.Logger, req *http.Request, err error) {
	e, ok := errcode.As(err)
	if !ok {
		e = bindingUnavailable(0, err)
	}
	attrs := []slog.Attr{slog.String("code", e.Code)}
	if e.Cause != nil {
		attrs = append(attrs, slog.String("cause", e.Cause.Error()))
	}
	log.LogAttrs(req.Context(), slog.LevelInfo, "credential refused", attrs...)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "application/json")
	status, retry := http.StatusUnauthorized, 0
	if e.Code == CodeBindingFailed {
		h.Set("WWW-Authenticate", v.Challenge(&auth.Error{Code: auth.CodeInvalidToken, Reason: auth.ReasonCredentialRejected, Status: status}))
	} else {
		status, retry = http.StatusServiceUnavailable, max(int(e.RetryAfter.Seconds()+0.999), 1)
		h.Set("Retry-After", strconv.Itoa(retry))
	}
	w.WriteHeader(status)
	body, _ := json.Marshal(struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
		RetryAfter  int    `json:"retryAfterSeconds,omitempty"`
	}{e.Code, e.Message, retry})
	_, _ = w.Write(append(body, '\n'))
}

type bindingKey struct{}

// Allows reports whether the registry lets the request's credential call
// the tool: true unless a bound JWT subject's row narrows the token's
// entitlements and does not cover it. The policy layer asks it beside the
// token's own entitlements.
func Allows(ctx context.Context, tool string) bool {
	ents, ok := ctx.Value(bindingKey{}).([]string)
	if !ok {
		return true
	}
	return auth.Principal{Entitlements: ents}.Entitled(tool)
}
