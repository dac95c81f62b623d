package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	jose "github.com/go-jose/go-jose/v4"
)

const (
	minRSABits = 2048 // RFC 7518 §3.3
	maxRSABits = 8192 // bounds verification cost
)

// verifyKey is one key of a JWKS, with the single algorithm it verifies.
// A key that fails the policy is kept with a reason, so a token naming it
// is refused at once instead of triggering a refresh.
type verifyKey struct {
	kid      string
	alg      string // algRS256 or algES256
	pub      any    // *rsa.PublicKey or *ecdsa.PublicKey, for go-jose
	rejected string // non-empty: why the key is unusable (operator detail)
}

// parseJWKS reads a JWKS document. One unusable key does not spoil the
// set; a malformed document, or one with more than maxJWKSKeys keys, does.
// Keys are read one by one with go-jose's JSONWebKey rather than as a
// JSONWebKeySet, which fails as a whole on a single key it cannot read.
func parseJWKS(data []byte) (map[string]*verifyKey, error) {
	doc, err := decodeStrictObject(data)
	if err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(doc["keys"], &raws); err != nil || raws == nil {
		return nil, errors.New(`JWKS: "keys" is not an array`)
	}
	if len(raws) > maxJWKSKeys {
		return nil, fmt.Errorf("JWKS: more than %d keys", maxJWKSKeys)
	}
	keys := make(map[string]*verifyKey, len(raws))
	for _, raw := range raws {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, errors.New("JWKS: a key is not an object")
		}
		kid, ok := jsonString(m["kid"])
		if !ok || kid == "" || len(kid) > maxKIDLen {
			continue // unreachable: tokens must name a kid
		}
		if _, dup := keys[kid]; dup {
			keys[kid] = &verifyKey{kid: kid, rejected: "kid appears more than once in the JWKS"}
			continue
		}
		keys[kid] = parseJWK(kid, raw, m)
	}
	return keys, nil
}

// parseJWK turns one JWK into a verifyKey. go-jose reads the key material
// (base64url fields, curve points, certificate chains); the policy on top
// is ours: signing keys only, RSA of 2048–8192 bits with e = 65537, EC on
// P-256 only, no symmetric or private keys, and the JWK's "alg", when
// present, must be the one algorithm its type allows.
func parseJWK(kid string, raw json.RawMessage, m map[string]json.RawMessage) *verifyKey {
	k := &verifyKey{kid: kid}
	reject := func(why string) *verifyKey { k.rejected = why; return k }
	if raw, ok := m["key_ops"]; ok {
		var ops []string
		if json.Unmarshal(raw, &ops) != nil || !slices.Contains(ops, "verify") {
			return reject(`"key_ops" does not allow "verify"`)
		}
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(raw); err != nil {
		return reject("unreadable key: " + err.Error())
	}
	if jwk.Use != "" && jwk.Use != "sig" {
		return reject(`"use" is not "sig"`)
	}
	switch pub := jwk.Key.(type) {
	case *rsa.PublicKey:
		if jwk.Algorithm != "" && jwk.Algorithm != algRS256 {
			return reject("RSA key for an algorithm other than RS256")
		}
		if bits := pub.N.BitLen(); bits < minRSABits || bits > maxRSABits {
			return reject(fmt.Sprintf("RSA key of %d bits (want %d–%d)", bits, minRSABits, maxRSABits))
		}
		if pub.E != 65537 {
			return reject("RSA public exponent is not 65537")
		}
		k.alg, k.pub = algRS256, pub
	case *ecdsa.PublicKey:
		if jwk.Algorithm != "" && jwk.Algorithm != algES256 {
			return reject("EC key for an algorithm other than ES256")
		}
		if pub.Curve != elliptic.P256() {
			return reject("EC key not on P-256")
		}
		k.alg, k.pub = algES256, pub
	case *rsa.PrivateKey, *ecdsa.PrivateKey:
		return reject("the JWKS publishes private key material")
	default:
		return reject(fmt.Sprintf("key type %T not allowed", jwk.Key))
	}
	return k
}
