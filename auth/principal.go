package auth

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// Principal is the authenticated identity of a request. It is built only
// from a verified token and reaches handlers only through the request
// context ([WithPrincipal], [PrincipalFrom]). It holds no token.
//
// Treat a Principal as read-only; the slices may be shared.
type Principal struct {
	Issuer     string
	Subject    string // "sub", if present
	TokenID    string // "jti", if present
	Credential string // the configured credential claim, else "jti"
	ClientID   string // "client_id", if present
	Tenant     string
	// Entitlements name tools ("keysweep_scan_text"), tool families
	// ("keysweep", "keysweep_*") or everything ("*").
	Entitlements []string
	Scopes       []string
	KeyID        string // "kid" of the key that signed the token
	IssuedAt     time.Time
	ExpiresAt    time.Time
}

// Entitled reports whether the principal may call the tool. An entitlement
// covers a tool when it is:
//   - "*": every tool;
//   - the tool's exact name: "keysweep_scan_text";
//   - a family name without "_": "keysweep" covers "keysweep" and every
//     "keysweep_…" tool;
//   - a prefix ending in "_*": "keysweep_*" covers every "keysweep_…" tool,
//     "keysweep_scan_*" every "keysweep_scan_…" tool.
//
// A name containing "_" without a trailing "*" is an exact tool name, so
// "keysweep_scan" does not cover "keysweep_scan_text". Names compare
// case-sensitively.
func (p Principal) Entitled(tool string) bool {
	if tool == "" {
		return false
	}
	for _, e := range p.Entitlements {
		if entitlementCovers(e, tool) {
			return true
		}
	}
	return false
}

func entitlementCovers(e, tool string) bool {
	switch {
	case e == "*" || e == tool:
		return true
	case strings.HasSuffix(e, "_*"):
		prefix := e[:len(e)-1] // keeps the "_"
		return len(tool) > len(prefix) && strings.HasPrefix(tool, prefix)
	case e != "" && !strings.ContainsAny(e, "_*"):
		return len(tool) > len(e) && tool[len(e)] == '_' && strings.HasPrefix(tool, e)
	}
	return false
}

// CheckEntitled returns nil when the principal may call the tool, and an
// [*EntitlementError] otherwise, whose text is the tool-level error result
// the tool layer answers with.
func (p Principal) CheckEntitled(tool string) error {
	if p.Entitled(tool) {
		return nil
	}
	return &EntitlementError{Tool: tool}
}

// EntitlementError is a valid credential calling a tool it is not entitled
// to. It is a tool-level refusal, not an HTTP one: the request was
// authenticated.
type EntitlementError struct {
	Tool string
}

// Code is the stable error code, "forbidden".
func (e *EntitlementError) Code() string { return "forbidden" }

func (e *EntitlementError) Error() string {
	return "forbidden: credential lacks the " + e.Tool + " entitlement"
}

// HasScope reports whether the token granted the scope.
func (p Principal) HasScope(scope string) bool {
	return slices.Contains(p.Scopes, scope)
}

// LogValue logs identity fields only.
func (p Principal) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("credential", p.Credential),
		slog.String("tenant", p.Tenant),
		slog.String("kid", p.KeyID),
		slog.String("jti", p.TokenID),
	)
}

type principalKey struct{}

// WithPrincipal returns a context carrying p. The middleware calls it after
// verification; tests and in-process callers (stdio, the CLI) may call it
// with a principal they built themselves.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal of an authenticated context.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
