package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults applied to zero Config fields.
const (
	DefaultRealm               = "warden"
	DefaultSkew                = 30 * time.Second
	DefaultMaxTokenBytes       = 8 << 10
	DefaultMaxLifetime         = 24 * time.Hour
	DefaultJWKSRefresh         = 15 * time.Minute
	DefaultJWKSMinRefresh      = time.Minute
	DefaultJWKSMaxStaleness    = 24 * time.Hour
	DefaultJWKSTimeout         = 5 * time.Second
	DefaultMaxJWKSBytes        = 1 << 20
	DefaultVerifiedCacheSize   = 4096
	maxSkew                    = 5 * time.Minute
	maxTokenBytesCeiling       = 64 << 10
	maxHeaderSegmentBytes      = 1 << 10
	maxClaimsBytes             = 16 << 10
	maxJWKSKeys                = 100
	maxKIDLen                  = 128
	maxClaimStringLen          = 256
	maxListEntries             = 256
	unavailableRetry           = 5 * time.Second
	wellKnownProtectedResource = "/.well-known/oauth-protected-resource"
)

// ClaimNames names the JWT claims the verifier reads. Each zero field takes
// the default shown.
type ClaimNames struct {
	// Credential identifies the credential (limits and audit key on it).
	// Zero: "sub". When the claim is absent, "jti" is used instead; a token
	// with neither is refused.
	Credential string
	// Tenant names the tenant the credential belongs to; required in every
	// token. Zero: "tenant".
	Tenant string
	// Entitlements lists the tools or tool families the credential may call,
	// as a JSON array of strings or one space-separated string. Absent means
	// none. Zero: "entitlements".
	Entitlements string
	// Scope holds OAuth scopes, as one space-separated string (RFC 9068) or a
	// JSON array of strings. Zero: "scope".
	Scope string
}

// Config configures a Verifier. Issuer and Audience are required, and so is
// exactly one of JWKSURL and JWKSFile unless the Verifier comes from
// [LocalIssuer.Verifier]. Every other zero field means the documented default.
type Config struct {
	// Issuer is the exact "iss" every token must carry. Required.
	Issuer string
	// Audience is this server's canonical resource URI (RFC 8707), such as
	// "https://mcp.example.com/mcp". A token's "aud" (string or array) must
	// contain it. Scheme and host compare case-insensitively, a default port
	// and one trailing "/" are ignored, everything else compares exactly.
	// It must be https, or http on a loopback host. Required.
	Audience string
	// JWKSURL is where the issuer publishes its keys (https, or http on a
	// loopback host). Never taken from a token.
	JWKSURL string
	// JWKSFile is a local JWKS document, re-read on the same schedule as a
	// URL would be fetched.
	JWKSFile string
	// ClaimNames renames the claims read from tokens. Zero: the defaults.
	ClaimNames ClaimNames
	// Skew is the clock leeway on exp, nbf and iat. Zero: 30s. At most 5m.
	Skew time.Duration
	// MaxTokenBytes caps the encoded token. Zero: 8 KiB. At most 64 KiB.
	MaxTokenBytes int
	// MaxLifetime caps exp − iat. Zero: 24h.
	MaxLifetime time.Duration
	// RequiredScopes must all be in the token's scope claim for the
	// middleware to admit the request; otherwise 403 insufficient_scope.
	// Zero: no scope required.
	RequiredScopes []string
	// AcceptedTypes, when set, requires the JOSE "typ" header to be one of
	// them (compared case-insensitively, with or without "application/"),
	// for example []string{"at+jwt"}. Zero: any typ, or none, is accepted.
	AcceptedTypes []string

	// Realm is the realm parameter of WWW-Authenticate. Zero: "warden".
	Realm string
	// ResourceMetadataURL is the URL of the RFC 9728 document advertised in
	// challenges. Zero: derived from Audience by inserting
	// "/.well-known/oauth-protected-resource" between origin and path.
	ResourceMetadataURL string
	// AuthorizationServers are listed in the metadata document. Zero:
	// []string{Issuer}.
	AuthorizationServers []string
	// ScopesSupported is listed in the metadata document. Zero:
	// RequiredScopes.
	ScopesSupported []string
	// RenewHint tells a person whose token was refused as expired, for
	// another server, from another issuer, under an unknown key or revoked
	// how to get a new one; it ends the error_description of those 401s,
	// such as "run `warden token` for a new one". Printable ASCII without
	// '"' or '\'. Zero: "get a new one from the issuer".
	RenewHint string
	// ResourceName and ResourceDocumentation are optional metadata fields.
	// Zero: omitted.
	ResourceName          string
	ResourceDocumentation string

	// JWKSRefreshInterval is how old the key set may get before the next
	// request refreshes it. Zero: 15m.
	JWKSRefreshInterval time.Duration
	// JWKSMinRefreshInterval is the least time between two fetches, whatever
	// triggers them (an unknown kid, a failure, the schedule). Zero: 1m.
	// While no usable key set is held, retries come at most every 5s
	// instead (or this interval, if shorter).
	JWKSMinRefreshInterval time.Duration
	// JWKSMaxStaleness is how long after the last successful fetch the key
	// set is still trusted; past it every request fails with 503
	// key_set_unavailable. Zero: 24h.
	JWKSMaxStaleness time.Duration
	// JWKSTimeout bounds one fetch. Zero: 5s.
	JWKSTimeout time.Duration
	// MaxJWKSBytes caps the JWKS document. Zero: 1 MiB.
	MaxJWKSBytes int64
	// HTTPClient fetches JWKSURL. Zero: a client with JWKSTimeout that
	// refuses redirects. A supplied client should refuse redirects too.
	HTTPClient *http.Client

	// VerifiedCacheSize bounds the cache of already verified tokens (keyed
	// by the token's SHA-256, entries live until the token expires or the
	// key set changes). Zero: 4096 entries. Negative: no cache.
	VerifiedCacheSize int
	// CheckCredential, when set, is asked about every verified principal,
	// cached or not, before it is admitted, so that unknown or revoked
	// credentials are refused. Return nil to admit; an error wrapping
	// ErrCredentialRejected to refuse with 401 invalid_token; any other
	// error to fail closed with 503 credential_check_unavailable. It should
	// answer from a short-lived cache and respect ctx. Zero: every verified
	// token is admitted.
	CheckCredential func(ctx context.Context, p Principal) error
	// Clock returns the current time. Zero: time.Now.
	Clock func() time.Time
	// Logger receives one record per refused request (code, reason, status
	// and any operator-side cause; never the token) and one per failed or
	// partly unusable JWKS refresh. Zero: nothing is logged.
	Logger *slog.Logger
}

// normalized holds the validated configuration with defaults applied.
type normalized struct {
	Config
	audience    canonicalURI
	metadataURL string
}

func (c Config) normalize(needKeySource bool) (normalized, error) {
	n := normalized{Config: c}
	if c.Issuer == "" {
		return n, errors.New("auth: Config.Issuer is required")
	}
	if c.Audience == "" {
		return n, errors.New("auth: Config.Audience is required")
	}
	aud, err := parseCanonicalURI(c.Audience)
	if err != nil {
		return n, fmt.Errorf("auth: Config.Audience: %w", err)
	}
	if !aud.secureOrLoopback() {
		return n, errors.New("auth: Config.Audience must be https, or http on a loopback host")
	}
	n.audience = aud
	n.Audience = aud.String()
	if needKeySource {
		switch {
		case c.JWKSURL != "" && c.JWKSFile != "":
			return n, errors.New("auth: set only one of Config.JWKSURL and Config.JWKSFile")
		case c.JWKSURL != "":
			u, err := url.Parse(c.JWKSURL)
			if err != nil || u.Host == "" {
				return n, errors.New("auth: Config.JWKSURL is not an absolute URL")
			}
			if !(u.Scheme == "https" || u.Scheme == "http" && isLoopbackHost(u.Hostname())) {
				return n, errors.New("auth: Config.JWKSURL must be https, or http on a loopback host")
			}
		case c.JWKSFile == "":
			return n, errors.New("auth: one of Config.JWKSURL and Config.JWKSFile is required")
		}
	}
	if n.ClaimNames.Credential == "" {
		n.ClaimNames.Credential = "sub"
	}
	if n.ClaimNames.Tenant == "" {
		n.ClaimNames.Tenant = "tenant"
	}
	if n.ClaimNames.Entitlements == "" {
		n.ClaimNames.Entitlements = "entitlements"
	}
	if n.ClaimNames.Scope == "" {
		n.ClaimNames.Scope = "scope"
	}
	switch {
	case c.Skew < 0 || c.Skew > maxSkew:
		return n, fmt.Errorf("auth: Config.Skew must be between 0 and %v", maxSkew)
	case c.Skew == 0:
		n.Skew = DefaultSkew
	}
	switch {
	case c.MaxTokenBytes < 0 || c.MaxTokenBytes > maxTokenBytesCeiling:
		return n, fmt.Errorf("auth: Config.MaxTokenBytes must be between 0 and %d", maxTokenBytesCeiling)
	case c.MaxTokenBytes == 0:
		n.MaxTokenBytes = DefaultMaxTokenBytes
	}
	n.MaxLifetime = orDuration(c.MaxLifetime, DefaultMaxLifetime)
	n.JWKSRefreshInterval = orDuration(c.JWKSRefreshInterval, DefaultJWKSRefresh)
	n.JWKSMinRefreshInterval = orDuration(c.JWKSMinRefreshInterval, DefaultJWKSMinRefresh)
	n.JWKSMaxStaleness = orDuration(c.JWKSMaxStaleness, DefaultJWKSMaxStaleness)
	n.JWKSTimeout = orDuration(c.JWKSTimeout, DefaultJWKSTimeout)
	if n.MaxLifetime < 0 || n.JWKSRefreshInterval < 0 || n.JWKSMinRefreshInterval < 0 || n.JWKSMaxStaleness < 0 || n.JWKSTimeout < 0 {
		return n, errors.New("auth: Config durations must not be negative")
	}
	if n.MaxJWKSBytes <= 0 {
		n.MaxJWKSBytes = DefaultMaxJWKSBytes
	}
	if n.VerifiedCacheSize == 0 {
		n.VerifiedCacheSize = DefaultVerifiedCacheSize
	}
	if n.Clock == nil {
		n.Clock = time.Now
	}
	if n.Realm == "" {
		n.Realm = DefaultRealm
	}
	if len(n.AuthorizationServers) == 0 {
		n.AuthorizationServers = []string{c.Issuer}
	}
	if len(n.ScopesSupported) == 0 {
		n.ScopesSupported = c.RequiredScopes
	}
	for _, s := range c.RequiredScopes {
		if !validScopeToken(s) {
			return n, fmt.Errorf("auth: Config.RequiredScopes: %q is not a valid scope", s)
		}
	}
	n.metadataURL = c.ResourceMetadataURL
	if n.metadataURL == "" {
		n.metadataURL = aud.origin() + wellKnownProtectedResource + aud.path
	}
	if n.RenewHint == "" {
		n.RenewHint = "get a new one from the issuer"
	}
	if strings.ContainsAny(n.RenewHint, "\"\\") {
		return n, errors.New("auth: Config.RenewHint must not contain '\"' or '\\'")
	}
	for name, v := range map[string]string{"Realm": n.Realm, "ResourceMetadataURL": n.metadataURL, "RenewHint": n.RenewHint} {
		if !printableASCII(v) {
			return n, fmt.Errorf("auth: Config.%s must be printable ASCII", name)
		}
	}
	return n, nil
}

func orDuration(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// canonicalURI is a resource URI reduced to the form compared for "aud":
// lower-case scheme and host, no default port, no trailing "/".
type canonicalURI struct {
	scheme, host, path string // host includes a non-default port
}

func parseCanonicalURI(s string) (canonicalURI, error) {
	u, err := url.Parse(s)
	if err != nil {
		return canonicalURI{}, errors.New("not a URL")
	}
	if !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return canonicalURI{}, errors.New("not an absolute URL")
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.RawFragment != "" {
		return canonicalURI{}, errors.New("must not carry user info, query or fragment")
	}
	c := canonicalURI{scheme: strings.ToLower(u.Scheme)}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if c.scheme == "https" && port == "443" || c.scheme == "http" && port == "80" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	c.host = host
	if port != "" {
		c.host += ":" + port
	}
	c.path = strings.TrimSuffix(u.EscapedPath(), "/")
	return c, nil
}

func (c canonicalURI) origin() string { return c.scheme + "://" + c.host }
func (c canonicalURI) String() string { return c.origin() + c.path }

func (c canonicalURI) secureOrLoopback() bool {
	if c.scheme == "https" {
		return true
	}
	if c.scheme != "http" {
		return false
	}
	h := c.host
	if i := strings.LastIndex(h, ":"); i >= 0 && !strings.HasSuffix(h, "]") {
		h = h[:i]
	}
	return isLoopbackHost(strings.Trim(h, "[]"))
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// audienceMatches reports whether the aud value s names the canonical URI.
func (c canonicalURI) matches(s string) bool {
	if s == "" {
		return false
	}
	if s == c.String() {
		return true
	}
	o, err := parseCanonicalURI(s)
	return err == nil && o == c
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// validScopeToken follows RFC 6749 §3.3: %x21 / %x23-5B / %x5D-7E, and no
// '"' or '\' so the value can sit in a quoted-string unescaped.
func validScopeToken(s string) bool {
	if s == "" || len(s) > maxClaimStringLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b < 0x21 || b > 0x7e || b == '"' || b == '\\' {
			return false
		}
	}
	return true
}
