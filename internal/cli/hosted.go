package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/auth/asstore"
	"github.com/warden-mcp/warden/auth/localas"
	"github.com/warden-mcp/warden/credential"
	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/policy"
	"github.com/warden-mcp/warden/statestore"
	"github.com/warden-mcp/warden/store/sqlite"
	"github.com/warden-mcp/warden/viewstore"
)

// controls are the request-path controls of a serving Warden: the store,
// the limiter, the token verifier (or the local issuer behind it) and the
// policy controls built from them.
type controls struct {
	profile profile
	// transport says whether requests pass the transport rate limit.
	transport bool
	lim       *limits.Limiter
	verifier  *auth.Verifier    // nil on stdio
	local     *auth.LocalIssuer // set when tokens come from the local key
	// as is the local OAuth authorization server, set only in the local
	// profile (loopback listener, local key, loopback public URL): a
	// hosted server never serves its endpoints.
	as       *localas.Server
	tools    atomic.Pointer[[]localas.Tool] // the consent page's list, set once wired
	registry *credential.Registry
	bindJWT  bool // verified tokens need a registry row too
	policy   *policy.Controls
	store    limitsStore
	close    func()
}

// localPrincipal is the identity of calls that carry none: warden stdio's
// local user; nil for a server, whose calls carry a token.
func localPrincipal(stdio bool) *auth.Principal {
	if stdio {
		return policy.LocalPrincipal()
	}
	return nil
}

// limitsStore is what the controls need from either adapter.
type limitsStore interface {
	limits.Store
	approval.Store
	annotation.Store
	viewstore.Store
	finding.Store
	finding.StatusStore
	credential.Store
	statestore.Store
	// Prune deletes state that no longer affects a decision.
	Prune(ctx context.Context, now, before time.Time) error
}

// openStore opens the configured store: SQLite in the state directory by
// default, PostgreSQL for a postgres:// DSN.
func openStore(ctx context.Context, cfg Config) (limitsStore, func(), error) {
	dsn := cfg.Store.DSN
	switch {
	case dsn == "":
		st, err := sqlite.Open(ctx, cfg.StateDir, nil)
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close() }, nil
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return openPostgres(ctx, cfg) // store_postgres.go, or its stand-in in a build without the tag
	}
	return nil, nil, errors.New("store.dsn: want a postgres:// URL, or nothing for the embedded store")
}

// openControls builds the controls. On stdio there is no token: calls
// run under the local principal, with limits and audit. stdio is always
// the local profile; serve is local only on loopback with the local key
// (Config.serveProfile). observer is told what the controls decide (nil:
// nobody).
func openControls(ctx context.Context, cfg Config, logger *slog.Logger, stdio bool, observer policy.Observer) (*controls, error) {
	prof := profileLocal
	if !stdio {
		prof = cfg.serveProfile()
	}
	if err := ensureStateDir(cfg.StateDir); err != nil {
		return nil, err
	}
	st, closeStore, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	lcfg := cfg.Limits.limits(prof)
	lcfg.Logger = logger
	lim, err := limits.New(st, lcfg)
	if err != nil {
		closeStore()
		return nil, err
	}
	c := &controls{profile: prof, transport: cfg.Limits.transportLimited(prof), lim: lim, store: st, close: closeStore,
		policy:   &policy.Controls{Limiter: lim, Logger: logger, Queue: prof.queue(), Observer: observer, Local: localPrincipal(stdio)},
		registry: credential.New(st, &credential.Options{TTL: time.Duration(cfg.Auth.CredentialCacheTTL)}),
		bindJWT:  cfg.Auth.BindCredentials}
	if stdio {
		return c, nil
	}
	acfg := auth.Config{
		Audience:       cfg.PublicURL,
		RequiredScopes: cfg.Auth.RequiredScopes,
		Skew:           time.Duration(cfg.Auth.Skew),
		Logger:         logger,
		ResourceName:   "Warden",
	}
	if cfg.Auth.Issuer == "" {
		li, err := auth.LoadOrCreateLocalKey(cfg.StateDir)
		if err != nil {
			closeStore()
			return nil, err
		}
		c.local = li
		acfg.RenewHint = "run `warden token` for a new one"
		if prof == profileLocal {
			if c.as, err = c.localAS(cfg, li, st, logger); err != nil {
				closeStore()
				return nil, fmt.Errorf("auth: %w", err)
			}
			acfg.AuthorizationServers = []string{c.as.Issuer()}
			acfg.CheckCredential = c.as.CheckToken
			acfg.RenewHint += ", or connect without a token to sign in through the browser"
		}
		if c.verifier, err = li.Verifier(acfg); err != nil {
			closeStore()
			return nil, fmt.Errorf("auth: %w", err)
		}
	} else {
		acfg.Issuer = cfg.Auth.Issuer
		acfg.JWKSURL, acfg.JWKSFile = cfg.Auth.JWKSURL, cfg.Auth.JWKSFile
		acfg.ClaimNames = auth.ClaimNames(cfg.Auth.Claims)
		c.verifier, err = auth.NewVerifier(acfg)
	}
	if err != nil {
		closeStore()
		return nil, fmt.Errorf("auth: %w", err)
	}
	return c, nil
}

// localAS builds the local authorization server: its issuer is the
// public URL's origin, its records (clients, codes, tokens) live in the
// store, SQLite or PostgreSQL, so sign-ins outlast a restart and every
// replica honours them; only a store without them (none today) falls back
// to memory.
func (c *controls) localAS(cfg Config, li *auth.LocalIssuer, st limitsStore, logger *slog.Logger) (*localas.Server, error) {
	u, err := url.Parse(cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	var records asstore.Store = &asstore.Memory{}
	if s, ok := st.(asstore.Store); ok {
		records = s
	}
	return localas.New(localas.Options{
		Issuer:   u.Scheme + "://" + u.Host,
		Resource: cfg.PublicURL,
		Keys:     li,
		Store:    records,
		Scopes:   cfg.Auth.RequiredScopes,
		Tools: func() []localas.Tool {
			if t := c.tools.Load(); t != nil {
				return *t
			}
			return nil
		},
		Logger: logger,
	})
}

// setTools gives the consent page the tools this server lets run.
func (c *controls) setTools(w *wired) {
	tools, _ := w.reg.Tools()
	var list []localas.Tool
	for _, t := range tools {
		if w.gates == nil || w.gates.Status(t) == nil {
			list = append(list, localas.Tool{Name: t.Name, Title: t.Title})
		}
	}
	c.tools.Store(&list)
}

// wrap puts authentication (API keys from the registry, tokens through
// the verifier and, with auth.bind_credentials, their registry binding),
// the caller binding, then the transport rate limit (unless the local
// profile leaves it out) in front of the protocol endpoint.
func (c *controls) wrap(next http.Handler) http.Handler {
	if c.transport {
		next = c.policy.RateLimit(next)
	}
	authn := c.registry.Middleware(credential.MiddlewareOptions{Verifier: c.verifier, BindJWT: c.bindJWT, Logger: c.policy.Logger})
	return authn(c.policy.BindCaller(mcp.WithCaller, next))
}

// documents are the public documents served beside the endpoint: RFC 9728
// protected-resource metadata and, for the local key, its JWKS.
func (c *controls) documents() map[string]http.Handler {
	docs := map[string]http.Handler{}
	for _, p := range c.verifier.MetadataPaths() {
		docs[p] = c.verifier.ProtectedResourceMetadata()
	}
	if c.local != nil {
		docs[auth.JWKSPath] = c.local.JWKSHandler()
		docs[mcpJWKSPath] = noStoreJSON(c.local.JWKS())
	}
	if c.as != nil {
		maps.Copy(docs, c.as.Handlers())
	}
	return docs
}

// mcpJWKSPath is where the Binary³ guide looks for a server's public keys;
// the same JWKS as auth.JWKSPath, never cached.
const mcpJWKSPath = "/.well-known/mcp-jwks.json"

// noStoreJSON serves a fixed JSON document to GET and HEAD with
// Cache-Control: no-store.
func noStoreJSON(body []byte) http.Handler {
	body = append(body, '\n')
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-store")
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("X-Content-Type-Options", "nosniff")
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	})
}

// ready fails while the store or the key set cannot be evaluated.
func (c *controls) ready(ctx context.Context) error {
	if err := c.lim.Ready(ctx); err != nil {
		return err
	}
	if c.verifier != nil {
		return c.verifier.Ready(ctx)
	}
	return nil
}

// prune deletes expired rate logs and leases every interval until ctx
// ends, so the store stays the size of the live state. Audit and ledger
// rows are kept.
func (c *controls) prune(ctx context.Context, every time.Duration, logger *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, time.Minute)
		if err := c.store.Prune(pctx, time.Now(), time.Time{}); err != nil {
			logger.Warn("pruning the store failed", slog.String("cause", err.Error()))
		}
		if c.as != nil {
			if err := c.as.Prune(pctx); err != nil {
				logger.Warn("pruning the authorization server's records failed", slog.String("cause", err.Error()))
			}
		}
		cancel()
	}
}

// flushRepairs makes a last attempt, at exit, to write the audit records
// and make the slot releases a store outage left waiting, and says what is
// lost if the store still refuses.
func (c *controls) flushRepairs(logger *slog.Logger) {
	if a, r := c.policy.Pending(); a+r == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.policy.Repair(ctx)
	if a, r := c.policy.Pending(); a+r > 0 {
		logger.Error("exiting with audit records and slot releases the store did not take",
			slog.Int("audit_records", a), slog.Int("slot_releases", r))
	}
}

// shared reports whether the store is shared by replicas (PostgreSQL).
func (c Config) sharedStore() bool {
	return strings.HasPrefix(c.Store.DSN, "postgres://") || strings.HasPrefix(c.Store.DSN, "postgresql://")
}
