package auth

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
)

// claimTimes are the validity bounds of a verified token, kept so the
// verified-token cache can re-check them on every hit.
type claimTimes struct {
	notBefore time.Time // nbf, or iat when there is no nbf
	expires   time.Time
}

// principalFromClaims applies the claims policy to a payload whose
// signature go-jose has verified.
//
// The payload is decoded once, by our strict decoder (no duplicate members
// at any depth, valid UTF-8), and the registered claims are read from its
// members with go-jose's own claim types, so no second JSON parser can
// disagree with the first. go-jose then checks iss, aud and the time window
// (jwt.Expected with leeway). Ours on top: exp and iat present as JSON
// numbers (go-jose reads null as absent and takes negative dates), exp
// after iat, a maximum lifetime, aud compared after RFC 8707
// normalization, and the identity claims under their configured names.
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

	var std jwt.Claims
	dates := []struct {
		name, missing string
		required      bool
		dst           **jwt.NumericDate
	}{{"exp", ReasonMissingExpiry, true, &std.Expiry}, {"iat", ReasonMissingIssuedAt, true, &std.IssuedAt}, {"nbf", "", false, &std.NotBefore}}
	for _, d := range dates {
		raw, present := c[d.name]
		switch {
		case !present && d.required:
			return p, t, invalidToken(d.missing)
		case !present:
			continue
		case !(raw[0] >= '0' && raw[0] <= '9'): // null, negative, a string
			return p, t, invalidToken(ReasonMalformedClaims)
		}
		*d.dst = new(jwt.NumericDate)
		if (*d.dst).UnmarshalJSON(raw) != nil {
			return p, t, invalidToken(ReasonMalformedClaims)
		}
	}
	if raw, ok := c["iss"]; ok {
		if std.Issuer, ok = jsonString(raw); !ok {
			return p, t, invalidToken(ReasonMalformedClaims)
		}
	}
	if raw, ok := c["aud"]; ok && std.Audience.UnmarshalJSON(raw) != nil {
		return p, t, invalidToken(ReasonMalformedClaims)
	}
	// go-jose compares aud exactly; an entry naming our resource in another
	// spelling (upper-case host, default port, trailing "/") counts as ours.
	for i, a := range std.Audience {
		if v.cfg.audience.matches(a) {
			std.Audience[i] = v.cfg.Audience
		}
	}
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: v.cfg.Issuer, AnyAudience: jwt.Audience{v.cfg.Audience}, Time: now}, v.cfg.Skew)
	switch {
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return p, t, invalidToken(ReasonIssuerMismatch)
	case errors.Is(err, jwt.ErrInvalidAudience):
		return p, t, invalidToken(ReasonAudienceMismatch)
	case errors.Is(err, jwt.ErrExpired):
		e := invalidToken(ReasonExpired)
		e.expiredAt = std.Expiry.Time()
		return p, t, e
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return p, t, invalidToken(ReasonIssuedInFuture)
	case errors.Is(err, jwt.ErrNotValidYet):
		return p, t, invalidToken(ReasonNotYetValid)
	case err != nil:
		return p, t, invalidToken(ReasonInvalidClaim)
	}
	p.Issuer = v.cfg.Issuer
	exp, iat := std.Expiry.Time(), std.IssuedAt.Time()
	switch {
	case !exp.After(iat):
		return p, t, invalidToken(ReasonInvalidClaim)
	case exp.Sub(iat) > v.cfg.MaxLifetime:
		return p, t, invalidToken(ReasonLifetimeTooLong)
	}
	p.IssuedAt, p.ExpiresAt = iat, exp
	t.expires = exp.Add(v.cfg.Skew)
	t.notBefore = iat.Add(-v.cfg.Skew)
	if nbf := std.NotBefore.Time(); std.NotBefore != nil && nbf.After(iat) {
		t.notBefore = nbf.Add(-v.cfg.Skew)
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
		ents, ok := stringList(raw)
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
		scopes, ok := stringList(raw)
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

// stringList reads a claim that is an array of strings or one
// space-separated string (as OAuth scope is).
func stringList(raw json.RawMessage) ([]string, bool) {
	if s, ok := jsonString(raw); ok {
		var out []string
		for _, f := range strings.Split(s, " ") {
			if f != "" {
				out = append(out, f)
			}
		}
		return out, true
	}
	var list []string
	if raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
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
