package jwtinspect

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// headerFindings reports what the header invites a tester to try.
func (r *Report) headerFindings() {
	alg := r.Algorithm
	_, hasAlg := member(r.Header, "alg")
	switch {
	case !hasAlg:
		r.add("alg_missing", SeverityHigh, "the header has no alg; a server must refuse the token, and one that guesses may be fooled")
	case strings.EqualFold(alg, "none"):
		msg := "alg is " + alg + ": the token is unsigned; a server that accepts it accepts forged tokens"
		if alg != "none" {
			msg += " (the unusual case of \"" + alg + "\" is a classic bypass of blocklists that compare exactly)"
		}
		r.add("alg_none", SeverityCritical, msg)
		if r.Signature != "" {
			r.add("alg_none_with_signature", SeverityMedium, "alg is none yet a signature part is present")
		}
	case strings.HasPrefix(strings.ToUpper(alg), "HS"):
		r.add("alg_hmac", SeverityMedium, alg+" is HMAC with a shared secret: test the secret offline against wordlists, and test algorithm confusion (the server's RSA or EC public key used as the HMAC secret)")
	case r.Form == "jws" && alg != "" && !knownAlg(alg):
		r.add("alg_unknown", SeverityLow, "alg "+alg+" is not a JWS algorithm of RFC 7518 or RFC 8037")
	}
	if r.Form == "jws" && hasAlg && !strings.EqualFold(alg, "none") && r.Signature == "" {
		r.add("signature_missing", SeverityHigh, "alg is "+alg+" but the signature part is empty: test whether the server accepts tokens without a signature")
	}
	if kid, ok := member(r.Header, "kid"); ok {
		var s string
		_ = json.Unmarshal(kid, &s)
		r.add("kid_present", SeverityInfo, "kid selects the verification key: test it for path traversal, SQL injection and command injection where the server looks it up")
		if strings.ContainsAny(s, "/\\'\";|`$\x00") || strings.Contains(s, "..") {
			r.add("kid_suspicious", SeverityHigh, "kid holds path, quote or shell characters: it may already be an injection attempt")
		}
	}
	if _, ok := member(r.Header, "jku"); ok {
		r.add("jku_present", SeverityHigh, "jku names a URL to fetch the key set from: test whether the server fetches keys from a URL you control (it was not fetched here)")
	}
	if _, ok := member(r.Header, "x5u"); ok {
		r.add("x5u_present", SeverityHigh, "x5u names a URL to fetch a certificate from: test whether the server trusts a certificate you host (it was not fetched here)")
	}
	if _, ok := member(r.Header, "jwk"); ok {
		r.add("jwk_embedded", SeverityHigh, "the header embeds its own key (jwk): a server that verifies with it accepts any token signed with a key you generate")
	}
	if _, ok := member(r.Header, "x5c"); ok {
		r.add("x5c_embedded", SeverityMedium, "the header embeds a certificate chain (x5c): test whether the server verifies with it without checking the chain")
	}
	if _, ok := member(r.Header, "crit"); ok {
		r.add("crit_present", SeverityInfo, "crit lists header parameters the server must understand or refuse the token")
	}
}

var knownAlgs = []string{"HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "ES256K",
	"PS256", "PS384", "PS512", "EdDSA", "Ed25519", "Ed448"}

func knownAlg(a string) bool {
	for _, k := range knownAlgs {
		if a == k {
			return true
		}
	}
	return false
}

// claimFindings reads the time claims and the claims a token should have.
func (r *Report) claimFindings(now time.Time) {
	if r.Claims == nil {
		return
	}
	dates := map[string]int64{}
	for _, name := range []string{"exp", "nbf", "iat", "auth_time"} {
		v, ok := member(r.Claims, name)
		if !ok {
			continue
		}
		sec, ok := numericDate(v)
		if !ok {
			r.add(name+"_invalid", SeverityMedium, name+" is not a NumericDate (seconds since 1970)")
			continue
		}
		dates[name] = sec
		t := time.Unix(sec, 0).UTC()
		r.Times = append(r.Times, Time{Claim: name, Unix: sec, UTC: t.Format(time.RFC3339), Relative: relative(t, now)})
	}
	exp, hasExp := dates["exp"]
	switch {
	case !hasExp:
		r.add("exp_missing", SeverityMedium, "no exp: the token never expires, so a stolen one works forever")
	case time.Unix(exp, 0).Before(now):
		r.add("expired", SeverityInfo, "expired "+relative(time.Unix(exp, 0), now)+": test whether the server still accepts it")
	}
	if nbf, ok := dates["nbf"]; ok && time.Unix(nbf, 0).After(now) {
		r.add("not_yet_valid", SeverityInfo, "not valid until "+relative(time.Unix(nbf, 0), now)+": test whether the server checks nbf")
	}
	if iat, ok := dates["iat"]; ok && time.Unix(iat, 0).After(now.Add(time.Minute)) {
		r.add("issued_in_future", SeverityLow, "issued "+relative(time.Unix(iat, 0), now)+", in the future: the issuer's clock is off, or the token was made by hand")
	}
	if hasExp {
		start, from := now.Unix(), "now"
		if iat, ok := dates["iat"]; ok {
			start, from = iat, "issue"
		} else if nbf, ok := dates["nbf"]; ok {
			start, from = nbf, "nbf"
		}
		if life := time.Duration(exp-start) * time.Second; life > LongLifetime {
			r.add("long_lifetime", SeverityLow, "valid for "+human(life)+" from "+from+", more than a day: a stolen token stays useful for long")
		}
	}
	if _, ok := member(r.Claims, "aud"); !ok {
		r.add("aud_missing", SeverityLow, "no aud: a token minted for one service may be accepted by another that trusts the same issuer")
	}
	if _, ok := member(r.Claims, "iss"); !ok {
		r.add("iss_missing", SeverityLow, "no iss: the server cannot tell which issuer minted the token")
	}
}

// relative says when t is from now: "in 2h 5m", "3d 4h ago", "now".
func relative(t, now time.Time) string {
	d := t.Sub(now)
	switch {
	case d > -time.Second && d < time.Second:
		return "now"
	case d > 0:
		return "in " + human(d)
	}
	return human(-d) + " ago"
}

// human writes a duration in its two largest units: "3d 4h", "2h 5m",
// "45s", "2y 30d".
func human(d time.Duration) string {
	s := int64(d / time.Second)
	units := []struct {
		n    int64
		name string
	}{{365 * 86400, "y"}, {86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}}
	var parts []string
	for _, u := range units {
		if s >= u.n && len(parts) < 2 {
			parts = append(parts, fmt.Sprintf("%d%s", s/u.n, u.name))
			s %= u.n
		} else if len(parts) > 0 {
			break
		}
	}
	if len(parts) == 0 {
		return "0s"
	}
	return strings.Join(parts, " ")
}
