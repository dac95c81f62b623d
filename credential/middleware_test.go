package credential_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/credential"
)

// memStore is a hand-written credential.Store in memory that can fail.
type memStore struct {
	mu   sync.Mutex
	rows map[string]credential.Credential
	down atomic.Bool
	// lookups counts CredentialByID calls; gate, when set, holds each
	// until it is closed.
	lookups atomic.Int32
	gate    chan struct{}
}

var errDown = errors.New("store down")

func (m *memStore) CreateCredential(_ context.Context, c credential.Credential) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rows == nil {
		m.rows = map[string]credential.Credential{}
	}
	if _, ok := m.rows[c.ID]; ok {
		return credential.ErrExists
	}
	m.rows[c.ID] = c
	return nil
}

func (m *memStore) CredentialByID(ctx context.Context, id string) (credential.Credential, error) {
	m.lookups.Add(1)
	if m.gate != nil {
		select {
		case <-m.gate:
		case <-ctx.Done():
			return credential.Credential{}, ctx.Err()
		}
	}
	if m.down.Load() {
		return credential.Credential{}, errDown
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.rows[id]
	if !ok {
		return c, credential.ErrNotFound
	}
	return c, nil
}

func (m *memStore) CredentialBySubject(_ context.Context, iss, tenant, sub string) (credential.Credential, error) {
	if m.down.Load() {
		return credential.Credential{}, errDown
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.rows {
		if c.Kind == credential.KindJWT && c.Issuer == iss && c.Tenant == tenant && c.Subject == sub {
			return c, nil
		}
	}
	return credential.Credential{}, credential.ErrNotFound
}

func (m *memStore) ListCredentials(context.Context, credential.Filter) ([]credential.Credential, error) {
	return nil, nil
}

func (m *memStore) RevokeCredential(_ context.Context, id string, at time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.rows[id]
	if !ok || !c.Revoked.IsZero() {
		return false, nil
	}
	c.Revoked = at
	m.rows[id] = c
	return true, nil
}

const audience = "http://127.0.0.1:8787/mcp"

type mwFixture struct {
	st     *memStore
	reg    *credential.Registry
	li     *auth.LocalIssuer
	h      http.Handler
	seen   *auth.Principal
	allows map[string]bool
}

func newMW(t *testing.T, bind bool) *mwFixture {
	t.Helper()
	li, err := auth.LoadOrCreateLocalKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v, err := li.Verifier(auth.Config{Audience: audience})
	if err != nil {
		t.Fatal(err)
	}
	f := &mwFixture{st: &memStore{}, li: li}
	f.reg = credential.New(f.st, nil)
	f.h = f.reg.Middleware(credential.MiddlewareOptions{Verifier: v, BindJWT: bind})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := auth.PrincipalFrom(r.Context())
		f.seen = &p
		f.allows = map[string]bool{}
		for _, tool := range []string{"keysweep_scan_text", "util_hash"} {
			f.allows[tool] = credential.Allows(r.Context(), tool)
		}
		if r.Header.Get("Authorization") != "" {
			t.Error("the credential reached the handler")
		}
	}))
	return f
}

func (f *mwFixture) do(bearer string) *httptest.ResponseRecorder {
	f.seen = nil
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+bearer)
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, r)
	return rec
}

func TestAPIKeys(t *testing.T) {
	f := newMW(t, false)
	c, key, err := f.reg.Create(t.Context(), credential.Spec{Tenant: "acme", Entitlements: []string{"keysweep"}})
	if err != nil {
		t.Fatal(err)
	}
	if rec := f.do(key); rec.Code != 200 || f.seen == nil || f.seen.Tenant != "acme" || f.seen.Credential != c.ID || !f.seen.Entitled("keysweep_scan_text") {
		t.Fatalf("valid key: %d %+v", rec.Code, f.seen)
	}
	if _, err := f.reg.Revoke(t.Context(), c.ID); err != nil {
		t.Fatal(err)
	}
	rec := f.do(key)
	if rec.Code != 401 || !strings.Contains(rec.Header().Get("WWW-Authenticate"), `error="invalid_token"`) ||
		!strings.Contains(rec.Body.String(), credential.CodeBindingFailed) || f.seen != nil {
		t.Errorf("revoked key: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	_, key2, _ := f.reg.Create(t.Context(), credential.Spec{Tenant: "acme"})
	f.st.down.Store(true)
	rec = f.do(key2)
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), credential.CodeBindingUnavailable) || f.seen != nil {
		t.Errorf("store down: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	for _, bad := range []string{"wdn_nonsense", "wdn_" + c.ID + "_" + strings.Repeat("A", 43)} {
		if rec := f.do(bad); rec.Code == 200 {
			t.Errorf("%q admitted", bad)
		}
	}
}

func TestJWTBinding(t *testing.T) {
	mint := func(f *mwFixture, tenant string) string {
		tok, err := f.li.Mint(auth.TokenSpec{Audience: audience, Subject: "sam", Tenant: tenant, Entitlements: []string{"*"}})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	free := newMW(t, false)
	if rec := free.do(mint(free, "acme")); rec.Code != 200 || !free.allows["util_hash"] {
		t.Fatalf("binding off: %d %v", rec.Code, free.allows)
	}
	f := newMW(t, true)
	tok := mint(f, "acme")
	if rec := f.do(tok); rec.Code != 401 || !strings.Contains(rec.Body.String(), credential.CodeBindingFailed) {
		t.Errorf("unbound subject: %d %s", rec.Code, rec.Body)
	}
	if _, _, err := f.reg.Create(t.Context(), credential.Spec{Kind: credential.KindJWT, Issuer: auth.LocalIssuerID, Subject: "sam",
		Tenant: "globex", Entitlements: []string{"*"}}); err != nil {
		t.Fatal(err)
	}
	// Bound in another tenant only. The first registry keeps its "not
	// found" for its TTL; a fresh one (another replica) reads the store.
	f2 := rebuild(t, &mwFixture{st: f.st, li: f.li, reg: credential.New(f.st, nil)})
	if rec := f2.do(tok); rec.Code != 401 {
		t.Errorf("subject bound in another tenant: %d", rec.Code)
	}
	c, _, err := f2.reg.Create(t.Context(), credential.Spec{Kind: credential.KindJWT, Issuer: auth.LocalIssuerID, Subject: "sam",
		Tenant: "acme", Entitlements: []string{"keysweep"}})
	if err != nil {
		t.Fatal(err)
	}
	f3 := rebuild(t, &mwFixture{st: f.st, li: f.li, reg: credential.New(f.st, nil)})
	if rec := f3.do(tok); rec.Code != 200 || !f3.allows["keysweep_scan_text"] || f3.allows["util_hash"] {
		t.Errorf("bound subject: %d, allows %v (the row narrows the token's *)", rec.Code, f3.allows)
	}
	if _, err := f3.reg.Revoke(t.Context(), c.ID); err != nil {
		t.Fatal(err)
	}
	if rec := f3.do(tok); rec.Code != 401 {
		t.Errorf("revoked binding: %d", rec.Code)
	}
}

// rebuild wires f's middleware again around its registry, keeping its
// store and issuer.
func rebuild(t *testing.T, f *mwFixture) *mwFixture {
	t.Helper()
	v, err := f.li.Verifier(auth.Config{Audience: audience})
	if err != nil {
		t.Fatal(err)
	}
	f.h = f.reg.Middleware(credential.MiddlewareOptions{Verifier: v, BindJWT: true})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := auth.PrincipalFrom(r.Context())
		f.seen = &p
		f.allows = map[string]bool{}
		for _, tool := range []string{"keysweep_scan_text", "util_hash"} {
			f.allows[tool] = credential.Allows(r.Context(), tool)
		}
	}))
	return f
}

// Requests for one key whose cached answer has aged out wait for one
// store look-up: 64 of them used to send 64 look-ups at once, each under
// the same short deadline, and on a loaded store some were refused with
// binding_check_unavailable.
func TestConcurrentRequestsShareOneLookup(t *testing.T) {
	st := &memStore{gate: make(chan struct{})}
	reg := credential.New(st, nil)
	close(st.gate)
	_, key, err := reg.Create(t.Context(), credential.Spec{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	st.gate = make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Go(func() {
			_, err := reg.AuthenticateKey(t.Context(), key)
			errs <- err
		})
	}
	for st.lookups.Load() == 0 {
		time.Sleep(time.Millisecond) // the first look-up has started
	}
	time.Sleep(20 * time.Millisecond) // the others have joined it, or would have sent their own
	close(st.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := st.lookups.Load(); n != 1 {
		t.Errorf("%d store look-ups for 64 concurrent requests of one key, want 1", n)
	}
}
