package auth

import "testing"

func TestParseJWKSKeyPolicy(t *testing.T) {
	k := loadKeys(t)
	e3 := rsaJWK("rsa-e3", "RS256", &k.rsa.PublicKey)
	e3["e"] = "Aw"
	offCurve := ecJWK("ec-off", "ES256", &k.ec.PublicKey)
	offCurve["y"] = offCurve["x"]
	enc := ecJWK("ec-enc", "", &k.ec.PublicKey)
	enc["use"] = "enc"
	ops := ecJWK("ec-ops", "", &k.ec.PublicKey)
	ops["key_ops"] = []string{"sign"}
	priv := ecJWK("ec-priv", "ES256", &k.ec.PublicKey)
	d, err := k.ec.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	priv["d"] = b64.EncodeToString(d)
	keys, err := parseJWKS(jwksOf(t,
		rsaJWK("rsa-1", "RS256", &k.rsa.PublicKey),
		rsaJWK("rsa-weak", "", &k.rsaWeak.PublicKey),
		e3,
		ecJWK("ec-1", "", &k.ec.PublicKey),
		ecJWK("ec-384", "ES384", &k.ec384.PublicKey),
		offCurve, enc, ops, priv,
		map[string]any{"kty": "oct", "kid": "oct", "k": b64.EncodeToString([]byte(hmacSecret))},
		ecJWK("dup", "ES256", &k.ec.PublicKey),
		ecJWK("dup", "ES256", &k.ecAttacker.PublicKey),
		map[string]any{"kty": "OKP", "kid": "ed", "crv": "Ed25519", "x": "AA"},
		map[string]any{"kty": "EC", "crv": "P-256"}, // no kid: unreachable, dropped
	))
	if err != nil {
		t.Fatal(err)
	}
	usable := map[string]bool{}
	for kid, key := range keys {
		usable[kid] = key.rejected == ""
	}
	want := map[string]bool{"rsa-1": true, "rsa-weak": false, "rsa-e3": false, "ec-1": true, "ec-384": false,
		"ec-off": false, "ec-enc": false, "ec-ops": false, "ec-priv": false, "oct": false, "dup": false, "ed": false}
	if len(usable) != len(want) {
		t.Fatalf("keys = %v, want %v", usable, want)
	}
	for kid, ok := range want {
		if usable[kid] != ok {
			t.Errorf("%s usable = %v, want %v (%s)", kid, usable[kid], ok, keys[kid].rejected)
		}
	}
}
