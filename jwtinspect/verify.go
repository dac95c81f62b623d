package jwtinspect

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	stdhmac "crypto/hmac"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"hash"
	"strconv"
	"strings"

	"github.com/go-jose/go-jose/v4"
)

// allAlgs are the signature algorithms go-jose verifies; none is never
// among them.
var allAlgs = []jose.SignatureAlgorithm{jose.HS256, jose.HS384, jose.HS512, jose.RS256, jose.RS384, jose.RS512,
	jose.ES256, jose.ES384, jose.ES512, jose.PS256, jose.PS384, jose.PS512, jose.EdDSA}

type candidate struct {
	key any
	id  string
}

// verify checks the signature against every supplied key that fits, the
// kid's first. It never returns an error: a bad key is an unverifiable
// outcome with a message.
func verify(token string, rep *Report, opts *Options) *Verification {
	if rep.Form == "unsecured" {
		return &Verification{Status: "unverifiable", Message: "alg none has no signature to verify"}
	}
	hmac := strings.HasPrefix(rep.Algorithm, "HS")
	var jws *jose.JSONWebSignature
	if !hmac {
		var err error
		if jws, err = jose.ParseSignedCompact(token, allAlgs); err != nil {
			return &Verification{Status: "unverifiable", Message: "the token cannot be verified: its algorithm is not one Warden verifies, or its header is malformed"}
		}
	}
	var keys []candidate
	var problems []string
	if opts.Secret != nil {
		keys = append(keys, candidate{opts.Secret, "the supplied secret"})
	}
	if len(opts.PEM) > 0 {
		pks, err := pemKeys(opts.PEM)
		if err != nil {
			problems = append(problems, err.Error())
		}
		for i, k := range pks {
			keys = append(keys, candidate{k, "PEM key " + strconv.Itoa(i+1)})
		}
		if hmac {
			// Algorithm confusion: a server that verifies HS* with its
			// public key's PEM text as the secret.
			keys = append(keys, candidate{append([]byte(nil), opts.PEM...), "the PEM text as an HMAC secret"})
			if t := strings.TrimRight(string(opts.PEM), "\r\n"); t != string(opts.PEM) {
				keys = append(keys, candidate{[]byte(t), "the PEM text as an HMAC secret"})
			} else {
				keys = append(keys, candidate{[]byte(t + "\n"), "the PEM text as an HMAC secret"})
			}
		}
	}
	if len(opts.JWKS) > 0 {
		jks, err := jwks(opts.JWKS, stringMember(rep.Header, "kid"))
		if err != nil {
			problems = append(problems, err.Error())
		}
		keys = append(keys, jks...)
	}
	if len(keys) == 0 {
		msg := "no usable key was supplied"
		if len(problems) > 0 {
			msg += ": " + strings.Join(problems, "; ")
		}
		return &Verification{Status: "unverifiable", Message: msg}
	}
	tried := 0
	for _, k := range keys {
		if !fits(k.key, rep.Algorithm) {
			continue
		}
		tried++
		var ok bool
		if hmac {
			ok = hmacValid(token, rep.Algorithm, k.key.([]byte))
		} else {
			_, err := jws.Verify(k.key)
			ok = err == nil
		}
		if ok {
			v := &Verification{Status: "valid", KeyID: k.id, Message: "the signature verifies with " + k.id}
			switch {
			case strings.HasPrefix(k.id, "the PEM text"):
				rep.add("alg_confusion", SeverityCritical, "the HMAC signature verifies with the public key's PEM text as the secret: a server that uses its public key for "+rep.Algorithm+" accepts tokens anyone can make")
			case hmac && len(k.key.([]byte))*8 < hmacBits(rep.Algorithm):
				rep.add("hmac_secret_short", SeverityHigh, "the secret is shorter than RFC 7518 requires for "+rep.Algorithm+" (as many bits as the hash): it can be guessed offline")
			}
			return v
		}
	}
	if tried == 0 {
		return &Verification{Status: "unverifiable", Message: "no supplied key fits " + rep.Algorithm}
	}
	return &Verification{Status: "invalid", Message: "the signature does not verify with any of the " + strconv.Itoa(tried) + " supplied keys that fit " + rep.Algorithm}
}

// fits reports whether key's type can verify alg.
func fits(key any, alg string) bool {
	if k, ok := key.(jose.JSONWebKey); ok {
		if k.Algorithm != "" && k.Algorithm != alg {
			return false
		}
		key = k.Key
	}
	switch {
	case strings.HasPrefix(alg, "HS"):
		_, ok := key.([]byte)
		return ok
	case strings.HasPrefix(alg, "RS"), strings.HasPrefix(alg, "PS"):
		_, ok := key.(*rsa.PublicKey)
		return ok
	case strings.HasPrefix(alg, "ES"):
		_, ok := key.(*ecdsa.PublicKey)
		return ok
	case alg == "EdDSA":
		_, ok := key.(ed25519.PublicKey)
		return ok
	}
	return false
}

// pemKeys reads the public keys of every PEM block: public keys,
// certificates, and the public halves of private keys.
func pemKeys(b []byte) ([]crypto.PublicKey, error) {
	var out []crypto.PublicKey
	rest := b
	for len(out) < MaxKeys {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		var pub crypto.PublicKey
		var err error
		switch blk.Type {
		case "PUBLIC KEY":
			pub, err = x509.ParsePKIXPublicKey(blk.Bytes)
		case "RSA PUBLIC KEY":
			pub, err = x509.ParsePKCS1PublicKey(blk.Bytes)
		case "CERTIFICATE":
			var c *x509.Certificate
			if c, err = x509.ParseCertificate(blk.Bytes); err == nil {
				pub = c.PublicKey
			}
		case "PRIVATE KEY":
			var k any
			if k, err = x509.ParsePKCS8PrivateKey(blk.Bytes); err == nil {
				pub = publicOf(k)
			}
		case "RSA PRIVATE KEY":
			var k any
			if k, err = x509.ParsePKCS1PrivateKey(blk.Bytes); err == nil {
				pub = publicOf(k)
			}
		case "EC PRIVATE KEY":
			var k any
			if k, err = x509.ParseECPrivateKey(blk.Bytes); err == nil {
				pub = publicOf(k)
			}
		default:
			continue
		}
		if err != nil || pub == nil {
			return out, errBadKey("a PEM block of type " + blk.Type + " could not be read")
		}
		out = append(out, pub)
	}
	if len(out) == 0 {
		return nil, errBadKey("the PEM holds no public key, certificate or private key")
	}
	return out, nil
}

func publicOf(k any) crypto.PublicKey {
	if s, ok := k.(crypto.Signer); ok {
		return s.Public()
	}
	return nil
}

// jwks reads a key set (or one key), the kid's keys first.
func jwks(b []byte, kid string) ([]candidate, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil || len(set.Keys) == 0 {
		var one jose.JSONWebKey
		if err := json.Unmarshal(b, &one); err != nil {
			return nil, errBadKey("the JWKS is neither a key set nor a key")
		}
		set.Keys = []jose.JSONWebKey{one}
	}
	if len(set.Keys) > MaxKeys {
		return nil, errBadKey("the JWKS holds more than 64 keys")
	}
	var first, rest []candidate
	for i, k := range set.Keys {
		id := "JWKS key " + strconv.Itoa(i+1)
		if k.KeyID != "" {
			id = "JWKS key kid " + strconv.Quote(k.KeyID)
		}
		jk := k // a public or symmetric key as it is
		if !k.IsPublic() && len(k.Certificates) == 0 {
			if pub := k.Public(); pub.Key != nil {
				jk = pub // a private key: its public half
			}
		}
		var key any = jk
		if b, ok := jk.Key.([]byte); ok {
			key = b // an oct key verifies HMAC as raw bytes
		}
		c := candidate{key, id}
		if kid != "" && k.KeyID == kid {
			first = append(first, c)
		} else {
			rest = append(rest, c)
		}
	}
	return append(first, rest...), nil
}

type keyError string

func (e keyError) Error() string { return string(e) }

func errBadKey(msg string) error { return keyError(msg) }

// hmacBits is the hash size of an HS algorithm, 0 for others.
func hmacBits(alg string) int {
	switch alg {
	case "HS256":
		return 256
	case "HS384":
		return 384
	case "HS512":
		return 512
	}
	return 0
}

// hmacValid checks an HS* signature over the token's signing input
// itself, whatever the secret's length: a short secret is a finding to
// report, not a reason to refuse to check (go-jose refuses them).
func hmacValid(token, alg string, secret []byte) bool {
	var h func() hash.Hash
	switch alg {
	case "HS256":
		h = sha256.New
	case "HS384":
		h = sha512.New384
	case "HS512":
		h = sha512.New
	default:
		return false
	}
	i := strings.LastIndexByte(token, '.')
	sig, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(token[i+1:], "="))
	if err != nil {
		return false
	}
	m := stdhmac.New(h, secret)
	m.Write([]byte(token[:i]))
	return stdhmac.Equal(m.Sum(nil), sig)
}
