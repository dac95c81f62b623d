package toolset

import (
	"context"
	"encoding/json"

	"github.com/warden-mcp/warden/jwtinspect"
	"github.com/warden-mcp/warden/tool"
)

type jwtArgs struct {
	Token     string `json:"token" minLength:"1" maxLength:"65536" code:"invalid_token" maxLengthCode:"token_too_large" desc:"The JWT, compact form (a Bearer prefix is ignored). At most 64 KiB."`
	PublicKey string `json:"public_key,omitempty" maxLength:"65536" desc:"Optional PEM public keys, certificates or private keys to verify the signature with. For an HS* token the PEM text is also tried as the HMAC secret (algorithm confusion). Never echoed."`
	JWKS      string `json:"jwks,omitempty" maxLength:"65536" desc:"Optional JSON Web Key Set document (or one JWK) to verify with; the key whose kid matches is tried first. Supplied here, never fetched by URL."`
	Secret    string `json:"secret,omitempty" maxLength:"65536" desc:"Optional HMAC secret to verify an HS256/384/512 token with. Never echoed."`
}

// JWTResult is util_jwt_inspect's result.
type JWTResult struct {
	Form           string           `json:"form" privacy:"plain" desc:"jws (signed), unsecured (alg none) or jwe (encrypted: claims unreadable)."`
	Algorithm      string           `json:"algorithm" privacy:"plain"`
	Header         []JWTMember      `json:"header"`
	Claims         []JWTMember      `json:"claims" desc:"In token order."`
	Payload        string           `json:"payload,omitempty" privacy:"plain" desc:"A payload that is not a JSON object, as text or base64 (payload_format)."`
	PayloadFormat  string           `json:"payload_format,omitempty" privacy:"plain"`
	Signature      string           `json:"signature" privacy:"secret" desc:"The signature part (base64url), redacted by the privacy mode."`
	SignatureBytes int              `json:"signature_bytes"`
	Times          []JWTTime        `json:"times" desc:"exp, nbf, iat and auth_time in human terms."`
	Findings       []JWTFinding     `json:"findings" desc:"What a tester should look at, most of it worth a test against the server that accepts the token."`
	Verification   *JWTVerification `json:"verification,omitempty" desc:"Present when a key, key set or secret was supplied."`
}

// JWTMember is one header parameter or claim. Its value is in exactly one
// of value, url, email and secret: a string the privacy mode may remove is
// given in the field of its kind, everything else as JSON in value.
type JWTMember struct {
	Name   string          `json:"name" privacy:"plain"`
	Value  json.RawMessage `json:"value,omitempty" privacy:"plain"`
	URL    string          `json:"url,omitempty" privacy:"url"`
	Email  string          `json:"email,omitempty" privacy:"email"`
	Secret string          `json:"secret,omitempty" privacy:"secret"`
}

// JWTTime is one time claim.
type JWTTime struct {
	Claim    string `json:"claim" privacy:"plain"`
	Unix     int64  `json:"unix"`
	UTC      string `json:"utc" privacy:"plain"`
	Relative string `json:"relative" privacy:"plain" desc:"Such as \"in 2h 5m\" or \"3d 4h ago\"."`
}

// JWTFinding is one thing to test.
type JWTFinding struct {
	Code     string `json:"code" privacy:"plain"`
	Severity string `json:"severity" privacy:"plain" desc:"critical, high, medium, low or info."`
	Message  string `json:"message" privacy:"plain"`
}

// JWTVerification is the signature check.
type JWTVerification struct {
	Status  string `json:"status" privacy:"plain" desc:"valid, invalid or unverifiable."`
	KeyID   string `json:"key_id,omitempty" privacy:"plain" desc:"Which supplied key verified."`
	Message string `json:"message" privacy:"plain"`
}

func utilJWTInspectTool() (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "util_jwt_inspect",
		Title: "Inspect a JWT",
		Description: "Decode a JWT's header and claims without trusting them and list what a tester looks for: alg none or " +
			"HMAC, kid/jku/x5u headers and embedded jwk or x5c keys, expiry and not-before in human terms, missing exp, aud " +
			"or iss, lifetimes over a day, duplicate members. Optionally verify the signature against a supplied PEM key, " +
			"JWKS document or HMAC secret (never fetched by URL), including the PEM-as-HMAC-secret confusion. Offline: no " +
			"network. The signature, and claims the privacy mode marks, are redacted.",
		Annotations: utilAnnotations,
		Catalog:     utilCatalog,
	}, func(ctx context.Context, call *tool.Call, in jwtArgs) (JWTResult, error) {
		opts := &jwtinspect.Options{PEM: []byte(in.PublicKey), JWKS: []byte(in.JWKS)}
		if in.Secret != "" {
			opts.Secret = []byte(in.Secret)
		}
		r, err := jwtinspect.Inspect(in.Token, opts)
		if err != nil {
			return JWTResult{}, err
		}
		out := JWTResult{
			Form: r.Form, Algorithm: r.Algorithm, Header: jwtMembers(r.Header), Claims: jwtMembers(r.Claims),
			Payload: r.Payload, PayloadFormat: r.PayloadFormat, Signature: r.Signature, SignatureBytes: r.SignatureBytes,
			Times: []JWTTime{}, Findings: []JWTFinding{},
		}
		for _, t := range r.Times {
			out.Times = append(out.Times, JWTTime{Claim: t.Claim, Unix: t.Unix, UTC: t.UTC, Relative: t.Relative})
		}
		for _, f := range r.Findings {
			out.Findings = append(out.Findings, JWTFinding{Code: f.Code, Severity: f.Severity, Message: f.Message})
		}
		if v := r.Verification; v != nil {
			out.Verification = &JWTVerification{Status: v.Status, KeyID: v.KeyID, Message: v.Message}
		}
		return out, nil
	})
}

func jwtMembers(ms []jwtinspect.Member) []JWTMember {
	out := make([]JWTMember, 0, len(ms))
	for _, m := range ms {
		jm := JWTMember{Name: m.Name}
		var s string
		if m.Kind != jwtinspect.KindPlain && json.Unmarshal(m.Value, &s) == nil && s != "" {
			switch m.Kind {
			case jwtinspect.KindURL:
				jm.URL = s
			case jwtinspect.KindEmail:
				jm.Email = s
			default:
				jm.Secret = s
			}
		} else {
			jm.Value = m.Value
		}
		out = append(out, jm)
	}
	return out
}
