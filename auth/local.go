package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// LocalIssuerID is the "iss" of tokens minted by a [LocalIssuer].
const LocalIssuerID = "urn:warden:local"

// LocalKeyFile is the name of the signing key inside the state directory.
const LocalKeyFile = "auth-signing-key.pem"

// JWKSPath is where a server that runs a LocalIssuer publishes its keys.
const JWKSPath = "/.well-known/jwks.json"

// DefaultTokenLifetime is the lifetime of a minted token when TokenSpec
// leaves it zero.
const DefaultTokenLifetime = time.Hour

// LocalIssuer signs ES256 access tokens with a key kept in a local state
// directory, for development and single-machine deployments. It is safe for
// concurrent use.
type LocalIssuer struct {
	signer jose.Signer // ES256, kid and typ at+jwt in the protected header
	priv   *ecdsa.PrivateKey
	kid    string
	jwks   []byte
}

// LoadOrCreateLocalKey loads the signing key from dir, creating dir (mode
// 0700) and a new P-256 key file (mode 0600) on first use. An existing key
// file readable by group or others is refused. Two processes starting at
// once end up with the same key.
func LoadOrCreateLocalKey(dir string) (*LocalIssuer, error) {
	if dir == "" {
		return nil, errors.New("auth: no state directory for the local signing key")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("auth: creating the state directory: %w", err)
	}
	path := filepath.Join(dir, LocalKeyFile)
	key, err := readLocalKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		key, err = createLocalKey(dir, path)
	}
	if err != nil {
		return nil, err
	}
	return newLocalIssuer(key)
}

func readLocalKey(path string) (*ecdsa.PrivateKey, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("auth: %s is accessible to other users (mode %v); chmod 600 it", path, fi.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("auth: %s is not a PEM private key", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("auth: %s: unreadable private key", path)
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, fmt.Errorf("auth: %s is not a P-256 key", path)
	}
	return ec, nil
}

// createLocalKey writes a new key to a temporary file and links it into
// place, so no reader ever sees a partial file and a concurrent creator's
// key wins cleanly.
func createLocalKey(dir, path string) (*ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, ".auth-signing-key-*")
	if err != nil {
		return nil, fmt.Errorf("auth: creating the signing key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		tmp.Close()
		return nil, err
	}
	err = pem.Encode(tmp, &pem.Block{Type: "PRIVATE KEY", Bytes: der})
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("auth: writing the signing key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readLocalKey(path)
		}
		return nil, fmt.Errorf("auth: installing the signing key: %w", err)
	}
	return key, nil
}

func newLocalIssuer(key *ecdsa.PrivateKey) (*LocalIssuer, error) {
	pub := jose.JSONWebKey{Key: &key.PublicKey, Algorithm: algES256, Use: "sig"}
	thumb, err := pub.Thumbprint(crypto.SHA256) // RFC 7638
	if err != nil {
		return nil, err
	}
	pub.KeyID = b64.EncodeToString(thumb)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: pub.KeyID}},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		return nil, err
	}
	li := &LocalIssuer{signer: signer, priv: key, kid: pub.KeyID}
	li.jwks, err = json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{pub}})
	return li, err
}

// KeyID is the "kid" of the signing key: its RFC 7638 thumbprint.
func (li *LocalIssuer) KeyID() string { return li.kid }

// JWKS returns the public key set as a JWKS document.
func (li *LocalIssuer) JWKS() []byte { return append([]byte(nil), li.jwks...) }

// JWKSHandler serves [LocalIssuer.JWKS] publicly (cacheable for five
// minutes); mount it at [JWKSPath].
func (li *LocalIssuer) JWKSHandler() http.Handler {
	return staticJSON(append(li.JWKS(), '\n'), "public, max-age=300")
}

// Verifier returns a Verifier that trusts this issuer's key, held in memory
// (never fetched, never stale). cfg.Issuer may be empty or LocalIssuerID;
// cfg.JWKSURL, cfg.JWKSFile and cfg.ClaimNames must be zero, because minted
// tokens use the default claim names.
func (li *LocalIssuer) Verifier(cfg Config) (*Verifier, error) {
	if cfg.Issuer == "" {
		cfg.Issuer = LocalIssuerID
	}
	if cfg.Issuer != LocalIssuerID {
		return nil, fmt.Errorf("auth: a local issuer's tokens carry iss %q", LocalIssuerID)
	}
	if cfg.JWKSURL != "" || cfg.JWKSFile != "" || cfg.ClaimNames != (ClaimNames{}) {
		return nil, errors.New("auth: a local issuer's Verifier takes no JWKSURL, JWKSFile or ClaimNames")
	}
	n, err := cfg.normalize(false)
	if err != nil {
		return nil, err
	}
	keys, err := parseJWKS(li.jwks)
	if err != nil {
		return nil, err
	}
	return newVerifier(n, newStaticKeySet(keys, n.Clock)), nil
}

// TokenSpec describes a token to mint.
type TokenSpec struct {
	// Audience is the canonical resource URI of the server that will accept
	// the token (its Config.Audience). Required.
	Audience string
	// Subject identifies the credential ("sub"). Required.
	Subject string
	// Tenant is the tenant claim. Required.
	Tenant string
	// Entitlements name tools or tool families, or "*" (see
	// [Principal.Entitled]). Zero: the token may call no tool.
	Entitlements []string
	// Scopes are OAuth scopes. Zero: none.
	Scopes []string
	// Lifetime is exp − iat. Zero: one hour. At most DefaultMaxLifetime.
	Lifetime time.Duration
	// IssuedAt is iat. Zero: now.
	IssuedAt time.Time
	// ClientID is the OAuth client the token was issued to ("client_id",
	// RFC 9068). Zero: omitted, as for tokens pasted into a client.
	ClientID string
	// TokenID is "jti". Zero: 128 random bits.
	TokenID string
}

// Mint signs a token for spec.
func (li *LocalIssuer) Mint(spec TokenSpec) (string, error) {
	switch {
	case spec.Audience == "":
		return "", errors.New("auth: TokenSpec.Audience is required")
	case spec.Subject == "" || len(spec.Subject) > maxClaimStringLen || !printableASCII(spec.Subject):
		return "", errors.New("auth: TokenSpec.Subject must be 1–256 printable ASCII characters")
	case spec.Tenant == "" || len(spec.Tenant) > maxClaimStringLen || !printableASCII(spec.Tenant):
		return "", errors.New("auth: TokenSpec.Tenant must be 1–256 printable ASCII characters")
	case spec.Lifetime < 0 || spec.Lifetime > DefaultMaxLifetime:
		return "", fmt.Errorf("auth: TokenSpec.Lifetime must be at most %v", DefaultMaxLifetime)
	case len(spec.Entitlements) > maxListEntries || len(spec.Scopes) > maxListEntries:
		return "", errors.New("auth: too many entitlements or scopes")
	case len(spec.ClientID) > maxClaimStringLen || !printableASCII(spec.ClientID):
		return "", errors.New("auth: TokenSpec.ClientID must be at most 256 printable ASCII characters")
	case len(spec.TokenID) > maxClaimStringLen || !printableASCII(spec.TokenID):
		return "", errors.New("auth: TokenSpec.TokenID must be at most 256 printable ASCII characters")
	}
	aud, err := parseCanonicalURI(spec.Audience)
	if err != nil {
		return "", fmt.Errorf("auth: TokenSpec.Audience: %w", err)
	}
	for _, e := range spec.Entitlements {
		if !validEntitlement(e) {
			return "", fmt.Errorf("auth: entitlement %q is not a tool, family or \"*\"", e)
		}
	}
	for _, s := range spec.Scopes {
		if !validScopeToken(s) {
			return "", fmt.Errorf("auth: scope %q is not a valid scope", s)
		}
	}
	lifetime := spec.Lifetime
	if lifetime == 0 {
		lifetime = DefaultTokenLifetime
	}
	iat := spec.IssuedAt
	if iat.IsZero() {
		iat = time.Now()
	}
	jti := spec.TokenID
	if jti == "" {
		var r [16]byte
		rand.Read(r[:])
		jti = b64.EncodeToString(r[:])
	}
	entitlements := spec.Entitlements
	if entitlements == nil {
		entitlements = []string{}
	}
	claims := struct {
		Iss          string   `json:"iss"`
		Aud          string   `json:"aud"`
		Sub          string   `json:"sub"`
		Tenant       string   `json:"tenant"`
		Entitlements []string `json:"entitlements"`
		Scope        string   `json:"scope,omitempty"`
		ClientID     string   `json:"client_id,omitempty"`
		Iat          int64    `json:"iat"`
		Exp          int64    `json:"exp"`
		Jti          string   `json:"jti"`
	}{LocalIssuerID, aud.String(), spec.Subject, spec.Tenant, entitlements, strings.Join(spec.Scopes, " "),
		spec.ClientID, iat.Unix(), iat.Add(lifetime).Unix(), jti}
	return jwt.Signed(li.signer).Claims(claims).Serialize()
}

// MintedToken is what [LocalIssuer.ReadMinted] tells about a token this
// issuer signed.
type MintedToken struct {
	TokenID   string // "jti"
	ClientID  string // "client_id", "" for pasted tokens
	ExpiresAt time.Time
}

// ReadMinted checks that token carries this issuer's signature and returns
// its jti, client_id and expiry, whether or not it has expired. It is for
// an authorization server that must find the grant behind a token it
// issued (revocation, RFC 7009); requests are authenticated by a
// [Verifier], never by this.
func (li *LocalIssuer) ReadMinted(token string) (MintedToken, bool) {
	if len(token) > DefaultMaxTokenBytes {
		return MintedToken{}, false
	}
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil || len(jws.Signatures) != 1 || jws.Signatures[0].Header.KeyID != li.kid {
		return MintedToken{}, false
	}
	payload, err := jws.Verify(&li.priv.PublicKey)
	if err != nil {
		return MintedToken{}, false
	}
	var c struct {
		Iss      string `json:"iss"`
		Jti      string `json:"jti"`
		ClientID string `json:"client_id"`
		Exp      int64  `json:"exp"`
	}
	if json.Unmarshal(payload, &c) != nil || c.Iss != LocalIssuerID || c.Jti == "" {
		return MintedToken{}, false
	}
	return MintedToken{TokenID: c.Jti, ClientID: c.ClientID, ExpiresAt: time.Unix(c.Exp, 0)}, true
}

// DeriveSecret returns 32 bytes derived from the signing key for purpose
// (HKDF-SHA256), so that secrets which must outlive a restart (the HMAC
// key of refresh tokens, say) need no file of their own and change when
// the key is rotated.
func (li *LocalIssuer) DeriveSecret(purpose string) []byte {
	d, err := li.priv.Bytes()
	if err == nil {
		var out []byte
		if out, err = hkdf.Key(sha256.New, d, []byte(li.kid), "warden local issuer: "+purpose, 32); err == nil {
			return out
		}
	}
	panic("auth: deriving a secret from the signing key: " + err.Error()) // a P-256 key always has 32 bytes

}
