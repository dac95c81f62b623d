// Package credentialtest is the behaviour suite every credential.Store
// adapter must pass. An adapter's test calls Run with a function that sets
// up a fresh, empty database and returns an opener of handles on it; two
// handles stand in for two replicas.
package credentialtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/credential"
)

// Opener opens a new handle on one database and registers its cleanup.
type Opener func(t *testing.T) credential.Store

// Run runs the suite; newDB is called once per subtest.
func Run(t *testing.T, newDB func(t *testing.T) Opener) {
	for _, tt := range []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"RoundTrip", testRoundTrip},
		{"Duplicates", testDuplicates},
		{"List", testList},
		{"Revoke", testRevoke},
		{"RevocationReachesEveryReplica", testRevocationAcrossReplicas},
		{"KeysAuthenticate", testKeys},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newDB(t)) })
	}
}

var t0 = time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC)

func row(id, kind, tenant string) credential.Credential {
	return credential.Credential{ID: id, Kind: kind, Tenant: tenant, Entitlements: []string{"keysweep", "util_*"},
		Label: "ci", Created: t0, KeyHash: []byte("0123456789abcdef0123456789abcdef")}
}

func testRoundTrip(t *testing.T, open Opener) {
	s := open(t)
	ctx := t.Context()
	k := row("00000000000000a1", credential.KindAPIKey, "acme")
	k.Expires = t0.Add(time.Hour)
	if err := s.CreateCredential(ctx, k); err != nil {
		t.Fatal(err)
	}
	got, err := s.CredentialByID(ctx, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(k, got); diff != "" {
		t.Errorf("API key row (-want +got):\n%s", diff)
	}
	j := row("00000000000000a2", credential.KindJWT, "acme")
	j.KeyHash, j.Issuer, j.Subject = nil, "https://idp.example", "sam"
	if err := s.CreateCredential(ctx, j); err != nil {
		t.Fatal(err)
	}
	got, err = s.CredentialBySubject(ctx, "https://idp.example", "acme", "sam")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(j, got); diff != "" {
		t.Errorf("JWT row (-want +got):\n%s", diff)
	}
	for _, f := range []func() error{
		func() error { _, err := s.CredentialByID(ctx, "ffffffffffffffff"); return err },
		func() error { _, err := s.CredentialBySubject(ctx, "https://idp.example", "globex", "sam"); return err },
		func() error { _, err := s.CredentialBySubject(ctx, "https://other.example", "acme", "sam"); return err },
		func() error { _, err := s.CredentialBySubject(ctx, "", "acme", ""); return err },
	} {
		if err := f(); !errors.Is(err, credential.ErrNotFound) {
			t.Errorf("unknown row: %v, want ErrNotFound", err)
		}
	}
}

func testDuplicates(t *testing.T, open Opener) {
	s := open(t)
	ctx := t.Context()
	j := row("00000000000000b1", credential.KindJWT, "acme")
	j.Issuer, j.Subject = "https://idp.example", "sam"
	if err := s.CreateCredential(ctx, j); err != nil {
		t.Fatal(err)
	}
	again := j
	again.ID = "00000000000000b2"
	if err := s.CreateCredential(ctx, again); !errors.Is(err, credential.ErrExists) {
		t.Errorf("the same subject bound twice in a tenant: %v", err)
	}
	other := again
	other.Tenant = "globex"
	if err := s.CreateCredential(ctx, other); err != nil {
		t.Errorf("the same subject in another tenant: %v", err)
	}
	if err := s.CreateCredential(ctx, row(j.ID, credential.KindAPIKey, "acme")); !errors.Is(err, credential.ErrExists) {
		t.Errorf("an id used twice: %v", err)
	}
}

func testList(t *testing.T, open Opener) {
	s := open(t)
	ctx := t.Context()
	for i, tenant := range []string{"acme", "globex", "acme"} {
		r := row("00000000000000c"+string(rune('1'+i)), credential.KindAPIKey, tenant)
		r.Created = t0.Add(time.Duration(i) * time.Minute)
		if err := s.CreateCredential(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.ListCredentials(ctx, credential.Filter{Limit: 10})
	if err != nil || len(all) != 3 || all[0].ID != "00000000000000c1" || all[2].ID != "00000000000000c3" {
		t.Fatalf("list: %v %+v", err, all)
	}
	acme, err := s.ListCredentials(ctx, credential.Filter{Tenant: "acme", Limit: 10})
	if err != nil || len(acme) != 2 {
		t.Errorf("list by tenant: %v %d", err, len(acme))
	}
	one, _ := s.ListCredentials(ctx, credential.Filter{Limit: 1})
	if len(one) != 1 {
		t.Errorf("limit 1: %d rows", len(one))
	}
	jwt, _ := s.ListCredentials(ctx, credential.Filter{Kind: credential.KindJWT, Limit: 10})
	if len(jwt) != 0 {
		t.Errorf("list by kind: %d rows", len(jwt))
	}
}

func testRevoke(t *testing.T, open Opener) {
	s := open(t)
	ctx := t.Context()
	r := row("00000000000000d1", credential.KindAPIKey, "acme")
	if err := s.CreateCredential(ctx, r); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Hour)
	if ok, err := s.RevokeCredential(ctx, r.ID, at); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	if ok, err := s.RevokeCredential(ctx, r.ID, at.Add(time.Hour)); ok || err != nil {
		t.Errorf("second revoke: %v %v, want false", ok, err)
	}
	if ok, err := s.RevokeCredential(ctx, "ffffffffffffffff", at); ok || err != nil {
		t.Errorf("revoke unknown: %v %v", ok, err)
	}
	got, _ := s.CredentialByID(ctx, r.ID)
	if !got.Revoked.Equal(at) || got.Active(at) {
		t.Errorf("revoked at %v, active %v", got.Revoked, got.Active(at))
	}
}

// testRevocationAcrossReplicas: a key revoked through one replica is
// refused by a registry on the other once its cached answer is older than
// the TTL, and not before.
func testRevocationAcrossReplicas(t *testing.T, open Opener) {
	a, b := open(t), open(t)
	now := t0
	clock := func() time.Time { return now }
	regA := credential.New(a, &credential.Options{Now: clock, TTL: 30 * time.Second})
	regB := credential.New(b, &credential.Options{Now: clock, TTL: 30 * time.Second})
	ctx := context.Background()
	c, key, err := regA.Create(ctx, credential.Spec{Tenant: "acme", Entitlements: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := regB.AuthenticateKey(ctx, key); err != nil {
		t.Fatalf("replica B before revocation: %v", err)
	}
	if _, err := regA.Revoke(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := regA.AuthenticateKey(ctx, key); !credential.IsRefusal(err) {
		t.Errorf("replica A right after revoking: %v", err)
	}
	now = now.Add(29 * time.Second)
	if _, err := regB.AuthenticateKey(ctx, key); err != nil {
		t.Errorf("replica B within the TTL answers from its cache: %v", err)
	}
	now = now.Add(2 * time.Second)
	if _, err := regB.AuthenticateKey(ctx, key); !credential.IsRefusal(err) {
		t.Errorf("replica B past the TTL: %v, want credential_binding_failed", err)
	}
}

func testKeys(t *testing.T, open Opener) {
	s := open(t)
	now := t0
	reg := credential.New(s, &credential.Options{Now: func() time.Time { return now }})
	ctx := t.Context()
	c, key, err := reg.Create(ctx, credential.Spec{Tenant: "acme", Entitlements: []string{"keysweep"}, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.AuthenticateKey(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	want := auth.Principal{Issuer: credential.Issuer, Subject: c.ID, Credential: c.ID, Tenant: "acme",
		Entitlements: []string{"keysweep"}, IssuedAt: c.Created, ExpiresAt: c.Expires}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("principal (-want +got):\n%s", diff)
	}
	wrong := key[:len(key)-1] + "A"
	if key[len(key)-1] == 'A' {
		wrong = key[:len(key)-1] + "B"
	}
	for _, k := range []string{wrong, "wdn_", key + "x", "wdn_ffffffffffffffff_" + key[len(key)-43:]} {
		if _, err := reg.AuthenticateKey(ctx, k); !credential.IsRefusal(err) {
			t.Errorf("key %.12q…: %v, want a refusal", k, err)
		}
	}
	now = now.Add(time.Hour)
	if _, err := reg.AuthenticateKey(ctx, key); !credential.IsRefusal(err) {
		t.Errorf("expired key: %v", err)
	}
}
