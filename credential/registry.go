package credential

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/errcode"
)

// Defaults of Options.
const (
	// DefaultTTL bounds how stale a cached answer may be: a revocation
	// takes effect on every replica within it.
	DefaultTTL = 30 * time.Second
	// DefaultCacheSize bounds the cached rows.
	DefaultCacheSize = 10000
	// DefaultTimeout bounds one store look-up on the request path. A
	// look-up is made at most once per key and TTL (concurrent requests
	// share it), so it may wait for a loaded store: 500 ms refused
	// requests on a busy PostgreSQL that answered within a second.
	DefaultTimeout = 2 * time.Second
)

// Options tune a Registry. The zero value of each field is its default.
type Options struct {
	// TTL is how long a store answer (found or not) is reused. Zero:
	// DefaultTTL. It is the documented bound on revocation's delay.
	TTL time.Duration
	// CacheSize bounds the cache. Zero: DefaultCacheSize.
	CacheSize int
	// Timeout bounds each look-up. Zero: DefaultTimeout.
	Timeout time.Duration
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
}

// Registry issues, lists and revokes credentials and checks them on the
// request path through a bounded, short-lived cache. It is safe for
// concurrent use; make one per process.
type Registry struct {
	store Store
	opts  Options

	mu    sync.Mutex
	cache map[string]cached // "id:<id>" or "sub:<issuer>\x00<tenant>\x00<subject>"
	// flights are the store look-ups under way, one per key: requests
	// for a key whose cached answer has aged out wait for one look-up
	// instead of each sending its own.
	flights map[string]*flight
}

// flight is one store look-up that other requests for its key wait on.
type flight struct {
	done  chan struct{}
	c     Credential
	found bool
	err   error
}

type cached struct {
	c       Credential
	found   bool
	fetched time.Time
}

// New returns a registry over store.
func New(store Store, opts *Options) *Registry {
	r := &Registry{store: store, cache: map[string]cached{}, flights: map[string]*flight{}}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.TTL <= 0 {
		r.opts.TTL = DefaultTTL
	}
	if r.opts.CacheSize <= 0 {
		r.opts.CacheSize = DefaultCacheSize
	}
	if r.opts.Timeout <= 0 {
		r.opts.Timeout = DefaultTimeout
	}
	if r.opts.Now == nil {
		r.opts.Now = time.Now
	}
	return r
}

// TTL is the bound on how stale an answer may be.
func (r *Registry) TTL() time.Duration { return r.opts.TTL }

// Spec describes a credential to create.
type Spec struct {
	// Kind is KindAPIKey (zero) or KindJWT.
	Kind   string
	Tenant string // required
	// Issuer and Subject, for KindJWT: the token's iss and credential
	// claim.
	Issuer, Subject string
	// Entitlements the credential may call; zero: none.
	Entitlements []string
	Label        string
	// TTL, if positive, sets the expiry from now.
	TTL time.Duration
}

// Create registers a credential. For an API key it returns the key, which
// is never stored and cannot be shown again.
func (r *Registry) Create(ctx context.Context, s Spec) (Credential, string, error) {
	if s.Kind == "" {
		s.Kind = KindAPIKey
	}
	if err := checkName("tenant", s.Tenant, true); err != nil {
		return Credential{}, "", err
	}
	if err := checkName("label", s.Label, false); err != nil {
		return Credential{}, "", err
	}
	if len(s.Entitlements) > maxEntitlement {
		return Credential{}, "", errors.New("credential: too many entitlements")
	}
	for _, e := range s.Entitlements {
		if err := checkName("entitlement", e, true); err != nil {
			return Credential{}, "", err
		}
	}
	if s.TTL < 0 {
		return Credential{}, "", errors.New("credential: negative lifetime")
	}
	now := r.opts.Now().UTC()
	c := Credential{ID: newID(), Kind: s.Kind, Tenant: s.Tenant, Entitlements: slices.Clone(s.Entitlements),
		Label: s.Label, Created: now}
	if c.Entitlements == nil {
		c.Entitlements = []string{}
	}
	if s.TTL > 0 {
		c.Expires = now.Add(s.TTL)
	}
	var key string
	switch s.Kind {
	case KindAPIKey:
		if s.Issuer != "" || s.Subject != "" {
			return Credential{}, "", errors.New("credential: an API key names no issuer or subject")
		}
		var secret string
		secret, c.KeyHash = newSecret()
		key = KeyPrefix + c.ID + "_" + secret
	case KindJWT:
		if err := checkName("issuer", s.Issuer, true); err != nil {
			return Credential{}, "", err
		}
		if err := checkName("subject", s.Subject, true); err != nil {
			return Credential{}, "", err
		}
		c.Issuer, c.Subject = s.Issuer, s.Subject
	default:
		return Credential{}, "", fmt.Errorf("credential: unknown kind %q", s.Kind)
	}
	if err := r.store.CreateCredential(ctx, c); err != nil {
		return Credential{}, "", err
	}
	return c, key, nil
}

// List returns the registered credentials matching f.
func (r *Registry) List(ctx context.Context, f Filter) ([]Credential, error) {
	if f.Limit <= 0 || f.Limit > 10000 {
		f.Limit = 1000
	}
	return r.store.ListCredentials(ctx, f)
}

// Revoke revokes id. Every replica refuses it within TTL; this one at
// once. It returns ErrNotFound for an unknown id and reports false for
// one already revoked.
func (r *Registry) Revoke(ctx context.Context, id string) (bool, error) {
	if !ValidID(id) {
		return false, ErrNotFound
	}
	c, err := r.store.CredentialByID(ctx, id)
	if err != nil {
		return false, err
	}
	ok, err := r.store.RevokeCredential(ctx, id, r.opts.Now().UTC())
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	delete(r.cache, "id:"+id)
	if c.Kind == KindJWT {
		delete(r.cache, subjectKey(c.Issuer, c.Tenant, c.Subject))
	}
	r.mu.Unlock()
	return ok, nil
}

func subjectKey(issuer, tenant, subject string) string {
	return "sub:" + issuer + "\x00" + tenant + "\x00" + subject
}

// lookup returns the row under key, from the cache while it is younger
// than TTL, else from the store.
func (r *Registry) lookup(ctx context.Context, key string, fetch func(context.Context) (Credential, error)) (Credential, bool, error) {
	now := r.opts.Now()
	r.mu.Lock()
	e, ok := r.cache[key]
	r.mu.Unlock()
	if ok && now.Sub(e.fetched) < r.opts.TTL && !now.Before(e.fetched) {
		return e.c, e.found, nil
	}
	r.mu.Lock()
	f, joined := r.flights[key]
	if !joined {
		f = &flight{done: make(chan struct{})}
		r.flights[key] = f
	}
	r.mu.Unlock()
	if joined {
		select {
		case <-f.done:
			return f.c, f.found, f.err
		case <-ctx.Done():
			return Credential{}, false, ctx.Err()
		}
	}
	// The look-up serves every request waiting on it, so it does not end
	// with this request's client.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.Timeout)
	c, err := fetch(fctx)
	cancel()
	found := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		f.err = err // fail closed; nothing cached
		r.mu.Lock()
		delete(r.flights, key)
		r.mu.Unlock()
		close(f.done)
		return Credential{}, false, err
	}
	f.c, f.found = c, found
	defer close(f.done)
	r.mu.Lock()
	delete(r.flights, key)
	if len(r.cache) >= r.opts.CacheSize {
		for k, old := range r.cache {
			if now.Sub(old.fetched) >= r.opts.TTL {
				delete(r.cache, k)
			}
		}
		for k := range r.cache { // still full: drop an arbitrary eighth
			if len(r.cache) < r.opts.CacheSize-r.opts.CacheSize/8 {
				break
			}
			delete(r.cache, k)
		}
	}
	r.cache[key] = cached{c: c, found: found, fetched: now}
	r.mu.Unlock()
	return c, found, nil
}

// AuthenticateKey checks an API key and returns the principal it stands
// for. The error is an *errcode.Error: CodeBindingFailed for a key that is
// malformed, unknown, wrong, revoked or expired, CodeBindingUnavailable
// when the registry cannot be read.
func (r *Registry) AuthenticateKey(ctx context.Context, key string) (auth.Principal, error) {
	id, secret, ok := parseKey(key)
	if !ok {
		return auth.Principal{}, bindingFailed(errors.New("malformed API key"))
	}
	c, found, err := r.lookup(ctx, "id:"+id, func(ctx context.Context) (Credential, error) { return r.store.CredentialByID(ctx, id) })
	if err != nil {
		return auth.Principal{}, bindingUnavailable(time.Second, err)
	}
	switch {
	case !found || c.Kind != KindAPIKey:
		return auth.Principal{}, bindingFailed(errors.New("unknown API key"))
	case !secretMatches(secret, c.KeyHash):
		return auth.Principal{}, bindingFailed(errors.New("wrong API key secret"))
	case !c.Active(r.opts.Now()):
		return auth.Principal{}, bindingFailed(fmt.Errorf("API key %s", c.Status(r.opts.Now())))
	}
	p := auth.Principal{Issuer: Issuer, Subject: c.ID, Credential: c.ID, Tenant: c.Tenant,
		Entitlements: slices.Clone(c.Entitlements), ExpiresAt: c.Expires, IssuedAt: c.Created}
	return p, nil
}

// CheckSubject checks that a verified JWT's subject is bound in its
// tenant and active, and returns the row's entitlements, which narrow
// the token's. Errors as AuthenticateKey's.
func (r *Registry) CheckSubject(ctx context.Context, p auth.Principal) ([]string, error) {
	subject := p.Credential
	if subject == "" {
		subject = p.Subject
	}
	key := subjectKey(p.Issuer, p.Tenant, subject)
	c, found, err := r.lookup(ctx, key, func(ctx context.Context) (Credential, error) {
		return r.store.CredentialBySubject(ctx, p.Issuer, p.Tenant, subject)
	})
	if err != nil {
		return nil, bindingUnavailable(time.Second, err)
	}
	if !found {
		return nil, bindingFailed(errors.New("JWT subject not bound in its tenant"))
	}
	if !c.Active(r.opts.Now()) {
		return nil, bindingFailed(fmt.Errorf("JWT subject binding %s", c.Status(r.opts.Now())))
	}
	return slices.Clone(c.Entitlements), nil
}

// IsRefusal reports whether err refuses the credential (as opposed to the
// check being unavailable).
func IsRefusal(err error) bool {
	e, ok := errcode.As(err)
	return ok && e.Code == CodeBindingFailed
}
