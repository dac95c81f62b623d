package auth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
)

// Algorithms accepted in the JOSE header. The key found by kid decides which
// one applies; the header must agree with it.
const (
	algRS256 = string(jose.RS256)
	algES256 = string(jose.ES256)
)

// allowedAlgs is the allowlist handed to go-jose, which refuses any other
// "alg" while parsing.
var allowedAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.ES256}

// refusedHeaders are JOSE header parameters that would fetch or embed keys,
// or change how the payload is processed. A token carrying any is refused.
var refusedHeaders = []string{"jku", "x5u", "jwk", "x5c", "x5t", "x5t#S256", "b64", "zip", "enc", "cty"}

var b64 = base64.RawURLEncoding.Strict()

// compactJWS is what the pre-parse learns from a token's JOSE header.
// Nothing in it has been authenticated yet.
type compactJWS struct {
	alg, kid string
}

// parseCompact checks the shape of a compact JWS and its JOSE header before
// go-jose sees it. Work is bounded by maxBytes before anything is decoded.
// Only the header is decoded here: go-jose decodes the payload and the
// signature, but it reads base64url leniently (unused low bits of the last
// character are ignored), so every segment must be canonical first.
func parseCompact(tok string, maxBytes int, acceptedTypes []string) (*compactJWS, *Error) {
	if len(tok) > maxBytes {
		return nil, invalidToken(ReasonTokenTooLarge)
	}
	dots := 0
	for i := 0; i < len(tok); i++ {
		if tok[i] == '.' {
			dots++
		}
		if dots > 2 || !isTokenChar(tok[i]) {
			return nil, invalidToken(ReasonMalformedToken)
		}
	}
	if dots != 2 {
		return nil, invalidToken(ReasonMalformedToken)
	}
	h, rest, _ := strings.Cut(tok, ".")
	p, s, _ := strings.Cut(rest, ".")
	if h == "" || p == "" || s == "" {
		return nil, invalidToken(ReasonMalformedToken)
	}
	if len(h) > maxHeaderSegmentBytes || b64.DecodedLen(len(p)) > maxClaimsBytes {
		return nil, invalidToken(ReasonTokenTooLarge)
	}
	if !canonicalB64(p) || !canonicalB64(s) {
		return nil, invalidToken(ReasonMalformedToken)
	}
	hdr, err := b64.DecodeString(h)
	if err != nil {
		return nil, invalidToken(ReasonMalformedToken)
	}
	j := &compactJWS{}
	if e := j.checkHeader(hdr, acceptedTypes); e != nil {
		return nil, e
	}
	return j, nil
}

// canonicalB64 reports whether an unpadded base64url segment (already
// limited to the alphabet) has a valid length and no stray bits in its
// last character, so that it has exactly one decoding.
func canonicalB64(seg string) bool {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var unused byte
	switch len(seg) % 4 {
	case 0:
		return true
	case 1:
		return false
	case 2:
		unused = 0x0f
	case 3:
		unused = 0x03
	}
	v := strings.IndexByte(alphabet, seg[len(seg)-1])
	return v >= 0 && byte(v)&unused == 0
}

func (j *compactJWS) checkHeader(hdr []byte, acceptedTypes []string) *Error {
	members, err := decodeStrictObject(hdr)
	if errors.Is(err, errDuplicateMember) {
		return invalidToken(ReasonDuplicateMember)
	}
	if err != nil {
		return invalidToken(ReasonMalformedJOSE)
	}
	alg, ok := jsonString(members["alg"])
	if !ok || alg != algRS256 && alg != algES256 {
		return invalidToken(ReasonAlgNotAllowed)
	}
	j.alg = alg
	if _, ok := members["crit"]; ok {
		// RFC 7515 §4.1.11: we understand no extensions, so any crit is
		// unsupported and the token must be rejected.
		return invalidToken(ReasonCritUnsupported)
	}
	for _, name := range refusedHeaders {
		if _, ok := members[name]; ok {
			return invalidToken(ReasonHeaderNotAllowed)
		}
	}
	raw, present := members["kid"]
	if !present {
		return invalidToken(ReasonMissingKID)
	}
	kid, ok := jsonString(raw)
	if !ok || kid == "" || len(kid) > maxKIDLen || !printableASCII(kid) {
		return invalidToken(ReasonMalformedJOSE)
	}
	j.kid = kid
	if raw, ok := members["typ"]; ok {
		typ, ok := jsonString(raw)
		if !ok {
			return invalidToken(ReasonMalformedJOSE)
		}
		if len(acceptedTypes) > 0 && !typeAccepted(typ, acceptedTypes) {
			return invalidToken(ReasonTypeNotAccepted)
		}
	} else if len(acceptedTypes) > 0 {
		return invalidToken(ReasonTypeNotAccepted)
	}
	return nil
}

// typeAccepted compares media types as RFC 7515 §4.1.9 says: case-insensitive,
// "application/" optional.
func typeAccepted(typ string, accepted []string) bool {
	t := strings.TrimPrefix(strings.ToLower(typ), "application/")
	for _, a := range accepted {
		if t == strings.TrimPrefix(strings.ToLower(a), "application/") {
			return true
		}
	}
	return false
}

// jsonString decodes a JSON string value; anything else (including a
// missing value) reports false.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; raw[len(raw)-1] == '"' && !bytes.ContainsAny(inner, "\\\"") {
		// No escapes: the members come from a document encoding/json has
		// already validated, so the bytes between the quotes are the value.
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
