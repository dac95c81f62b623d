package auth

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadOrCreateLocalKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	li, err := LoadOrCreateLocalKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, LocalKeyFile): 0o600} {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != want {
				t.Errorf("%s mode %v, want %v", path, got, want)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("state directory holds %d entries, want only the key", len(entries))
	}
	again, err := LoadOrCreateLocalKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.KeyID() != li.KeyID() || string(again.JWKS()) != string(li.JWKS()) {
		t.Fatal("second load produced a different key")
	}
}

func TestLoadOrCreateLocalKeyConcurrent(t *testing.T) {
	dir := t.TempDir()
	kids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range kids {
		wg.Go(func() {
			li, err := LoadOrCreateLocalKey(dir)
			if err != nil {
				t.Error(err)
				return
			}
			kids[i] = li.KeyID()
		})
	}
	wg.Wait()
	for _, k := range kids {
		if k != kids[0] {
			t.Fatalf("concurrent starts disagree on the key: %v", kids)
		}
	}
}

func TestLoadOrCreateLocalKeyRefusesOpenOrForeignFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX permissions")
	}
	dir := t.TempDir()
	if _, err := LoadOrCreateLocalKey(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, LocalKeyFile)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateLocalKey(dir); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("group-readable key: %v", err)
	}
	for name, pemFile := range map[string]string{"RSA key": "rsa2048.pem", "P-384 key": "p384.pem"} {
		d := t.TempDir()
		data, _ := os.ReadFile(filepath.Join("testdata", "keys", pemFile))
		writeFile(t, filepath.Join(d, LocalKeyFile), data)
		if _, err := LoadOrCreateLocalKey(d); err == nil || !strings.Contains(err.Error(), "P-256") {
			t.Errorf("%s: %v", name, err)
		}
	}
	d := t.TempDir()
	writeFile(t, filepath.Join(d, LocalKeyFile), []byte("not pem"))
	if _, err := LoadOrCreateLocalKey(d); err == nil {
		t.Error("garbage key file accepted")
	}
}

func TestLocalIssuerMintAndVerify(t *testing.T) {
	li, err := LoadOrCreateLocalKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	clk := newFakeClock()
	v, err := li.Verifier(Config{Audience: "http://127.0.0.1:8080/mcp", Clock: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := li.Mint(TokenSpec{
		Audience: "http://127.0.0.1:8080/mcp", Subject: "dev", Tenant: "local",
		Entitlements: []string{"keysweep", "webscan_*"}, Scopes: []string{"mcp:tools"},
		Lifetime: 2 * time.Hour, IssuedAt: t0,
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	p.TokenID = "" // random
	want := Principal{Issuer: LocalIssuerID, Subject: "dev", Credential: "dev", Tenant: "local",
		Entitlements: []string{"keysweep", "webscan_*"}, Scopes: []string{"mcp:tools"},
		KeyID: li.KeyID(), IssuedAt: t0, ExpiresAt: t0.Add(2 * time.Hour)}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("principal (-want +got):\n%s", diff)
	}
	// The local set never goes stale and never fetches.
	clk.Advance(time.Hour)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("an hour later: %v", err)
	}
	clk.Advance(2 * time.Hour)
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, &Error{Code: CodeInvalidToken, Reason: ReasonExpired}) {
		t.Fatalf("after expiry: %v", err)
	}
	// Another machine's key is not trusted.
	other, err := LoadOrCreateLocalKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	foreign, _ := other.Mint(TokenSpec{Audience: "http://127.0.0.1:8080/mcp", Subject: "dev", Tenant: "local", IssuedAt: clk.Now()})
	if _, err := v.Verify(context.Background(), foreign); !errors.Is(err, &Error{Code: CodeInvalidToken, Reason: ReasonUnknownKID}) {
		t.Fatalf("foreign local key: %v", err)
	}
}

// TestLocalIssuerJWKSServesExternalVerifier: a verifier configured the way a
// second process would be (JWKS fetched over HTTP) accepts minted tokens.
func TestLocalIssuerJWKSServesExternalVerifier(t *testing.T) {
	li, err := LoadOrCreateLocalKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(li.JWKSHandler())
	defer srv.Close()
	v, err := NewVerifier(Config{Issuer: LocalIssuerID, Audience: testAudience, JWKSURL: srv.URL + "/.well-known/jwks.json"})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := li.Mint(TokenSpec{Audience: testAudience, Subject: "dev", Tenant: "local", Entitlements: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Entitled("keysweep_scan_text") {
		t.Fatal("\"*\" entitlement lost")
	}
}

func TestMintRefusesBadSpecs(t *testing.T) {
	li, err := LoadOrCreateLocalKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ok := TokenSpec{Audience: testAudience, Subject: "dev", Tenant: "local"}
	tests := []struct {
		name string
		mod  func(*TokenSpec)
	}{
		{"no audience", func(s *TokenSpec) { s.Audience = "" }},
		{"audience with query", func(s *TokenSpec) { s.Audience = testAudience + "?x" }},
		{"no subject", func(s *TokenSpec) { s.Subject = "" }},
		{"no tenant", func(s *TokenSpec) { s.Tenant = "" }},
		{"tenant with newline", func(s *TokenSpec) { s.Tenant = "a\nb" }},
		{"lifetime over the cap", func(s *TokenSpec) { s.Lifetime = 25 * time.Hour }},
		{"negative lifetime", func(s *TokenSpec) { s.Lifetime = -time.Second }},
		{"bad entitlement", func(s *TokenSpec) { s.Entitlements = []string{"key sweep"} }},
		{"bad scope", func(s *TokenSpec) { s.Scopes = []string{`a"b`} }},
	}
	for _, tt := range tests {
		s := ok
		tt.mod(&s)
		if _, err := li.Mint(s); err == nil {
			t.Errorf("%s: minted", tt.name)
		}
	}
	if _, err := li.Mint(ok); err != nil {
		t.Fatalf("valid spec: %v", err)
	}
}

func TestLocalIssuerVerifierConfig(t *testing.T) {
	li, err := LoadOrCreateLocalKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]Config{
		"foreign issuer": {Issuer: testIssuer, Audience: testAudience},
		"JWKS URL":       {Audience: testAudience, JWKSURL: "https://x.example/jwks"},
		"claim names":    {Audience: testAudience, ClaimNames: ClaimNames{Tenant: "org"}},
		"no audience":    {},
	} {
		if _, err := li.Verifier(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestLocalIssuerReadMinted: an authorization server finds the jti and
// client of a token it minted, expired or not, and nothing in a token
// signed by another key or altered.
func TestLocalIssuerReadMinted(t *testing.T) {
	li, err := LoadOrCreateLocalKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other, err := LoadOrCreateLocalKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	iat := time.Now().Add(-3 * time.Hour)
	spec := TokenSpec{Audience: "http://127.0.0.1:8787/mcp", Subject: "s", Tenant: "local", ClientID: "client-1", TokenID: "jti-1", IssuedAt: iat}
	tok, err := li.Mint(spec)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := li.ReadMinted(tok)
	want := MintedToken{TokenID: "jti-1", ClientID: "client-1", ExpiresAt: time.Unix(iat.Add(time.Hour).Unix(), 0)}
	if !ok || got != want {
		t.Fatalf("ReadMinted = %+v, %v; want %+v", got, ok, want)
	}
	foreign, _ := other.Mint(spec)
	for name, s := range map[string]string{"another key": foreign, "altered": tok[:len(tok)-2] + "AA", "garbage": "a.b.c", "empty": ""} {
		if got, ok := li.ReadMinted(s); ok {
			t.Errorf("%s: ReadMinted = %+v, true", name, got)
		}
	}
	if _, err := li.Mint(TokenSpec{Audience: spec.Audience, Subject: "s", Tenant: "local", ClientID: "bad\n"}); err == nil {
		t.Error("a client id with a newline was minted")
	}
}

// TestLocalIssuerDeriveSecret: secrets derived from the key are stable for
// one key and purpose and differ across purposes and keys.
func TestLocalIssuerDeriveSecret(t *testing.T) {
	dir := t.TempDir()
	a, _ := LoadOrCreateLocalKey(dir)
	again, _ := LoadOrCreateLocalKey(dir)
	b, _ := LoadOrCreateLocalKey(t.TempDir())
	if s := a.DeriveSecret("x"); len(s) != 32 || !bytes.Equal(s, again.DeriveSecret("x")) {
		t.Fatal("the same key and purpose gave different secrets")
	}
	if bytes.Equal(a.DeriveSecret("x"), a.DeriveSecret("y")) || bytes.Equal(a.DeriveSecret("x"), b.DeriveSecret("x")) {
		t.Fatal("different purposes or keys gave the same secret")
	}
}
