package console

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/policy"
)

const origin = "http://127.0.0.1:8787"

var key = []byte("0123456789abcdef0123456789abcdef")

func newConsole(t *testing.T, now *time.Time) (*Handler, *approval.MemoryRequests) {
	t.Helper()
	rs := approval.NewMemoryRequests(0)
	h, err := New(Options{Origin: origin, Key: key, Requests: rs, Poll: 10 * time.Millisecond,
		Now: func() time.Time { return *now },
		Authenticate: func(_ context.Context, tok string) (auth.Principal, error) {
			if tok == "good" {
				return auth.Principal{Issuer: "urn:test", Tenant: "acme", Credential: "key-1", Subject: "alice"}, nil
			}
			return auth.Principal{}, errors.New("no")
		}})
	if err != nil {
		t.Fatal(err)
	}
	return h, rs
}

func TestNewRefusesBadOptions(t *testing.T) {
	rs := approval.NewMemoryRequests(0)
	for _, o := range []Options{
		{Origin: "ftp://x", Key: key, Requests: rs},
		{Origin: origin + "/path", Key: key, Requests: rs},
		{Origin: origin, Key: key[:16], Requests: rs},
		{Origin: origin, Key: key},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"/console/approvals/ab":     "/console/approvals/ab",
		"":                          "/console/approvals",
		"https://evil.example/":     "/console/approvals",
		"//evil.example/console/":   "/console/approvals",
		"/console//evil.example":    "/console/approvals",
		"/console/\\evil":           "/console/approvals",
		"/other":                    "/console/approvals",
		"/console/x\r\nSet-Cookie:": "/console/approvals",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

// cookieOf signs in with a one-time link and returns the session cookie.
func cookieOf(t *testing.T, h *Handler, s Session) *http.Cookie {
	t.Helper()
	link, err := h.SignInLink(s, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	rec := serve(h, "POST", "/console/signin", url.Values{"code": {u.Query().Get("code")}}, nil, origin)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", rec.Code)
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == cookieName {
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != Path {
				t.Errorf("session cookie attributes: %+v", c)
			}
			return c
		}
	}
	t.Fatal("no session cookie")
	return nil
}

func serve(h *Handler, method, path string, form url.Values, c *http.Cookie, origin string) *httptest.ResponseRecorder {
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if c != nil {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestSessions(t *testing.T) {
	now := time.Now()
	h, _ := newConsole(t, &now)
	c := cookieOf(t, h, Session{Issuer: "urn:test", Tenant: "acme", Credential: "key-1", Name: "alice"})
	if rec := serve(h, "GET", "/console/settings", nil, c, ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), "alice") {
		t.Fatalf("settings with a session: %d", rec.Code)
	}
	// Every answer forbids framing and foreign scripts.
	for _, p := range []string{"/console/settings", "/console/signin", "/console/approvals/zz", "/console/static/console.js"} {
		rec := serve(h, "GET", p, nil, c, "")
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("%s: CSP %q", p, csp)
		}
	}
	// A session ends with its lifetime.
	now = now.Add(13 * time.Hour)
	if rec := serve(h, "GET", "/console/settings", nil, c, ""); rec.Code != http.StatusSeeOther {
		t.Errorf("an expired session: %d", rec.Code)
	}
	now = now.Add(-13 * time.Hour)
	// A cookie signed with another key is no session.
	h2, err := New(Options{Origin: origin, Key: []byte("another key of thirty-two bytes!"), Requests: approval.NewMemoryRequests(0)})
	if err != nil {
		t.Fatal(err)
	}
	if rec := serve(h2, "GET", "/console/settings", nil, c, ""); rec.Code != http.StatusSeeOther {
		t.Errorf("a cookie of another key: %d", rec.Code)
	}
}

func TestSignInLinksAndTokens(t *testing.T) {
	now := time.Now()
	h, _ := newConsole(t, &now)
	link, _ := h.SignInLink(Session{Issuer: "urn:test", Tenant: "acme", Owner: true, Name: "owner"}, time.Minute)
	code := url.Values{"code": {strings.SplitN(link, "code=", 2)[1]}}
	// The page shows the form; the GET spends nothing.
	if rec := serve(h, "GET", "/console/signin?code="+code.Get("code"), nil, nil, ""); rec.Code != 200 {
		t.Fatalf("sign-in page: %d", rec.Code)
	}
	if rec := serve(h, "POST", "/console/signin", code, nil, ""); rec.Code != http.StatusForbidden {
		t.Errorf("a sign-in POST without Origin: %d", rec.Code)
	}
	now = now.Add(2 * time.Minute)
	if rec := serve(h, "POST", "/console/signin", code, nil, origin); rec.Code != http.StatusForbidden {
		t.Errorf("an expired link: %d", rec.Code)
	}
	now = now.Add(-2 * time.Minute)
	if rec := serve(h, "POST", "/console/signin", url.Values{"token": {"bad"}}, nil, origin); rec.Code != http.StatusForbidden {
		t.Errorf("a bad token: %d", rec.Code)
	}
	if rec := serve(h, "POST", "/console/signin", url.Values{"token": {"good"}}, nil, origin); rec.Code != http.StatusSeeOther {
		t.Errorf("a good token: %d", rec.Code)
	}
	// Failed sign-ins are bounded.
	limited := false
	for range maxFailsPerMinute + 2 {
		if serve(h, "POST", "/console/signin", url.Values{"token": {"bad"}}, nil, origin).Code == http.StatusTooManyRequests {
			limited = true
		}
	}
	if !limited {
		t.Error("failed sign-ins are not limited")
	}
}

func TestMayDecide(t *testing.T) {
	p := auth.Principal{Issuer: "urn:test", Tenant: "acme", Credential: "key-1"}
	r := approval.Request{Caller: policy.ApprovalCaller(p), Owner: policy.ApprovalOwner(p)}
	for _, c := range []struct {
		s    Session
		want bool
	}{
		{Session{Issuer: "urn:test", Tenant: "acme", Credential: "key-1"}, true},
		{Session{Issuer: "urn:test", Tenant: "acme", Credential: "key-2"}, false},
		{Session{Issuer: "urn:test", Tenant: "other", Credential: "key-1"}, false},
		{Session{Issuer: "urn:other", Tenant: "acme", Credential: "key-1"}, false},
		{Session{Issuer: "urn:test", Tenant: "acme", Owner: true}, true},
		{Session{Issuer: "urn:test", Tenant: "other", Owner: true}, false},
		{Session{Issuer: "urn:test", Tenant: "acme"}, false}, // no credential, not owner
	} {
		if got := c.s.MayDecide(r); got != c.want {
			t.Errorf("%+v: %v, want %v", c.s, got, c.want)
		}
	}
}

// TestLiveList: the event stream sends the pending list, and again when
// it changes; streams are bounded.
func TestLiveList(t *testing.T) {
	now := time.Now()
	h, rs := newConsole(t, &now)
	p := auth.Principal{Issuer: "urn:test", Tenant: "acme", Credential: "key-1"}
	c := cookieOf(t, h, Session{Issuer: p.Issuer, Tenant: p.Tenant, Credential: p.Credential, Name: "alice"})
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/console/events", nil)
	req.AddCookie(c)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	next := func() string {
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				return d
			}
		}
		return ""
	}
	if d := next(); d != "[]" {
		t.Fatalf("first event %q", d)
	}
	id := approval.NewID()
	_ = rs.CreateApprovalRequest(t.Context(), approval.Request{ID: id, Caller: policy.ApprovalCaller(p), Owner: policy.ApprovalOwner(p),
		Tenant: "acme", Tool: "<b>t</b>", State: approval.StatePending, Created: now, Expires: now.Add(time.Minute)})
	other := auth.Principal{Issuer: "urn:test", Tenant: "acme", Credential: "key-2"}
	_ = rs.CreateApprovalRequest(t.Context(), approval.Request{ID: approval.NewID(), Caller: policy.ApprovalCaller(other), Owner: policy.ApprovalOwner(other),
		Tenant: "acme", Tool: "theirs", State: approval.StatePending, Created: now, Expires: now.Add(time.Minute)})
	if d := next(); !strings.Contains(d, id) || strings.Contains(d, "theirs") {
		t.Errorf("second event %q: want only the caller's own request", d)
	}
	// Past the bound, a stream is refused.
	for full := false; !full; { // the open stream holds one place
		select {
		case h.streams <- struct{}{}:
		default:
			full = true
		}
	}
	if rec := serve(h, "GET", "/console/events", nil, c, ""); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("a stream past the bound: %d", rec.Code)
	}
}

func TestPerSourceRate(t *testing.T) {
	now := time.Now()
	h, err := New(Options{Origin: origin, Key: key, Requests: approval.NewMemoryRequests(0), PerMinute: 3, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	codes := []int{}
	for range 4 {
		codes = append(codes, serve(h, "GET", "/console/signin", nil, nil, "").Code)
	}
	if codes[2] != 200 || codes[3] != http.StatusTooManyRequests {
		t.Errorf("codes %v: want three served, the fourth 429", codes)
	}
	now = now.Add(30 * time.Second) // half a minute refills half the bucket
	if c := serve(h, "GET", "/console/signin", nil, nil, "").Code; c != 200 {
		t.Errorf("after a refill: %d", c)
	}
}
