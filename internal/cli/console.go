package cli

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/console"
	"github.com/warden-mcp/warden/credential"
	"github.com/warden-mcp/warden/limits"
)

// consoleOn says whether warden serve serves the console: the console
// key when set, else on in the local profile and off hosted.
func (c Config) consoleOn() bool {
	if c.Console != nil {
		return *c.Console
	}
	return c.serveProfile() == profileLocal
}

// consoleOrigin is the origin of the public URL, the console's base.
func (c Config) consoleOrigin() string {
	u, err := url.Parse(c.PublicURL)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// localSignInLifetime is how long the sign-in link printed at start-up
// stays usable (once).
const localSignInLifetime = 24 * time.Hour

// openConsole builds the console over the wired server: the gates'
// approval requests, the store's findings, the limiter's audit trail, and
// a pasted token or API key checked by the endpoint's own authentication.
// Its key is derived from the request-state key, which every replica
// shares, so a session made on one replica is read on another.
func (s *server) openConsole(keys keySet) (*console.Handler, error) {
	base, err := keys.key(keys.requestState, s.cfg.StateDir, requestStateKeyName)
	if err != nil {
		return nil, err
	}
	if base == nil {
		base = make([]byte, 32)
		rand.Read(base)
	}
	m := hmac.New(sha256.New, base)
	m.Write([]byte("warden console sessions"))
	ctl, cfg := s.ctl, s.cfg
	return console.New(console.Options{
		Origin:       cfg.consoleOrigin(),
		Key:          m.Sum(nil),
		Requests:     s.w.gates.Requests(),
		Authenticate: ctl.authenticate,
		Findings:     ctl.store,
		Statuses:     ctl.store,
		Record:       ctl.lim.Audit,
		Audit: func(ctx context.Context, f limits.AuditFilter) ([]limits.AuditRecord, error) {
			return ctl.lim.QueryAudit(ctx, f)
		},
		Settings:    s.consoleSettings,
		Version:     Version(),
		ApprovalTTL: s.w.gates.ApprovalTTL(),
		Logger:      s.logger,
	})
}

// authenticate checks a pasted token or API key exactly as the protocol
// endpoint's authentication does, and returns its principal.
func (c *controls) authenticate(ctx context.Context, token string) (auth.Principal, error) {
	if strings.ContainsAny(token, " \t\r\n") || len(token) > 16<<10 {
		return auth.Principal{}, errors.New("not a token")
	}
	var p auth.Principal
	var ok bool
	authn := c.registry.Middleware(credential.MiddlewareOptions{Verifier: c.verifier, BindJWT: c.bindJWT, Logger: c.policy.Logger})
	h := authn(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { p, ok = auth.PrincipalFrom(r.Context()) }))
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "/", nil)
	if err != nil {
		return auth.Principal{}, err
	}
	r.Header.Set("Authorization", "Bearer "+token)
	h.ServeHTTP(discard{}, r)
	if !ok {
		return auth.Principal{}, errors.New("token refused")
	}
	return p, nil
}

// consoleSettings are the read-only settings the console shows.
func (s *server) consoleSettings(_ context.Context, _ console.Session) []console.Setting {
	cfg, w := s.cfg, s.w
	privacy := cfg.Privacy
	if privacy == "" {
		privacy = "balanced"
	}
	approvals := cfg.Approvals
	if approvals == "" {
		approvals = "elicit"
	}
	scope := "every host"
	if len(cfg.Tools.Scope.Include) > 0 {
		scope = strings.Join(cfg.Tools.Scope.Include, ", ")
	}
	if len(cfg.Tools.Scope.Exclude) > 0 {
		scope += "; never " + strings.Join(cfg.Tools.Scope.Exclude, ", ")
	}
	var on []string
	tools, _ := w.reg.Tools()
	for _, t := range tools {
		if w.gates.Status(t) == nil {
			on = append(on, t.Name+" ("+string(t.Catalog.Trust)+")")
		}
	}
	return []console.Setting{
		{Name: "Profile", Value: string(s.ctl.profile)},
		{Name: "Privacy mode", Value: privacy},
		{Name: "Approvals", Value: approvals + ", out of band through this console"},
		{Name: "Scope", Value: scope},
		{Name: "Unsafe tools on", Value: orNone(strings.Join(w.unsafeOn(), ", "))},
		{Name: "Enabled tools (trust tier)", Value: strings.Join(on, ", ")},
	}
}

// discard is a ResponseWriter that keeps nothing: authentication's
// refusal is not shown, the console answers in its own words.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
