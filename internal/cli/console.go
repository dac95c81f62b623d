package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/console"
	"github.com/warden-mcp/warden/credential"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/statestore"
)

// consoleLinkKind is the state record kind of a spent sign-in link.
const consoleLinkKind = "console_link"

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
	ctl, cfg := s.ctl, s.cfg
	return console.New(console.Options{
		Origin: cfg.consoleOrigin(),
		Key:    console.DeriveKey(base),
		SpendLink: func(ctx context.Context, nonce string, until time.Time) error {
			// Created once: a second use of the link finds it (ErrConflict).
			_, err := ctl.store.PutState(ctx, statestore.Record{Kind: consoleLinkKind, ID: nonce, Owner: "console", Data: []byte("spent"), Expires: until})
			return err
		},
		Requests:     s.w.gates.Requests(),
		Authenticate: ctl.authenticate,
		Findings:     ctl.store,
		Statuses:     ctl.store,
		Record:       ctl.lim.Audit,
		Audit: func(ctx context.Context, f limits.AuditFilter) ([]limits.AuditRecord, error) {
			return ctl.lim.QueryAudit(ctx, f)
		},
		PerMinute:   consolePerMinute(s.ctl.profile),
		Views:       s.w.binary.ViewsOf,
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

// credentialsConsoleLink mints a one-time console sign-in link for an API
// key's owner: the hosted way to sign in as that key without pasting it.
// The link is signed with the console's key (derived from the shared
// request-state key, as the server derives it) and spent in the store on
// first use, whichever replica serves it.
func (e *env) credentialsConsoleLink(f *serveFlags) *cobra.Command {
	var asJSON bool
	var ttl time.Duration
	c := &cobra.Command{
		Use:   "console-link ID",
		Short: "Print a one-time link that signs the API key's owner in to the console",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if ttl <= 0 || ttl > 24*time.Hour {
				return &exitError{code: ExitError, err: errors.New("--ttl: between 1s and 24h")}
			}
			ctx := cmd.Context()
			cfg, err := f.storeConfig()
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if err := ensureStateDir(cfg.StateDir); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			st, closeStore, err := openStore(ctx, cfg)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			defer closeStore()
			now := time.Now()
			cr, err := st.CredentialByID(ctx, args[0])
			switch {
			case errors.Is(err, credential.ErrNotFound):
				return &exitError{code: ExitError, err: fmt.Errorf("no credential %q", args[0])}
			case err != nil:
				return &exitError{code: ExitError, err: err}
			case cr.Kind != credential.KindAPIKey:
				return &exitError{code: ExitError, err: fmt.Errorf("%s is not an API key; a token's holder pastes the token on the sign-in page", args[0])}
			case !cr.Active(now):
				return &exitError{code: ExitError, err: fmt.Errorf("%s is %s", args[0], cr.Status(now))}
			}
			keys, err := sharedKeys(ctx, cfg, st, cfg.sharedStore())
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			base, err := keys.key(keys.requestState, cfg.StateDir, requestStateKeyName)
			if err != nil || base == nil {
				return &exitError{code: ExitError, err: errors.New("the shared request-state key cannot be read; the servers' keys are needed to sign the link")}
			}
			name := cr.Label
			if name == "" {
				name = cr.ID
			}
			exp := now.Add(ttl)
			link := console.MintLink(console.DeriveKey(base), cfg.consoleOrigin(),
				console.Session{Issuer: credential.Issuer, Tenant: cr.Tenant, Credential: cr.ID, Name: name}, exp)
			if asJSON {
				return json.NewEncoder(e.stdout).Encode(map[string]any{"credential": cr.ID, "tenant": cr.Tenant, "link": link, "expires": exp.UTC()})
			}
			fmt.Fprintf(e.stdout, "%s\n", link)
			fmt.Fprintf(e.stderr, "Give it only to the owner of %s: it signs in once, as that key, until %s.\n", cr.ID, exp.UTC().Format(time.RFC3339))
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().DurationVar(&ttl, "ttl", 15*time.Minute, "how long the link can be used")
	return c
}

// consolePerMinute bounds the console's requests per source address: a
// hosted console takes 120 a minute from each (the live list's stream is
// one), a local one is unbounded.
func consolePerMinute(p profile) int {
	if p == profileLocal {
		return 0
	}
	return 120
}
