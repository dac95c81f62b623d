package localas

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/auth/asstore"
	"github.com/warden-mcp/warden/store/sqlite"
)

const (
	testIssuer   = "http://127.0.0.1:8787"
	testResource = testIssuer + "/mcp"
	testRedirect = "http://127.0.0.1:33333/callback"
)

// harness is a local authorization server and an MCP endpoint guarded by
// the verifier it feeds, served in-process.
type harness struct {
	t   *testing.T
	srv *Server
	mux *http.ServeMux
}

func newHarness(t *testing.T, mod func(*Options)) *harness {
	t.Helper()
	li, err := auth.LoadOrCreateLocalKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Issuer: testIssuer, Resource: testResource, Keys: li, Store: &asstore.Memory{},
		Tools: func() []Tool {
			return []Tool{{"keysweep_scan_text", "Scan text for secrets"}, {"webscan_check_headers", ""}}
		}}
	if mod != nil {
		mod(&opts)
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	v, err := opts.Keys.Verifier(auth.Config{Audience: testResource, CheckCredential: srv.CheckToken,
		AuthorizationServers: []string{srv.Issuer()}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for p, h := range srv.Handlers() {
		mux.Handle(p, h)
	}
	mux.Handle("/mcp", v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := auth.PrincipalFrom(r.Context())
		json.NewEncoder(w).Encode(p)
	})))
	return &harness{t: t, srv: srv, mux: mux}
}

type reply struct {
	status int
	header http.Header
	body   string
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("body %q is not JSON: %v", r.body, err)
	}
	return m
}

// do serves one request; hdr are header pairs, Host first when given as
// "Host".
func (h *harness) do(method, target string, body io.Reader, hdr ...string) reply {
	req := httptest.NewRequest(method, target, body)
	req.Host = "127.0.0.1:8787"
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.mux.ServeHTTP(rec, req)
	return reply{rec.Code, rec.Header(), rec.Body.String()}
}

func (h *harness) form(path string, v url.Values) reply {
	return h.do("POST", path, strings.NewReader(v.Encode()), "Content-Type", "application/x-www-form-urlencoded")
}

func (h *harness) register(name string, redirects ...string) string {
	h.t.Helper()
	b, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": redirects,
		"grant_types": []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_method": "none"})
	r := h.do("POST", RegisterPath, strings.NewReader(string(b)), "Content-Type", "application/json")
	if r.status != http.StatusCreated {
		h.t.Fatalf("register: %d %s", r.status, r.body)
	}
	return r.json(h.t)["client_id"].(string)
}

type pkcePair struct{ verifier, challenge string }

func newPKCE(seed string) pkcePair {
	v := base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat(seed, 48)))[:60]
	sum := sha256.Sum256([]byte(v))
	return pkcePair{v, base64.RawURLEncoding.EncodeToString(sum[:])}
}

func authQuery(client string, p pkcePair) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {testRedirect},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "state": {"state-1234"}, "resource": {testResource}}
}

var hiddenRE = regexp.MustCompile(`name="(request|consent)" value="([^"]*)"`)

// consent opens the consent page and returns its hidden fields.
func (h *harness) consent(q url.Values) (page string, fields url.Values) {
	h.t.Helper()
	r := h.do("GET", AuthorizePath+"?"+q.Encode(), nil)
	if r.status != 200 {
		h.t.Fatalf("consent page: %d %s", r.status, r.body)
	}
	fields = url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(r.body, -1) {
		fields.Set(m[1], html.UnescapeString(m[2]))
	}
	return r.body, fields
}

func (h *harness) decide(fields url.Values, decision string, hdr ...string) reply {
	f := url.Values{"request": {fields.Get("request")}, "consent": {fields.Get("consent")}, "decision": {decision}}
	hdr = append([]string{"Content-Type", "application/x-www-form-urlencoded", "Origin", testIssuer}, hdr...)
	return h.do("POST", AuthorizePath, strings.NewReader(f.Encode()), hdr...)
}

// code runs the consent for client and returns the code from the redirect.
func (h *harness) code(client string, p pkcePair) string {
	h.t.Helper()
	_, fields := h.consent(authQuery(client, p))
	r := h.decide(fields, "allow")
	if r.status != http.StatusSeeOther {
		h.t.Fatalf("allow: %d %s", r.status, r.body)
	}
	loc, err := url.Parse(r.header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), testRedirect+"?") {
		h.t.Fatalf("redirect to %q", r.header.Get("Location"))
	}
	if loc.Query().Get("state") != "state-1234" || loc.Query().Get("iss") != testIssuer {
		h.t.Fatalf("redirect %q lacks state or iss", loc)
	}
	return loc.Query().Get("code")
}

func (h *harness) exchange(client, code, verifier string) reply {
	return h.form(TokenPath, url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {testRedirect}, "resource": {testResource}})
}

func (h *harness) refresh(client, rt string) reply {
	return h.form(TokenPath, url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {rt}})
}

func (h *harness) call(token string) reply {
	return h.do("POST", "/mcp", nil, "Authorization", "Bearer "+token)
}

func tokens(t *testing.T, r reply) (access, refresh string) {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("token endpoint: %d %s", r.status, r.body)
	}
	m := r.json(t)
	if m["token_type"] != "bearer" || m["expires_in"] == nil {
		t.Fatalf("token response %s", r.body)
	}
	return m["access_token"].(string), m["refresh_token"].(string)
}

func oauthError(t *testing.T, r reply) string {
	t.Helper()
	if r.status < 400 {
		t.Fatalf("want an error, got %d %s", r.status, r.body)
	}
	e, _ := r.json(t)["error"].(string)
	return e
}

// TestFlow is the whole flow a real client runs: metadata, registration,
// consent, code exchange, a call, refresh with rotation, reuse detection
// and revocation.
func TestFlow(t *testing.T) {
	h := newHarness(t, nil)

	md := h.do("GET", MetadataPath, nil)
	if md.status != 200 {
		t.Fatalf("metadata: %d", md.status)
	}
	m := md.json(t)
	for k, want := range map[string]any{"issuer": testIssuer, "authorization_endpoint": testIssuer + AuthorizePath,
		"token_endpoint": testIssuer + TokenPath, "registration_endpoint": testIssuer + RegisterPath,
		"revocation_endpoint": testIssuer + RevokePath} {
		if m[k] != want {
			t.Errorf("metadata %s = %v, want %v", k, m[k], want)
		}
	}
	if cm, _ := json.Marshal(m["code_challenge_methods_supported"]); string(cm) != `["S256"]` {
		t.Errorf("code_challenge_methods_supported = %s", cm)
	}

	client := h.register("Test <Client> & Co", testRedirect)
	p := newPKCE("a")
	page, _ := h.consent(authQuery(client, p))
	for _, want := range []string{"Test &lt;Client&gt; &amp; Co", "keysweep_scan_text", "Scan text for secrets", "webscan_check_headers", testRedirect} {
		if !strings.Contains(page, want) {
			t.Errorf("consent page lacks %q", want)
		}
	}
	if strings.Contains(page, "<Client>") {
		t.Error("consent page carries the client name unescaped")
	}
	code := h.code(client, p)
	access, rt := tokens(t, h.exchange(client, code, p.verifier))

	r := h.call(access)
	if r.status != 200 {
		t.Fatalf("call with the issued token: %d %s", r.status, r.body)
	}
	var pr auth.Principal
	json.Unmarshal([]byte(r.body), &pr)
	if pr.ClientID != client || pr.Tenant != "local" || len(pr.Entitlements) != 1 || pr.Entitlements[0] != "*" || pr.Credential != "oauth:"+client {
		t.Fatalf("principal %+v", pr)
	}
	if life := pr.ExpiresAt.Sub(pr.IssuedAt); life != time.Hour {
		t.Fatalf("access token lives %v, want 1h", life)
	}

	// Refresh rotates both tokens; the old access token stops working.
	access2, rt2 := tokens(t, h.refresh(client, rt))
	if rt2 == rt || access2 == access {
		t.Fatal("refresh did not rotate")
	}
	if r := h.call(access); r.status != 401 || !strings.Contains(r.header.Get("WWW-Authenticate"), "revoked") {
		t.Fatalf("old access token after refresh: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	if r := h.call(access2); r.status != 200 {
		t.Fatalf("new access token: %d %s", r.status, r.body)
	}

	// Reuse of the rotated refresh token revokes the whole grant.
	if e := oauthError(t, h.refresh(client, rt)); e != "invalid_grant" {
		t.Fatalf("reused refresh token: %s", e)
	}
	if e := oauthError(t, h.refresh(client, rt2)); e != "invalid_grant" {
		t.Fatalf("current refresh token after reuse: %s, want the family revoked", e)
	}
	if r := h.call(access2); r.status != 401 {
		t.Fatalf("access token after reuse: %d", r.status)
	}

	// A new grant, then RFC 7009 revocation of its refresh token.
	p2 := newPKCE("b")
	access3, rt3 := tokens(t, h.exchange(client, h.code(client, p2), p2.verifier))
	if r := h.form(RevokePath, url.Values{"token": {rt3}, "token_type_hint": {"refresh_token"}, "client_id": {client}}); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	if e := oauthError(t, h.refresh(client, rt3)); e != "invalid_grant" {
		t.Fatalf("revoked refresh token: %s", e)
	}
	if r := h.call(access3); r.status != 401 {
		t.Fatalf("access token of a revoked grant: %d", r.status)
	}

	// Revoking an access token ends it too.
	p3 := newPKCE("c")
	access4, _ := tokens(t, h.exchange(client, h.code(client, p3), p3.verifier))
	if r := h.form(RevokePath, url.Values{"token": {access4}, "client_id": {client}}); r.status != 200 {
		t.Fatalf("revoke access token: %d %s", r.status, r.body)
	}
	if r := h.call(access4); r.status != 401 {
		t.Fatalf("revoked access token: %d", r.status)
	}
}

// TestRefreshKeepsWorking: refresh tokens are sliding, so a client used
// once a week keeps its access for weeks; one left unused for longer
// than the refresh lifetime has to ask again.
func TestRefreshKeepsWorking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		client := h.register("weekly", testRedirect)
		p := newPKCE("w")
		_, rt := tokens(t, h.exchange(client, h.code(client, p), p.verifier))
		for week := 0; week < 6; week++ {
			time.Sleep(7 * 24 * time.Hour)
			var access string
			access, rt = tokens(t, h.refresh(client, rt))
			if r := h.call(access); r.status != 200 {
				t.Fatalf("week %d: %d %s", week, r.status, r.body)
			}
		}
		time.Sleep(31 * 24 * time.Hour)
		if e := oauthError(t, h.refresh(client, rt)); e != "invalid_grant" {
			t.Fatalf("refresh after 31 idle days: %s", e)
		}
	})
}

// A client signed in before warden serve restarts stays signed in: the
// records live in the state directory's database and the signing key in
// its key file, so a new server accepts the old refresh token.
func TestSignedInAcrossRestart(t *testing.T) {
	keyDir, stateDir := t.TempDir(), t.TempDir()
	serve := func() *harness {
		st, err := sqlite.Open(context.Background(), stateDir, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return newHarness(t, func(o *Options) {
			li, err := auth.LoadOrCreateLocalKey(keyDir)
			if err != nil {
				t.Fatal(err)
			}
			o.Keys, o.Store = li, st
		})
	}
	before := serve()
	client := before.register("restarted", testRedirect)
	p := newPKCE("r")
	_, rt := tokens(t, before.exchange(client, before.code(client, p), p.verifier))

	after := serve()
	access, _ := tokens(t, after.refresh(client, rt))
	if r := after.call(access); r.status != 200 {
		t.Fatalf("after a restart the refreshed token was refused: %d %s", r.status, r.body)
	}
}
