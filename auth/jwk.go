package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
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
	rsa      *rsa.PublicKey
	ec       *ecdsa.PublicKey
	rejected string // non-empty: why the key is unusable (operator detail)
}

// verify checks sig over the signing input with the key's own algorithm.
func (k *verifyKey) verify(signingInput string, sig []byte) bool {
	h := sha256.New()
	io.WriteString(h, signingInput)
	digest := h.Sum(nil)
	switch k.alg {
	case algRS256:
		// PKCS #1 v1.5 signatures are exactly the modulus size.
		return len(sig) == k.rsa.Size() && rsa.VerifyPKCS1v15(k.rsa, crypto.SHA256, digest, sig) == nil
	case algES256:
		// JWS uses the fixed 64-byte r‖s form (RFC 7518 §3.4), never DER.
		// ecdsa.Verify refuses r or s outside [1, n−1]. High-S values
		// verify: ES256 signatures are malleable, so nothing may key on
		// the signature bytes.
		if len(sig) != 64 {
			return false
		}
		r := new(big.Int).SetBytes(sig[:32])
		s := new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(k.ec, digest, r, s)
	}
	return false
}

// parseJWKS reads a JWKS document. One unusable key does not spoil the
// set; a malformed document, or one with more than maxJWKSKeys keys, does.
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
		keys[kid] = parseJWK(kid, m)
	}
	return keys, nil
}

func parseJWK(kid string, m map[string]json.RawMessage) *verifyKey {
	k := &verifyKey{kid: kid}
	reject := func(why string) *verifyKey { k.rejected = why; return k }
	if use, ok := jsonString(m["use"]); ok && use != "sig" {
		return reject(`"use" is not "sig"`)
	}
	if raw, ok := m["key_ops"]; ok {
		var ops []string
		if json.Unmarshal(raw, &ops) != nil || !slices.Contains(ops, "verify") {
			return reject(`"key_ops" does not allow "verify"`)
		}
	}
	alg, hasAlg := jsonString(m["alg"])
	kty, _ := jsonString(m["kty"])
	switch kty {
	case "RSA":
		if hasAlg && alg != algRS256 {
			return reject("RSA key for an algorithm other than RS256")
		}
		n, okN := b64Int(m["n"])
		e, okE := b64Int(m["e"])
		if !okN || !okE {
			return reject("RSA key with malformed n or e")
		}
		if bits := n.BitLen(); bits < minRSABits || bits > maxRSABits {
			return reject(fmt.Sprintf("RSA key of %d bits (want %d–%d)", bits, minRSABits, maxRSABits))
		}
		if !e.IsInt64() || e.Int64() != 65537 {
			return reject("RSA public exponent is not 65537")
		}
		k.alg, k.rsa = algRS256, &rsa.PublicKey{N: n, E: 65537}
	case "EC":
		if hasAlg && alg != algES256 {
			return reject("EC key for an algorithm other than ES256")
		}
		if crv, _ := jsonString(m["crv"]); crv != "P-256" {
			return reject("EC key not on P-256")
		}
		x, okX := b64Bytes(m["x"])
		y, okY := b64Bytes(m["y"])
		if !okX || !okY || len(x) != 32 || len(y) != 32 {
			return reject("EC key with malformed x or y")
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return reject("EC point not on P-256")
		}
		k.alg, k.ec = algES256, pub
	default:
		return reject(fmt.Sprintf("key type %q not allowed", kty))
	}
	return k
}

func b64Bytes(raw json.RawMessage) ([]byte, bool) {
	s, ok := jsonString(raw)
	if !ok || s == "" {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	return b, err == nil
}

func b64Int(raw json.RawMessage) (*big.Int, bool) {
	b, ok := b64Bytes(raw)
	if !ok {
		return nil, false
	}
	return new(big.Int).SetBytes(b), true
}
