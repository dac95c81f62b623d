package auth

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// claimTimes are the validity bounds of a verified token, kept so the
// verified-token cache can re-check them on every hit.
type claimTimes struct {
	notBefore time.Time // nbf, or iat when there is no nbf
	expires   time.Time
}

// principalFromClaims applies the claims policy to a payload whose
// signature has been verified.
func (v *Verifier) principalFromClaims(payload []byte, now time.Time) (Principal, claimTimes, *Error) {
	var p Principal
	var t claimTimes
	c, err := decodeStrictObject(payload)
	if errors.Is(err, errDuplicateMember) {
		return p, t, invalidToken(ReasonDuplicateMember)
	}
	if err != nil {
		return p, t, invalidToken(ReasonMalformedClaims)
	}
	names := v.cfg.ClaimNames

	if iss, ok := jsonString(c["iss"]); !ok || iss != v.cfg.Issuer {
		return p, t, invalidToken(ReasonIssuerMismatch)
	}
	p.Issuer = v.cfg.Issuer

	auds, ok := stringOrList(c["aud"], false)
	if !ok {
		return p, t, invalidToken(ReasonMalformedClaims)
	}
	if !v.audienceOK(auds) {
		return p, t, invalidToken(ReasonAudienceMismatch)
	}

	exp, present, ok := numericDate(c["exp"])
	switch {
	case !present:
		return p, t, invalidToken(ReasonMissingExpiry)
	case !ok:
		return p, t, invalidToken(ReasonMalformedClaims)
	}
	iat, present, ok := numericDate(c["iat"])
	switch {
	case !present:
		return p, t, invalidToken(ReasonMissingIssuedAt)
	case !ok:
		return p, t, invalidToken(ReasonMalformedClaims)
	}
	nbf, hasNBF, ok := numericDate(c["nbf"])
	if hasNBF && !ok {
		return p, t, invalidToken(ReasonMalformedClaims)
	}
	skew := v.cfg.Skew
	switch {
	case !exp.After(iat):
		return p, t, invalidToken(ReasonInvalidClaim)
	case exp.Sub(iat) > v.cfg.MaxLifetime:
		return p, t, invalidToken(ReasonLifetimeTooLong)
	case now.After(exp.Add(skew)):
		return p, t, invalidToken(ReasonExpired)
	case iat.After(now.Add(skew)):
		return p, t, invalidToken(ReasonIssuedInFuture)
	case hasNBF && nbf.After(now.Add(skew)):
		return p, t, invalidToken(ReasonNotYetValid)
	}
	p.IssuedAt, p.ExpiresAt = iat, exp
	t.expires = exp.Add(skew)
	t.notBefore = iat.Add(-skew)
	if hasNBF && nbf.After(iat) {
		t.notBefore = nbf.Add(-skew)
	}

	var e *Error
	if p.Subject, e = optionalString(c, "sub"); e != nil {
		return p, t, e
	}
	if p.TokenID, e = optionalString(c, "jti"); e != nil {
		return p, t, e
	}
	if p.ClientID, e = optionalString(c, "client_id"); e != nil {
		return p, t, e
	}
	if p.Credential, e = optionalString(c, names.Credential); e != nil {
		return p, t, e
	}
	if p.Credential == "" {
		p.Credential = p.TokenID
	}
	if p.Credential == "" {
		return p, t, invalidToken(ReasonMissingCredential)
	}
	if p.Tenant, e = optionalString(c, names.Tenant); e != nil {
		return p, t, e
	}
	if p.Tenant == "" {
		return p, t, invalidToken(ReasonMissingTenant)
	}

	if raw, ok := c[names.Entitlements]; ok {
		ents, ok := stringOrList(raw, true)
		if !ok || len(ents) > maxListEntries {
			return p, t, invalidToken(ReasonInvalidClaim)
		}
		for _, ent := range ents {
			if !validEntitlement(ent) {
				return p, t, invalidToken(ReasonInvalidClaim)
			}
		}
		p.Entitlements = ents
	}
	if raw, ok := c[names.Scope]; ok {
		scopes, ok := stringOrList(raw, true)
		if !ok || len(scopes) > maxListEntries {
			return p, t, invalidToken(ReasonInvalidClaim)
		}
		for _, s := range scopes {
			if !validScopeToken(s) {
				return p, t, invalidToken(ReasonInvalidClaim)
			}
		}
		p.Scopes = scopes
	}
	return p, t, nil
}

func (v *Verifier) audienceOK(auds []string) bool {
	for _, a := range auds {
		if v.cfg.audience.matches(a) {
			return true
		}
	}
	return false
}

// optionalString reads a string claim of bounded, printable content. An
// absent claim is "", a claim of another type is refused.
func optionalString(c map[string]json.RawMessage, name string) (string, *Error) {
	raw, ok := c[name]
	if !ok {
		return "", nil
	}
	s, ok := jsonString(raw)
	if !ok || len(s) > maxClaimStringLen || !printableASCII(s) {
		return "", invalidToken(ReasonInvalidClaim)
	}
	return s, nil
}

// numericDate reads an RFC 7519 NumericDate. It must be a JSON number, not a
// string holding one.
func numericDate(raw json.RawMessage) (t time.Time, present, ok bool) {
	if raw == nil {
		return time.Time{}, false, false
	}
	if len(raw) == 0 || !(raw[0] >= '0' && raw[0] <= '9') {
		return time.Time{}, true, false // also refuses negative dates and null
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) || f > 1e11 {
		return time.Time{}, true, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true, true
}

// stringOrList reads a claim that is one string or an array of strings. With
// split, a single string is a space-separated list (as OAuth scope is).
func stringOrList(raw json.RawMessage, split bool) ([]string, bool) {
	if raw == nil {
		return nil, true
	}
	if s, ok := jsonString(raw); ok {
		if split {
			var out []string
			for _, f := range strings.Split(s, " ") {
				if f != "" {
					out = append(out, f)
				}
			}
			return out, true
		}
		return []string{s}, true
	}
	if raw[0] != '[' {
		return nil, false
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, false
	}
	return list, true
}

// validEntitlement accepts "*", a tool or family name, or a family prefix
// ending in "_*". Names use the MCP tool-name alphabet.
func validEntitlement(e string) bool {
	if e == "*" {
		return true
	}
	e = strings.TrimSuffix(e, "_*")
	if e == "" || len(e) > 128 {
		return false
	}
	for i := 0; i < len(e); i++ {
		c := e[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
