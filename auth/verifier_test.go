package auth

import (
	"context"
	"encoding/asn1"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestVerifyAttacks is the attack table of research/auth-quotas-storage.md §2.4 (row numbers in the
// names) plus the cases the issue adds. Each rejection must happen for the
// stated reason, so a case cannot pass by failing somewhere else.
func TestVerifyAttacks(t *testing.T) {
	k := loadKeys(t)
	with := func(edit func(map[string]any)) map[string]any {
		c := claims()
		edit(c)
		return c
	}
	payload := mustJSON(t, claims())
	rs := func(in string) []byte { return sigRS256(k.rsa, in) }
	es := func(in string) []byte { return sigES(k.ec, in) }
	pemKey := "-----BEGIN PUBLIC KEY-----\n" + b64.EncodeToString(k.rsa.PublicKey.N.Bytes()) + "\n-----END PUBLIC KEY-----\n"

	validES := tokenES(t, claims())
	esParts := strings.Split(validES, ".")
	esSig, _ := b64.DecodeString(esParts[2])
	esWithSig := func(sig []byte) string { return esParts[0] + "." + esParts[1] + "." + b64.EncodeToString(sig) }
	r := new(big.Int).SetBytes(esSig[:32])
	s := new(big.Int).SetBytes(esSig[32:])
	highS := make([]byte, 64)
	r.FillBytes(highS[:32])
	new(big.Int).Sub(p256Order, s).FillBytes(highS[32:])
	der, _ := asn1.Marshal(struct{ R, S *big.Int }{r, s})
	rEqualsN := make([]byte, 64)
	p256Order.FillBytes(rEqualsN[:32])
	copy(rEqualsN[32:], esSig[32:])

	bigClaims := claims()
	bigClaims["pad"] = strings.Repeat("x", 1<<20)

	tests := []struct {
		name   string
		token  string
		reason string // "" = accepted
	}{
		{"01 valid RS256", tokenRS(t, claims()), ""},
		{"02 valid ES256", validES, ""},
		{"03 alg none, empty signature", signingInput(`{"alg":"none","kid":"rsa-1"}`, payload) + ".", ReasonMalformedToken},
		{"03 alg none, some signature", rawToken(`{"alg":"none","kid":"rsa-1"}`, payload, rs), ReasonAlgNotAllowed},
		{"04 alg None", rawToken(`{"alg":"None","kid":"rsa-1"}`, payload, rs), ReasonAlgNotAllowed},
		{"04 alg nOnE", rawToken(`{"alg":"nOnE","kid":"rsa-1"}`, payload, rs), ReasonAlgNotAllowed},
		{"05 HS256 keyed with the RSA public key PEM", rawToken(`{"alg":"HS256","kid":"rsa-1"}`, payload, func(in string) []byte { return sigHS256([]byte(pemKey), in) }), ReasonAlgNotAllowed},
		{"06 HS256 keyed with the modulus, kid without alg", rawToken(`{"alg":"HS256","kid":"rsa-noalg"}`, payload, func(in string) []byte { return sigHS256(k.rsa.PublicKey.N.Bytes(), in) }), ReasonAlgNotAllowed},
		{"07 HS256 with an oct key published in the JWKS", rawToken(`{"alg":"HS256","kid":"oct-1"}`, payload, func(in string) []byte { return sigHS256([]byte(hmacSecret), in) }), ReasonAlgNotAllowed},
		{"07 RS256 header naming the oct key", rawToken(`{"alg":"RS256","kid":"oct-1"}`, payload, rs), ReasonKeyRejected},
		{"08 RS512 by the trusted key", rawToken(`{"alg":"RS512","kid":"rsa-1"}`, payload, func(in string) []byte { return sigRS512(k.rsa, in) }), ReasonAlgNotAllowed},
		{"09 PS256 by the trusted key", rawToken(`{"alg":"PS256","kid":"rsa-1"}`, payload, func(in string) []byte { return sigPS256(k.rsa, in) }), ReasonAlgNotAllowed},
		{"09 RS256 naming a key published for PS256", rawToken(`{"alg":"RS256","kid":"rsa-ps"}`, payload, rs), ReasonKeyRejected},
		{"10 alg rs256", rawToken(`{"alg":"rs256","kid":"rsa-1"}`, payload, rs), ReasonAlgNotAllowed},
		{"10 alg as a number", rawToken(`{"alg":256,"kid":"rsa-1"}`, payload, rs), ReasonAlgNotAllowed},
		{"11 unknown kid", rawToken(`{"alg":"RS256","kid":"attacker"}`, payload, func(in string) []byte { return sigRS256(k.rsaAttacker, in) }), ReasonUnknownKID},
		{"12 missing kid, trusted signature", rawToken(`{"alg":"RS256"}`, payload, rs), ReasonMissingKID},
		{"12 empty kid", rawToken(`{"alg":"RS256","kid":""}`, payload, rs), ReasonMalformedJOSE},
		{"12 kid not a string", rawToken(`{"alg":"RS256","kid":1}`, payload, rs), ReasonMalformedJOSE},
		{"13 known kid, attacker RSA signature", rawToken(`{"alg":"RS256","kid":"rsa-1"}`, payload, func(in string) []byte { return sigRS256(k.rsaAttacker, in) }), ReasonBadSignature},
		{"13 known kid, attacker EC signature", rawToken(`{"alg":"ES256","kid":"ec-1"}`, payload, func(in string) []byte { return sigES(k.ecAttacker, in) }), ReasonBadSignature},
		{"14 ES256 naming an RSA key", rawToken(`{"alg":"ES256","kid":"rsa-1"}`, payload, es), ReasonAlgKeyMismatch},
		{"14 RS256 naming an EC key", rawToken(`{"alg":"RS256","kid":"ec-1"}`, payload, rs), ReasonAlgKeyMismatch},
		{"15 expired 5 min ago", tokenRS(t, with(func(c map[string]any) {
			c["exp"] = t0.Add(-5 * time.Minute).Unix()
			c["iat"] = t0.Add(-time.Hour).Unix()
		})), ReasonExpired},
		{"16 expired 10 s ago, inside the skew", tokenRS(t, with(func(c map[string]any) { c["exp"] = t0.Add(-10 * time.Second).Unix() })), ""},
		{"17 nbf 5 min ahead", tokenRS(t, with(func(c map[string]any) { c["nbf"] = t0.Add(5 * time.Minute).Unix() })), ReasonNotYetValid},
		{"17 nbf 10 s ahead, inside the skew", tokenRS(t, with(func(c map[string]any) { c["nbf"] = t0.Add(10 * time.Second).Unix() })), ""},
		{"18 iat 5 min ahead", tokenRS(t, with(func(c map[string]any) { c["iat"] = t0.Add(5 * time.Minute).Unix() })), ReasonIssuedInFuture},
		{"19 missing exp", tokenRS(t, with(func(c map[string]any) { delete(c, "exp") })), ReasonMissingExpiry},
		{"19 missing iat", tokenRS(t, with(func(c map[string]any) { delete(c, "iat") })), ReasonMissingIssuedAt},
		{"20 exp as a string", tokenRS(t, with(func(c map[string]any) { c["exp"] = "9999999999" })), ReasonMalformedClaims},
		{"20 exp null", tokenRS(t, with(func(c map[string]any) { c["exp"] = nil })), ReasonMalformedClaims},
		{"20 exp negative", tokenRS(t, with(func(c map[string]any) { c["exp"] = -1 })), ReasonMalformedClaims},
		{"21 exp 10 years after iat", tokenRS(t, with(func(c map[string]any) { c["exp"] = t0.AddDate(10, 0, 0).Unix() })), ReasonLifetimeTooLong},
		{"21 exp before iat", tokenRS(t, with(func(c map[string]any) { c["iat"] = t0.Unix(); c["exp"] = t0.Add(-time.Second).Unix() })), ReasonInvalidClaim},
		{"22 wrong iss", tokenRS(t, with(func(c map[string]any) { c["iss"] = "https://evil.example" })), ReasonIssuerMismatch},
		{"22 missing iss", tokenRS(t, with(func(c map[string]any) { delete(c, "iss") })), ReasonIssuerMismatch},
		{"23 wrong aud", tokenRS(t, with(func(c map[string]any) { c["aud"] = "https://other.example.com/mcp" })), ReasonAudienceMismatch},
		{"23 missing aud", tokenRS(t, with(func(c map[string]any) { delete(c, "aud") })), ReasonAudienceMismatch},
		{"23 aud of another path", tokenRS(t, with(func(c map[string]any) { c["aud"] = "https://mcp.example.com/mcp/admin" })), ReasonAudienceMismatch},
		{"56 OIDC ID token (aud is the client id)", tokenRS(t, with(func(c map[string]any) { c["aud"] = "client-abc123"; c["nonce"] = "n" })), ReasonAudienceMismatch},
		{"23 aud empty array", tokenRS(t, with(func(c map[string]any) { c["aud"] = []string{} })), ReasonAudienceMismatch},
		{"23 aud not a string", tokenRS(t, with(func(c map[string]any) { c["aud"] = 1 })), ReasonMalformedClaims},
		{"24 aud array containing ours", tokenRS(t, with(func(c map[string]any) { c["aud"] = []string{"https://other.example", testAudience} })), ""},
		{"25 aud with trailing slash", tokenRS(t, with(func(c map[string]any) { c["aud"] = testAudience + "/" })), ""},
		{"25 aud with upper-case scheme and host, default port", tokenRS(t, with(func(c map[string]any) { c["aud"] = "HTTPS://MCP.Example.COM:443/mcp" })), ""},
		{"25 aud with upper-case path", tokenRS(t, with(func(c map[string]any) { c["aud"] = "https://mcp.example.com/MCP" })), ReasonAudienceMismatch},
		{"26 jku to an attacker JWKS", rawToken(`{"alg":"RS256","kid":"rsa-1","jku":"https://evil.example/jwks"}`, payload, rs), ReasonHeaderNotAllowed},
		{"27 x5u", rawToken(`{"alg":"RS256","kid":"rsa-1","x5u":"https://evil.example/cert"}`, payload, rs), ReasonHeaderNotAllowed},
		{"28 embedded jwk with kid", rawToken(`{"alg":"ES256","kid":"ec-1","jwk":`+mustJSON(t, ecJWK("ec-1", "ES256", &k.ecAttacker.PublicKey))+`}`, payload, func(in string) []byte { return sigES(k.ecAttacker, in) }), ReasonHeaderNotAllowed},
		{"28 embedded jwk without kid", rawToken(`{"alg":"ES256","jwk":`+mustJSON(t, ecJWK("x", "ES256", &k.ecAttacker.PublicKey))+`}`, payload, func(in string) []byte { return sigES(k.ecAttacker, in) }), ReasonHeaderNotAllowed},
		{"28 x5c chain", rawToken(`{"alg":"RS256","kid":"rsa-1","x5c":["MIIB"]}`, payload, rs), ReasonHeaderNotAllowed},
		{"29 crit with an unknown extension", rawToken(`{"alg":"RS256","kid":"rsa-1","crit":["x"],"x":1}`, payload, rs), ReasonCritUnsupported},
		{"29 crit empty", rawToken(`{"alg":"RS256","kid":"rsa-1","crit":[]}`, payload, rs), ReasonCritUnsupported},
		{"29 b64 false", rawToken(`{"alg":"RS256","kid":"rsa-1","b64":false}`, payload, rs), ReasonHeaderNotAllowed},
		{"29 zip", rawToken(`{"alg":"RS256","kid":"rsa-1","zip":"DEF"}`, payload, rs), ReasonHeaderNotAllowed},
		{"29 nested JWT by cty", rawToken(`{"alg":"RS256","kid":"rsa-1","cty":"JWT"}`, payload, rs), ReasonHeaderNotAllowed},
		{"30 1 MiB of validly signed claims", tokenRS(t, bigClaims), ReasonTokenTooLarge},
		{"31 100k dots", strings.Repeat(".", 100_000), ReasonTokenTooLarge},
		{"31 three dots", validES + ".", ReasonMalformedToken},
		{"32 ES256 r = s = 0", esWithSig(make([]byte, 64)), ReasonBadSignature},
		{"33 ES256 r = n", esWithSig(rEqualsN), ReasonBadSignature},
		{"34 ES256 DER-encoded signature", esWithSig(der), ReasonBadSignature},
		{"34 ES256 63-byte signature", esWithSig(esSig[:63]), ReasonBadSignature},
		{"34 ES256 65-byte signature", esWithSig(append([]byte{0}, esSig...)), ReasonBadSignature},
		{"35 ES256 high-S variant verifies (malleable; never key on signature bytes)", esWithSig(highS), ""},
		{"36 ES256 naming a P-384 key", rawToken(`{"alg":"ES256","kid":"ec-384"}`, payload, func(in string) []byte { return sigES(k.ec384, in) }), ReasonKeyRejected},
		{"37 RS256 by a 1024-bit key in the JWKS", rawToken(`{"alg":"RS256","kid":"rsa-weak"}`, payload, func(in string) []byte { return sigRS256(k.rsaWeak, in) }), ReasonKeyRejected},
		{"38 = padding", strings.Replace(validES, ".", "=.", 1), ReasonMalformedToken},
		{"38 standard base64 + and /", esParts[0] + "." + esParts[1] + "." + strings.NewReplacer("-", "+", "_", "/").Replace(esParts[2]) + "+/", ReasonMalformedToken},
		{"38 non-canonical final base64 character", esParts[0] + "." + esParts[1] + "." + flipLowBits(esParts[2]), ReasonMalformedToken},
		{"39 trailing white space", validES + " ", ReasonMalformedToken},
		{"39 embedded newline", esParts[0] + ".\n" + esParts[1] + "." + esParts[2], ReasonMalformedToken},
		{"40 duplicate alg, RS256 then none", rawToken(`{"alg":"RS256","alg":"none","kid":"rsa-1"}`, payload, rs), ReasonDuplicateMember},
		{"41 duplicate alg, none then RS256", rawToken(`{"alg":"none","alg":"RS256","kid":"rsa-1"}`, payload, rs), ReasonDuplicateMember},
		{"41 duplicate kid by escape", rawToken(`{"alg":"RS256","kid":"rsa-1","\u006bid":"ec-1"}`, payload, rs), ReasonDuplicateMember},
		{"41 duplicate sub in the payload", rawToken(`{"alg":"RS256","kid":"rsa-1"}`, strings.Replace(payload, `"sub":"cred-1"`, `"sub":"cred-1","sub":"admin"`, 1), rs), ReasonDuplicateMember},
		{"41 duplicate tenant by escape in the payload", rawToken(`{"alg":"RS256","kid":"rsa-1"}`, strings.Replace(payload, `"tenant":"tenant-a"`, `"tenant":"tenant-a","\u0074enant":"tenant-b"`, 1), rs), ReasonDuplicateMember},
		{"41 duplicate member nested in the payload", rawToken(`{"alg":"RS256","kid":"rsa-1"}`, strings.Replace(payload, `"sub"`, `"x":{"a":1,"a":2},"sub"`, 1), rs), ReasonDuplicateMember},
		{"42 JWE-shaped five segments", "eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d", ReasonMalformedToken},
		{"43 typ at+jwt", tokenRS(t, claims()), ""},
		{"header is an array", rawToken(`["alg","RS256"]`, payload, rs), ReasonMalformedJOSE},
		{"header with trailing data", rawToken(`{"alg":"RS256","kid":"rsa-1"}{}`, payload, rs), ReasonMalformedJOSE},
		{"header over 1 KiB", rawToken(`{"alg":"RS256","kid":"rsa-1","pad":"`+strings.Repeat("p", 1100)+`"}`, payload, rs), ReasonTokenTooLarge},
		{"payload not JSON", rawToken(`{"alg":"RS256","kid":"rsa-1"}`, "not json", rs), ReasonMalformedClaims},
		{"payload with invalid UTF-8", rawToken(`{"alg":"RS256","kid":"rsa-1"}`, strings.Replace(payload, "cred-1", "cred-\xff", 1), rs), ReasonMalformedClaims},
		{"empty token", "", ReasonMalformedToken},
		{"missing tenant", tokenRS(t, with(func(c map[string]any) { delete(c, "tenant") })), ReasonMissingTenant},
		{"tenant not a string", tokenRS(t, with(func(c map[string]any) { c["tenant"] = []string{"a"} })), ReasonInvalidClaim},
		{"no sub, jti identifies the credential", tokenRS(t, with(func(c map[string]any) { delete(c, "sub") })), ""},
		{"neither sub nor jti", tokenRS(t, with(func(c map[string]any) { delete(c, "sub"); delete(c, "jti") })), ReasonMissingCredential},
		{"entitlements not strings", tokenRS(t, with(func(c map[string]any) { c["entitlements"] = []int{1} })), ReasonInvalidClaim},
		{"entitlement with a bad character", tokenRS(t, with(func(c map[string]any) { c["entitlements"] = []string{"keysweep*"} })), ReasonInvalidClaim},
		{"scope with a quote", tokenRS(t, with(func(c map[string]any) { c["scope"] = `mcp"x` })), ReasonInvalidClaim},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _ := fileVerifier(t, standardJWKS(t), nil)
			p, err := v.Verify(context.Background(), tt.token)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("Verify: %v, want accepted", err)
				}
				if p.Tenant != "tenant-a" || p.Credential == "" {
					t.Fatalf("principal = %+v", p)
				}
				return
			}
			if err == nil {
				t.Fatalf("Verify accepted the token, want %s", tt.reason)
			}
			var ae *Error
			if !errors.As(err, &ae) || ae.Reason != tt.reason || ae.Code != CodeInvalidToken || ae.Status != 401 {
				t.Fatalf("Verify error = %v, want invalid_token (%s)", err, tt.reason)
			}
			if len(tt.token) > 20 && strings.Contains(err.Error(), tt.token[:20]) {
				t.Fatalf("error text contains token text: %v", err)
			}
		})
	}
}

// flipLowBits changes the last base64url character so that only its unused
// low bits differ: lenient decoders yield the same bytes, strict ones refuse.
func flipLowBits(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, s[len(s)-1])
	return s[:len(s)-1] + string(alphabet[last|1])
}

func TestVerifyPrincipal(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), nil)
	c := claims()
	c["client_id"] = "client-9"
	c["nbf"] = t0.Add(-time.Minute).Unix()
	p, err := v.Verify(context.Background(), tokenES(t, c))
	if err != nil {
		t.Fatal(err)
	}
	want := Principal{
		Issuer: testIssuer, Subject: "cred-1", TokenID: "jti-1", Credential: "cred-1", ClientID: "client-9",
		Tenant: "tenant-a", Entitlements: []string{"keysweep", "webscan_check_headers"}, Scopes: []string{"mcp:tools"},
		KeyID: "ec-1", IssuedAt: t0.Add(-time.Minute), ExpiresAt: t0.Add(time.Hour),
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("principal (-want +got):\n%s", diff)
	}
}

func TestVerifyClaimNames(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), func(c *Config) {
		c.ClaimNames = ClaimNames{Credential: "client_id", Tenant: "org", Entitlements: "tools", Scope: "scp"}
	})
	c := claims()
	delete(c, "tenant")
	delete(c, "entitlements")
	delete(c, "scope")
	c["client_id"] = "client-9"
	c["org"] = "org-7"
	c["tools"] = "keysweep_* webscan"
	c["scp"] = []string{"a", "b"}
	p, err := v.Verify(context.Background(), tokenRS(t, c))
	if err != nil {
		t.Fatal(err)
	}
	got := []any{p.Credential, p.Tenant, p.Entitlements, p.Scopes}
	want := []any{"client-9", "org-7", []string{"keysweep_*", "webscan"}, []string{"a", "b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The default tenant claim means nothing under the renamed config.
	c = claims()
	if _, err := v.Verify(context.Background(), tokenRS(t, c)); !errors.Is(err, &Error{Code: CodeInvalidToken, Reason: ReasonMissingTenant}) {
		t.Fatalf("default claim names under renamed config: %v", err)
	}
}

func TestVerifyAcceptedTypes(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), func(c *Config) { c.AcceptedTypes = []string{"at+jwt"} })
	payload := mustJSON(t, claims())
	rs := func(in string) []byte { return sigRS256(loadKeys(t).rsa, in) }
	for _, tc := range []struct {
		hdr    string
		reason string
	}{
		{`{"alg":"RS256","kid":"rsa-1","typ":"at+jwt"}`, ""},
		{`{"alg":"RS256","kid":"rsa-1","typ":"application/AT+JWT"}`, ""},
		{`{"alg":"RS256","kid":"rsa-1","typ":"JWT"}`, ReasonTypeNotAccepted},
		{`{"alg":"RS256","kid":"rsa-1"}`, ReasonTypeNotAccepted},
		{`{"alg":"RS256","kid":"rsa-1","typ":7}`, ReasonMalformedJOSE},
	} {
		_, err := v.Verify(context.Background(), rawToken(tc.hdr, payload, rs))
		if tc.reason == "" && err != nil || tc.reason != "" && !errors.Is(err, &Error{Code: CodeInvalidToken, Reason: tc.reason}) {
			t.Errorf("%s: err = %v, want %q", tc.hdr, err, tc.reason)
		}
	}
}

func TestVerifiedCache(t *testing.T) {
	v, clk := fileVerifier(t, standardJWKS(t), nil)
	c := claims()
	c["exp"] = t0.Add(2 * time.Minute).Unix()
	tok := tokenES(t, c)
	p1, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(v.cache.m); n != 1 {
		t.Fatalf("cache holds %d entries, want 1", n)
	}
	// A cached principal is a copy: editing it must not leak into the next hit.
	p1.Entitlements[0] = "*"
	p2, err := v.Verify(context.Background(), tok)
	if err != nil || p2.Entitlements[0] != "keysweep" {
		t.Fatalf("second verify: %v, entitlements %v", err, p2.Entitlements)
	}
	// The cache honours expiry (exp + skew).
	clk.Advance(2*time.Minute + DefaultSkew + time.Second)
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, &Error{Code: CodeInvalidToken, Reason: ReasonExpired}) {
		t.Fatalf("after expiry: %v", err)
	}
}

func TestVerifiedCacheBounded(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), func(c *Config) { c.VerifiedCacheSize = 16 })
	for i := range 100 {
		c := claims()
		c["jti"] = "jti-" + string(rune('a'+i%26)) + strings.Repeat("x", i)
		if _, err := v.Verify(context.Background(), tokenES(t, c)); err != nil {
			t.Fatal(err)
		}
		if n := len(v.cache.m); n > 16 {
			t.Fatalf("cache grew to %d entries, bound 16", n)
		}
	}
}

func TestVerifiedCacheDisabled(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), func(c *Config) { c.VerifiedCacheSize = -1 })
	if v.cache != nil {
		t.Fatal("cache present with VerifiedCacheSize -1")
	}
	if _, err := v.Verify(context.Background(), tokenES(t, claims())); err != nil {
		t.Fatal(err)
	}
}
