package localas

import (
	"context"
	"crypto/hmac"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/auth/asstore"
)

// TestRefreshTokenOfAnEarlierRelease: a client signed in before this
// package issued its own tokens keeps its refresh token across the
// upgrade. The record and the token below are laid out as the earlier
// release wrote them: an "ory_rt_" token whose HMAC-SHA-512/256 under
// the same derived secret keys a record of the same JSON layout.
func TestRefreshTokenOfAnEarlierRelease(t *testing.T) {
	h := newHarness(t, nil)
	client := h.register("upgraded", testRedirect)
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	m := hmac.New(sha512.New512_256, h.srv.opts.Keys.DeriveSecret("oauth hmac"))
	m.Write(key)
	sig := base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	old := "ory_rt_" + base64.RawURLEncoding.EncodeToString(key) + "." + sig
	exp := time.Now().Add(24 * time.Hour).UTC()
	data := `{"id":"grant-of-old","at":"2026-01-01T00:00:00Z","form":{"redirect_uri":["` + testRedirect + `"]},` +
		`"session":{"sub":"oauth:` + client + `","ent":["*"],"exp":{"refresh_token":"` + exp.Format(time.RFC3339Nano) + `"}}}`
	if err := h.srv.st.PutToken(context.Background(), asstore.Token{Kind: asstore.KindRefresh, Signature: sig,
		GrantID: "grant-of-old", ClientID: client, Active: true, ExpiresAt: exp, Data: []byte(data)}); err != nil {
		t.Fatal(err)
	}
	access, rt := tokens(t, h.refresh(client, old))
	if !strings.HasPrefix(rt, refreshPrefix) {
		t.Errorf("the rotated refresh token %q is not of this release's form", rt)
	}
	if r := h.call(access); r.status != 200 {
		t.Fatalf("access token refreshed from an earlier release's refresh token: %d %s", r.status, r.body)
	}
	// The old token is rotated out like any other: used again, it
	// revokes the grant.
	if e := oauthError(t, h.refresh(client, old)); e != "invalid_grant" {
		t.Fatalf("the earlier release's token used twice: %s", e)
	}
	if r := h.call(access); r.status != 401 {
		t.Fatalf("access token after reuse: %d", r.status)
	}
	// A token of the old form with a wrong HMAC is refused.
	forged := "ory_rt_" + base64.RawURLEncoding.EncodeToString(key) + "." + base64.RawURLEncoding.EncodeToString(make([]byte, 32))
	if e := oauthError(t, h.refresh(client, forged)); e != "invalid_grant" {
		t.Fatalf("forged refresh token: %s", e)
	}
}

// racyStore makes the race between two redemptions of one code certain:
// a read of a code or refresh record, once done, waits briefly for a
// second reader before it answers, so that without serialization both
// readers see the record active.
type racyStore struct {
	asstore.Store
	mu      sync.Mutex
	waiting int
	met     chan struct{}
}

func (s *racyStore) Token(ctx context.Context, kind asstore.Kind, sig string) (asstore.Token, error) {
	rec, err := s.Store.Token(ctx, kind, sig)
	if kind == asstore.KindCode || kind == asstore.KindRefresh {
		s.mu.Lock()
		s.waiting++
		if s.waiting == 2 {
			close(s.met)
		}
		s.mu.Unlock()
		select {
		case <-s.met:
		case <-time.After(200 * time.Millisecond):
		}
	}
	return rec, err
}

// TestOneCodeOneWinner: two requests racing with one code, or with one
// refresh token, cannot both get tokens; the loser is taken for reuse.
func TestOneCodeOneWinner(t *testing.T) {
	for _, grant := range []string{"authorization_code", "refresh_token"} {
		t.Run(grant, func(t *testing.T) {
			st := &racyStore{Store: &asstore.Memory{}, met: make(chan struct{})}
			h := newHarness(t, func(o *Options) { o.Store = st })
			client := h.register("racer", testRedirect)
			p := newPKCE("z")
			code := h.code(client, p)
			form := url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code},
				"code_verifier": {p.verifier}, "redirect_uri": {testRedirect}}
			if grant == "refresh_token" {
				_, rt := tokens(t, h.exchange(client, code, p.verifier))
				st.mu.Lock()
				st.waiting, st.met = 0, make(chan struct{})
				st.mu.Unlock()
				form = url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {rt}}
			}
			var wg sync.WaitGroup
			replies := make([]reply, 2)
			for i := range replies {
				wg.Add(1)
				go func() {
					defer wg.Done()
					replies[i] = h.form(TokenPath, form)
				}()
			}
			wg.Wait()
			won := 0
			for _, r := range replies {
				if r.status == 200 {
					won++
				}
			}
			if won > 1 {
				t.Fatalf("both racing requests got tokens: %d %d", replies[0].status, replies[1].status)
			}
		})
	}
}

func TestMatchRedirect(t *testing.T) {
	reg := []string{"http://127.0.0.1:33333/callback", "http://localhost/cb?x=1", "http://[::1]:9/cb", "https://app.example/cb", "cursor://anysphere.cursor-retrieval/oauth/callback"}
	tests := []struct {
		raw  string
		want string // "" for no match
	}{
		{"http://127.0.0.1:33333/callback", "http://127.0.0.1:33333/callback"},
		{"http://127.0.0.1:45678/callback", "http://127.0.0.1:45678/callback"}, // RFC 8252 §7.3: any port
		{"http://127.0.0.1/callback", "http://127.0.0.1/callback"},
		{"http://localhost:6274/cb?x=1", "http://localhost:6274/cb?x=1"},
		{"http://[::1]:40000/cb", "http://[::1]:40000/cb"},
		{"http://127.0.0.1:45678/other", ""},      // another path
		{"http://localhost:6274/cb?x=2", ""},      // another query
		{"http://127.0.0.2:33333/callback", ""},   // another host
		{"http://localhost:33333/callback", ""},   // a name for a registered IP
		{"http://127.0.0.1:99999/callback", ""},   // no such port
		{"http://127.0.0.1:33333/callback#f", ""}, // fragment
		{"http://u@127.0.0.1:33333/callback", ""}, // user info
		{"https://app.example:8443/cb", ""},       // https only exactly
		{"https://app.example/cb", "https://app.example/cb"},
		{"cursor://anysphere.cursor-retrieval/oauth/callback", "cursor://anysphere.cursor-retrieval/oauth/callback"},
		{"cursor://anysphere.cursor-retrieval/oauth/other", ""},
		{"", ""}, // several registered: the client must say which
	}
	for _, tt := range tests {
		got := ""
		if u := matchRedirect(tt.raw, reg); u != nil {
			got = u.String()
		}
		if got != tt.want {
			t.Errorf("matchRedirect(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
	if u := matchRedirect("", reg[:1]); u == nil || u.String() != reg[0] {
		t.Errorf("no redirect_uri with one registered: %v", u)
	}
}

// TestRevokeOthersToken: a client cannot revoke another client's grant;
// the answer is 200 all the same (RFC 7009 §2.2).
func TestRevokeOthersToken(t *testing.T) {
	h := newHarness(t, nil)
	a := h.register("a", testRedirect)
	b := h.register("b", testRedirect)
	p := newPKCE("o")
	access, rt := tokens(t, h.exchange(a, h.code(a, p), p.verifier))
	for _, tok := range []string{access, rt} {
		if r := h.form(RevokePath, url.Values{"token": {tok}, "client_id": {b}}); r.status != 200 {
			t.Fatalf("revoke by another client: %d %s", r.status, r.body)
		}
	}
	if r := h.call(access); r.status != 200 {
		t.Fatalf("another client revoked the token: %d", r.status)
	}
	if r := h.form(RevokePath, url.Values{"token": {"garbage"}, "client_id": {a}}); r.status != 200 {
		t.Errorf("revoking an unknown token: %d", r.status)
	}
	if e := oauthError(t, h.form(RevokePath, url.Values{"token": {rt}, "client_id": {"nobody"}})); e != "invalid_client" {
		t.Errorf("revocation by an unknown client: %s", e)
	}
	if e := oauthError(t, h.form(RevokePath, url.Values{"token": {rt}})); e != "invalid_request" {
		t.Errorf("revocation without client_id: %s", e)
	}
}

// TestTokenAnswerShape: what a client parses stays as it was: the token
// response's members, and errors as error and error_description only,
// JSON, never cached.
func TestTokenAnswerShape(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Scopes = []string{"tools"} })
	client := h.register("shape", testRedirect)
	p := newPKCE("q")
	q := authQuery(client, p)
	q.Set("scope", "tools unknown")
	_, fields := h.consent(q)
	r := h.decide(fields, "allow")
	loc, _ := url.Parse(r.header.Get("Location"))
	if loc.Query().Get("scope") != "tools" {
		t.Errorf("redirect %q: scope", loc)
	}
	r = h.exchange(client, loc.Query().Get("code"), p.verifier)
	var m map[string]any
	json.Unmarshal([]byte(r.body), &m)
	if len(m) != 5 || m["token_type"] != "bearer" || m["expires_in"] != float64(3600) || m["scope"] != "tools" ||
		!strings.HasPrefix(m["refresh_token"].(string), refreshPrefix) || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("token response %d %v %s", r.status, r.header, r.body)
	}
	// A refresh may narrow the scopes, never widen them.
	if e := oauthError(t, h.form(TokenPath, url.Values{"grant_type": {"refresh_token"}, "client_id": {client},
		"refresh_token": {m["refresh_token"].(string)}, "scope": {"tools admin"}})); e != "invalid_scope" {
		t.Errorf("refresh widening the scopes: %s", e)
	}
	for _, bad := range []url.Values{
		{"grant_type": {"authorization_code"}, "client_id": {"nobody"}, "code": {"x"}},
		{"grant_type": {"client_credentials"}, "client_id": {client}},
		{"client_id": {client}},
		{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {"x"}, "resource": {"http://127.0.0.1:1/mcp"}},
		{"grant_type": {"refresh_token", "refresh_token"}, "client_id": {client}},
	} {
		r := h.form(TokenPath, bad)
		var e map[string]string
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || len(e) != 2 || e["error"] == "" || e["error_description"] == "" ||
			r.header.Get("Content-Type") != "application/json;charset=UTF-8" || r.header.Get("Cache-Control") != "no-store" ||
			r.status < 400 {
			t.Errorf("%v: %d %v %s", bad, r.status, r.header, r.body)
		}
	}
	if r := h.form(TokenPath, url.Values{"grant_type": {"authorization_code"}, "client_id": {"nobody"}, "code": {"x"}}); r.status != http.StatusUnauthorized {
		t.Errorf("unknown client at the token endpoint: %d, want 401", r.status)
	}
}
