// Package asstoretest is the behaviour suite of asstore.Store: every
// implementation runs [Run] against a fresh store.
package asstoretest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/warden-mcp/warden/auth/asstore"
)

// Run checks s, which must be empty.
func Run(t *testing.T, s asstore.Store) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	t.Run("clients", func(t *testing.T) {
		c := asstore.Client{ID: "c1", Name: "Claude Code", RedirectURIs: []string{"http://127.0.0.1/cb", "https://x.example/cb"}, CreatedAt: now}
		if err := s.CreateClient(ctx, c, 2); err != nil {
			t.Fatal(err)
		}
		got, err := s.Client(ctx, "c1")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c, got, cmpTime); diff != "" {
			t.Fatalf("client (-want +got):\n%s", diff)
		}
		if err := s.CreateClient(ctx, c, 2); !errors.Is(err, asstore.ErrExists) {
			t.Fatalf("duplicate id: %v, want ErrExists", err)
		}
		// At the cap, the oldest client that holds no token makes room;
		// one that holds a token never does.
		c2 := c
		c2.ID, c2.CreatedAt = "c2", now.Add(-time.Hour)
		if err := s.CreateClient(ctx, c2, 2); err != nil {
			t.Fatal(err)
		}
		c3 := c
		c3.ID = "c3"
		if err := s.CreateClient(ctx, c3, 2); err != nil {
			t.Fatalf("third client with max 2, two unused: %v", err)
		}
		if _, err := s.Client(ctx, "c2"); !errors.Is(err, asstore.ErrNotFound) {
			t.Fatalf("the oldest unused client was kept at the cap: %v", err)
		}
		for _, id := range []string{"c1", "c3"} {
			if _, err := s.Client(ctx, id); err != nil {
				t.Fatalf("client %s: %v", id, err)
			}
			hold := asstore.Token{Kind: asstore.KindAccess, Signature: "hold-" + id, GrantID: "g-" + id, ClientID: id, Active: true, ExpiresAt: now.Add(time.Hour)}
			if err := s.PutToken(ctx, hold); err != nil {
				t.Fatal(err)
			}
		}
		c4 := c
		c4.ID = "c4"
		if err := s.CreateClient(ctx, c4, 2); !errors.Is(err, asstore.ErrTooManyClients) {
			t.Fatalf("a client with max 2, both holding tokens: %v, want ErrTooManyClients", err)
		}
		for _, id := range []string{"c1", "c3"} {
			if _, err := s.Client(ctx, id); err != nil {
				t.Fatalf("client %s holding a token was removed: %v", id, err)
			}
		}
		if _, err := s.Client(ctx, "nope"); !errors.Is(err, asstore.ErrNotFound) {
			t.Fatalf("unknown client: %v", err)
		}
		big := c
		big.ID = "big"
		big.Name = strings.Repeat("x", asstore.MaxClientBytes)
		if err := s.CreateClient(ctx, big, 100); err == nil {
			t.Fatal("an oversized client was stored")
		}
	})
	t.Run("tokens", func(t *testing.T) {
		tok := asstore.Token{Kind: asstore.KindRefresh, Signature: "r1", GrantID: "g1", ClientID: "c1", Active: true, ExpiresAt: now.Add(time.Hour), Data: []byte(`{"a":1}`)}
		if err := s.PutToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if err := s.PutToken(ctx, tok); !errors.Is(err, asstore.ErrExists) {
			t.Fatalf("duplicate: %v", err)
		}
		got, err := s.Token(ctx, asstore.KindRefresh, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tok, got, cmpTime); diff != "" {
			t.Fatalf("token (-want +got):\n%s", diff)
		}
		if _, err := s.Token(ctx, asstore.KindAccess, "r1"); !errors.Is(err, asstore.ErrNotFound) {
			t.Fatalf("same signature, other kind: %v", err)
		}
		r2 := tok
		r2.Signature = "r2"
		a1 := asstore.Token{Kind: asstore.KindAccess, Signature: "a1", GrantID: "g1", ClientID: "c1", Active: true, ExpiresAt: now.Add(time.Hour)}
		other := asstore.Token{Kind: asstore.KindRefresh, Signature: "o1", GrantID: "g2", ClientID: "c1", Active: true, ExpiresAt: now.Add(time.Hour)}
		for _, x := range []asstore.Token{r2, a1, other} {
			if err := s.PutToken(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.DeactivateToken(ctx, asstore.KindRefresh, "r1"); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Token(ctx, asstore.KindRefresh, "r1"); got.Active {
			t.Fatal("deactivated token is active")
		}
		if err := s.DeactivateToken(ctx, asstore.KindRefresh, "nope"); !errors.Is(err, asstore.ErrNotFound) {
			t.Fatalf("deactivating a missing token: %v", err)
		}
		if err := s.DeactivateGrant(ctx, asstore.KindRefresh, "g1"); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Token(ctx, asstore.KindRefresh, "r2"); got.Active {
			t.Fatal("DeactivateGrant left a refresh token of the grant active")
		}
		if got, _ := s.Token(ctx, asstore.KindRefresh, "o1"); !got.Active {
			t.Fatal("DeactivateGrant reached another grant")
		}
		if got, _ := s.Token(ctx, asstore.KindAccess, "a1"); !got.Active {
			t.Fatal("DeactivateGrant reached another kind")
		}
		if err := s.DeleteGrant(ctx, asstore.KindAccess, "g1"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Token(ctx, asstore.KindAccess, "a1"); !errors.Is(err, asstore.ErrNotFound) {
			t.Fatalf("DeleteGrant left the access token: %v", err)
		}
		if err := s.DeleteToken(ctx, asstore.KindRefresh, "r2"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteToken(ctx, asstore.KindRefresh, "r2"); err != nil {
			t.Fatalf("deleting twice: %v", err)
		}
		if _, err := s.Token(ctx, asstore.KindRefresh, "r2"); !errors.Is(err, asstore.ErrNotFound) {
			t.Fatalf("deleted token: %v", err)
		}
		// A consent page's record is written once: the second write of
		// the same page is how its second use is found.
		page := asstore.Token{Kind: asstore.KindConsent, Signature: "p1", GrantID: "p1", ClientID: "c1", ExpiresAt: now.Add(10 * time.Minute)}
		if err := s.PutToken(ctx, page); err != nil {
			t.Fatal(err)
		}
		if err := s.PutToken(ctx, page); !errors.Is(err, asstore.ErrExists) {
			t.Fatalf("a consent page recorded twice: %v, want ErrExists", err)
		}
		bad := tok
		bad.Signature = "big"
		bad.Data = make([]byte, asstore.MaxTokenDataSize+1)
		if err := s.PutToken(ctx, bad); err == nil {
			t.Fatal("oversized data was stored")
		}
	})
	t.Run("prune", func(t *testing.T) {
		old := asstore.Client{ID: "old", Name: "old", RedirectURIs: []string{"http://127.0.0.1/cb"}, CreatedAt: now.Add(-100 * 24 * time.Hour)}
		kept := asstore.Client{ID: "kept", Name: "kept", RedirectURIs: []string{"http://127.0.0.1/cb"}, CreatedAt: now.Add(-100 * 24 * time.Hour)}
		for _, c := range []asstore.Client{old, kept} {
			if err := s.CreateClient(ctx, c, 100); err != nil {
				t.Fatal(err)
			}
		}
		live := asstore.Token{Kind: asstore.KindRefresh, Signature: "live", GrantID: "g9", ClientID: "kept", Active: true, ExpiresAt: now.Add(time.Hour)}
		dead := asstore.Token{Kind: asstore.KindRefresh, Signature: "dead", GrantID: "g8", ClientID: "old", Active: true, ExpiresAt: now.Add(-time.Second)}
		for _, x := range []asstore.Token{live, dead} {
			if err := s.PutToken(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PruneGrants(ctx, now, 30*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Token(ctx, asstore.KindRefresh, "dead"); !errors.Is(err, asstore.ErrNotFound) {
			t.Fatalf("expired token survived PruneGrants: %v", err)
		}
		if _, err := s.Token(ctx, asstore.KindRefresh, "live"); err != nil {
			t.Fatalf("live token pruned: %v", err)
		}
		if _, err := s.Client(ctx, "old"); !errors.Is(err, asstore.ErrNotFound) {
			t.Fatalf("idle client without tokens survived PruneGrants: %v", err)
		}
		if _, err := s.Client(ctx, "kept"); err != nil {
			t.Fatalf("client holding a token was pruned: %v", err)
		}
		if _, err := s.Client(ctx, "c1"); err != nil {
			t.Fatalf("a recent client was pruned: %v", err)
		}
	})
}

// cmpTime compares instants, not their location or monotonic reading.
var cmpTime = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })
