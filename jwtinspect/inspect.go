package jwtinspect

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/warden-mcp/warden/errcode"
)

// Bounds.
const (
	MaxTokenBytes = 64 << 10
	MaxKeyBytes   = 64 << 10
	MaxKeys       = 64
	// LongLifetime is the lifetime past which a token is reported.
	LongLifetime = 24 * time.Hour
)

// Error codes.
const (
	CodeInvalidToken  = "invalid_token"
	CodeTokenTooLarge = "token_too_large"
	CodeInvalidKey    = "invalid_key"
)

// Severities of findings, most severe first.
const (
	SeverityCritical = "critical"
	SeverityHigh     = "high"
	SeverityMedium   = "medium"
	SeverityLow      = "low"
	SeverityInfo     = "info"
)

// Kinds of member values, for a privacy layer: what a value holds.
const (
	KindPlain  = "plain"
	KindURL    = "url"
	KindEmail  = "email"
	KindSecret = "secret"
)

// Member is one header parameter or claim.
type Member struct {
	Name string
	// Value is its JSON value, compacted.
	Value json.RawMessage
	// Kind says what the value holds: KindPlain, or KindURL, KindEmail
	// or KindSecret for a string a privacy layer may remove.
	Kind string
}

// Finding is one thing a tester should look at.
type Finding struct {
	Code     string
	Severity string
	Message  string
}

// Time is one time claim read in human terms.
type Time struct {
	Claim string
	Unix  int64
	// UTC is RFC 3339.
	UTC string
	// Relative is "in 2h 5m" or "3d 4h ago", from the inspection time.
	Relative string
}

// Verification is the outcome of checking the signature.
type Verification struct {
	// Status is "valid", "invalid" or "unverifiable" (no supplied key
	// fits the algorithm, or the token has no signature to check).
	Status string
	// KeyID names the key that verified: its kid, or "key 2" in a set.
	KeyID   string
	Message string
}

// Report is what Inspect found.
type Report struct {
	// Form is "jws" (signed), "unsecured" (alg none) or "jwe"
	// (encrypted: the claims cannot be read).
	Form      string
	Algorithm string
	Header    []Member
	Claims    []Member
	// Payload is a JWS payload that is not a JSON object, as text or
	// base64 (PayloadFormat).
	Payload, PayloadFormat string
	// Signature is the signature part as given (base64url).
	Signature      string
	SignatureBytes int
	Times          []Time
	Findings       []Finding
	// Verification is nil when no key was supplied.
	Verification *Verification
}

// Options are the keys to verify with and the clock. The zero value
// inspects without verifying, at time.Now.
type Options struct {
	// Now is the inspection time. Zero: time.Now.
	Now time.Time
	// PEM holds public keys, certificates or private keys (whose public
	// halves are used) in PEM.
	PEM []byte
	// JWKS is a JSON Web Key Set document (or a single JWK).
	JWKS []byte
	// Secret is an HMAC secret for HS256/384/512.
	Secret []byte
}

func errToken(msg string) *errcode.Error { return errcode.New(CodeInvalidToken, msg) }

// Inspect decodes token (compact serialization, surrounding white space
// and a "Bearer " prefix ignored) and reports on it. Verification runs
// when opts supplies a key.
func Inspect(token string, opts *Options) (rep *Report, err error) {
	defer func() {
		if p := recover(); p != nil { // a hostile token must never take the server down
			rep, err = nil, errcode.Wrap(CodeInvalidToken, "the token could not be read", fmt.Errorf("panic: %v", p))
		}
	}()
	if opts == nil {
		opts = &Options{}
	}
	if len(token) > MaxTokenBytes {
		return nil, errcode.New(CodeTokenTooLarge, "the token is longer than 64 KiB")
	}
	if len(opts.PEM) > MaxKeyBytes || len(opts.JWKS) > MaxKeyBytes || len(opts.Secret) > MaxKeyBytes {
		return nil, errcode.New(CodeInvalidKey, "a key is longer than 64 KiB")
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	token = strings.TrimSpace(token)
	if len(token) > 7 && strings.EqualFold(token[:7], "bearer ") {
		token = strings.TrimSpace(token[7:])
	}
	parts := strings.Split(token, ".")
	rep = &Report{}
	switch len(parts) {
	case 3:
		rep.Form = "jws"
	case 5:
		rep.Form = "jwe"
	default:
		return nil, errToken(fmt.Sprintf("a compact JWT has 3 parts (signed) or 5 (encrypted) separated by dots; this has %d", len(parts)))
	}
	hdr, nonStd, err := segment(parts[0])
	if err != nil {
		return nil, errToken("the header is not base64url")
	}
	if rep.Header, err = members(hdr, rep, "header"); err != nil {
		return nil, errToken("the header is not a JSON object")
	}
	if nonStd {
		rep.add("non_standard_encoding", SeverityLow, "a part uses padding or the standard base64 alphabet; RFC 7515 requires unpadded base64url, and parsers that differ here can disagree about the token")
	}
	alg := stringMember(rep.Header, "alg")
	rep.Algorithm = alg
	if rep.Form == "jwe" {
		rep.add("encrypted", SeverityInfo, "an encrypted token (JWE, enc "+stringMember(rep.Header, "enc")+"): its claims cannot be read without the recipient's key")
		rep.headerFindings()
		return rep, nil
	}
	payload, nonStdP, err := segment(parts[1])
	if err != nil {
		return nil, errToken("the payload is not base64url")
	}
	if nonStdP && !nonStd {
		rep.add("non_standard_encoding", SeverityLow, "a part uses padding or the standard base64 alphabet; RFC 7515 requires unpadded base64url, and parsers that differ here can disagree about the token")
	}
	if c, err := members(payload, rep, "claims"); err == nil {
		rep.Claims = c
	} else {
		rep.Payload, rep.PayloadFormat = shape(payload)
		rep.add("payload_not_json", SeverityInfo, "the payload is not a JSON object, so it carries no claims")
	}
	rep.Signature = parts[2]
	if sig, _, err := segment(parts[2]); err == nil {
		rep.SignatureBytes = len(sig)
	} else {
		rep.add("signature_not_base64url", SeverityMedium, "the signature part is not base64url")
	}
	if strings.EqualFold(alg, "none") {
		rep.Form = "unsecured"
	}
	rep.headerFindings()
	rep.claimFindings(now)
	if len(opts.PEM) > 0 || len(opts.JWKS) > 0 || opts.Secret != nil {
		rep.Verification = verify(token, rep, opts)
	}
	return rep, nil
}

func (r *Report) add(code, sev, msg string) {
	r.Findings = append(r.Findings, Finding{Code: code, Severity: sev, Message: msg})
}

// segment decodes one part: unpadded base64url as RFC 7515 says, or,
// reporting nonStd, padded or standard-alphabet base64.
func segment(s string) ([]byte, bool, error) {
	if b, err := base64.RawURLEncoding.Strict().DecodeString(s); err == nil {
		return b, false, nil
	}
	t := strings.TrimRight(s, "=")
	if b, err := base64.RawURLEncoding.DecodeString(t); err == nil {
		return b, true, nil
	}
	b, err := base64.RawStdEncoding.DecodeString(t)
	return b, true, err
}

// members reads a JSON object's members in order, reporting duplicates.
func members(b []byte, rep *Report, what string) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var out []Member
	seen := map[string]bool{}
	dup := false
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := k.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return nil, err
		}
		if seen[name] {
			dup = true
		}
		seen[name] = true
		out = append(out, Member{Name: name, Value: c.Bytes(), Kind: kindOf(name, c.Bytes())})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data")
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("trailing data")
	}
	if dup {
		rep.add("duplicate_member", SeverityMedium, "the "+what+" names a member twice; parsers disagree about which one counts (some take the first, some the last)")
	}
	return out, nil
}

// kindOf classifies a member value for a privacy layer.
func kindOf(name string, v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return KindPlain
	}
	n := strings.ToLower(name)
	switch {
	case n == "jku" || n == "x5u" || n == "iss" && strings.Contains(s, "://"):
		return KindURL
	case strings.Contains(n, "email") || n == "upn" && strings.Contains(s, "@"):
		return KindEmail
	}
	for _, w := range []string{"password", "passwd", "secret", "token", "api_key", "apikey", "private", "session"} {
		if strings.Contains(n, w) {
			return KindSecret
		}
	}
	if strings.Contains(s, "://") && (strings.Contains(s, "?") || strings.Contains(s, "@")) {
		return KindURL // a URL that may carry credentials or query secrets
	}
	return KindPlain
}

func stringMember(ms []Member, name string) string {
	for _, m := range ms {
		if m.Name == name {
			var s string
			if json.Unmarshal(m.Value, &s) == nil {
				return s
			}
		}
	}
	return ""
}

func member(ms []Member, name string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m.Value, true
		}
	}
	return nil, false
}

// shape renders bytes as text when printable, else base64.
func shape(b []byte) (string, string) {
	if printable(b) {
		return string(b), "text"
	}
	return base64.StdEncoding.EncodeToString(b), "base64"
}

func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r == '\uFFFD' || r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}

// numericDate reads a NumericDate claim (seconds, maybe fractional).
func numericDate(v json.RawMessage) (int64, bool) {
	var f float64
	if json.Unmarshal(v, &f) != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < -1e12 || f > 1e12 {
		return 0, false
	}
	return int64(f), true
}
