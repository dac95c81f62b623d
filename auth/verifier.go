package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Verifier checks bearer tokens against one issuer's keys. It is safe for
// concurrent use.
type Verifier struct {
	cfg   normalized
	keys  *keySet
	cache *verifiedCache // nil when disabled
}

// NewVerifier returns a Verifier for tokens from cfg.Issuer, with keys from
// cfg.JWKSURL or cfg.JWKSFile. Keys are fetched on first use; call
// [Verifier.Ready] to load them eagerly or to probe readiness.
func NewVerifier(cfg Config) (*Verifier, error) {
	n, err := cfg.normalize(true)
	if err != nil {
		return nil, err
	}
	return newVerifier(n, newKeySet(n)), nil
}

func newVerifier(n normalized, ks *keySet) *Verifier {
	v := &Verifier{cfg: n, keys: ks}
	if n.VerifiedCacheSize > 0 {
		v.cache = &verifiedCache{max: n.VerifiedCacheSize, m: make(map[[32]byte]cacheEntry)}
	}
	return v
}

// Ready reports whether tokens can be evaluated now: the key set is loaded
// and younger than the maximum staleness. It fetches if needed, subject to
// the refresh rate limit. Use it for a readiness probe.
func (v *Verifier) Ready(ctx context.Context) error {
	if _, e := v.keys.snapshot(ctx); e != nil {
		return e
	}
	return nil
}

// Verify checks a compact JWS access token and returns its principal, after
// Config.CheckCredential (if set) has admitted it. The error is always an
// *Error: CodeInvalidToken for a refused token or credential,
// CodeKeySetUnavailable when the keys cannot be evaluated, and
// CodeCredentialCheckUnavailable when the credential check cannot answer.
func (v *Verifier) Verify(ctx context.Context, token string) (Principal, error) {
	p, e := v.verify(ctx, token)
	if e != nil {
		return Principal{}, e
	}
	return p, nil
}

func (v *Verifier) verify(ctx context.Context, token string) (Principal, *Error) {
	p, e := v.verifyToken(ctx, token)
	if e == nil && v.cfg.CheckCredential != nil {
		e = checkCredential(ctx, v.cfg.CheckCredential, p)
	}
	return p, e
}

// checkCredential runs the operator's credential check, failing closed.
func checkCredential(ctx context.Context, check func(context.Context, Principal) error, p Principal) *Error {
	err := check(ctx, p)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrCredentialRejected):
		e := invalidToken(ReasonCredentialRejected)
		e.cause = err
		return e
	}
	return &Error{Code: CodeCredentialCheckUnavailable, Reason: ReasonCredentialCheck, Status: http.StatusServiceUnavailable, RetryAfter: time.Second, cause: err}
}

func (v *Verifier) verifyToken(ctx context.Context, token string) (Principal, *Error) {
	if len(token) > v.cfg.MaxTokenBytes {
		return Principal{}, invalidToken(ReasonTokenTooLarge)
	}
	snap, e := v.keys.snapshot(ctx)
	if e != nil {
		return Principal{}, e
	}
	var sum [32]byte
	if v.cache != nil {
		sum = sha256.Sum256([]byte(token))
		if p, ok := v.cache.get(sum, snap, v.cfg.Clock()); ok {
			return p, nil
		}
	}
	hdr, e := parseCompact(token, v.cfg.MaxTokenBytes, v.cfg.AcceptedTypes)
	if e != nil {
		return Principal{}, e
	}
	key, snap, e := v.keys.lookup(ctx, snap, hdr.kid)
	if e != nil {
		return Principal{}, e
	}
	if key.alg != hdr.alg {
		return Principal{}, invalidToken(ReasonAlgKeyMismatch)
	}
	// go-jose parses the token again under the algorithm allowlist and
	// verifies the signature with the key our policy chose. It is called at
	// the JWS layer (jwt.ParseSigned is a thin wrapper over the same
	// function) so that the verified payload comes back as bytes: our
	// strict decoder is then the only JSON parser that reads the claims.
	jws, err := jose.ParseSignedCompact(token, allowedAlgs)
	if err != nil {
		return Principal{}, invalidToken(ReasonMalformedToken)
	}
	payload, err := jws.Verify(key.pub)
	if errors.Is(err, jose.ErrCryptoFailure) {
		return Principal{}, invalidToken(ReasonBadSignature)
	}
	if err != nil {
		return Principal{}, invalidToken(ReasonMalformedToken)
	}
	p, times, e := v.principalFromClaims(payload, v.cfg.Clock())
	if e != nil {
		return Principal{}, e
	}
	p.KeyID = hdr.kid
	if v.cache != nil {
		v.cache.put(sum, cacheEntry{p: p, snap: snap, times: times}, v.cfg.Clock())
	}
	return p, nil
}

// logRefusal records a refused request for operators: code, reason and, when
// the error carries one, its cause. Never the token.
func (v *Verifier) logRefusal(ctx context.Context, e *Error) {
	if v.cfg.Logger == nil {
		return
	}
	attrs := []slog.Attr{slog.String("code", e.Code), slog.String("reason", e.Reason), slog.Int("status", e.Status)}
	if e.cause != nil {
		attrs = append(attrs, slog.String("cause", e.cause.Error()))
	}
	v.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "auth: request refused", attrs...)
}

// verifiedCache remembers tokens whose signature and claims were checked,
// so a client reusing its token pays one hash and one map lookup. An entry
// is used only while its key set is the current one and the token is inside
// its validity window.
type verifiedCache struct {
	mu  sync.RWMutex
	max int
	m   map[[32]byte]cacheEntry
}

type cacheEntry struct {
	p     Principal
	snap  *keySnapshot
	times claimTimes
}

func (c *verifiedCache) get(sum [32]byte, snap *keySnapshot, now time.Time) (Principal, bool) {
	c.mu.RLock()
	e, ok := c.m[sum]
	c.mu.RUnlock()
	if !ok || e.snap != snap || now.Before(e.times.notBefore) || now.After(e.times.expires) {
		return Principal{}, false
	}
	p := e.p
	p.Entitlements = slices.Clone(p.Entitlements)
	p.Scopes = slices.Clone(p.Scopes)
	return p, true
}

func (c *verifiedCache) put(sum [32]byte, e cacheEntry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		for k, old := range c.m {
			if now.After(old.times.expires) {
				delete(c.m, k)
			}
		}
		// Still full: drop an arbitrary eighth (map order is random).
		for k := range c.m {
			if len(c.m) < c.max-c.max/8 {
				break
			}
			delete(c.m, k)
		}
	}
	e.p.Entitlements = slices.Clone(e.p.Entitlements)
	e.p.Scopes = slices.Clone(e.p.Scopes)
	c.m[sum] = e
}
