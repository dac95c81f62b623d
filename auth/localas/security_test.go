package localas

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestHostChecked: every endpoint refuses a Host header that is not a
// loopback name on the server's port, as a DNS-rebinding page would send.
func TestHostChecked(t *testing.T) {
	h := newHarness(t, nil)
	for _, path := range []string{MetadataPath, AuthorizePath, TokenPath, RegisterPath, RevokePath} {
		for _, host := range []string{"evil.example:8787", "127.0.0.1:9999", "127.0.0.1", "localhost.evil.example:8787"} {
			method := "POST"
			if path == MetadataPath || path == AuthorizePath {
				method = "GET"
			}
			if r := h.do(method, path, strings.NewReader("{}"), "Host", host, "Content-Type", "application/json"); r.status != http.StatusForbidden {
				t.Errorf("%s %s with Host %s: %d, want 403", method, path, host, r.status)
			}
		}
	}
	for _, host := range []string{"localhost:8787", "[::1]:8787", "127.0.0.1:8787"} {
		if r := h.do("GET", MetadataPath, nil, "Host", host); r.status != 200 {
			t.Errorf("metadata with Host %s: %d", host, r.status)
		}
	}
}

// TestConsentDecisionChecks: the decision is taken only from this
// server's own page: same Origin, and a consent token bound to this very
// request and still fresh.
func TestConsentDecisionChecks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		client := h.register("c", testRedirect)
		p := newPKCE("d")
		_, fields := h.consent(authQuery(client, p))

		other := authQuery(client, newPKCE("e"))
		_, otherFields := h.consent(other)
		swapped := url.Values{"request": {fields.Get("request")}, "consent": {otherFields.Get("consent")}}

		tests := []struct {
			name   string
			fields url.Values
			hdr    []string
			status int
		}{
			{"no Origin", fields, []string{"Origin", ""}, 403},
			{"foreign Origin", fields, []string{"Origin", "http://evil.example"}, 403},
			{"Origin on another port", fields, []string{"Origin", "http://127.0.0.1:9999"}, 403},
			{"cross-site fetch", fields, []string{"Sec-Fetch-Site", "cross-site"}, 403},
			{"consent token of another request", swapped, nil, 403},
			{"no consent token", url.Values{"request": {fields.Get("request")}}, nil, 403},
			{"request altered after the page", url.Values{"request": {strings.Replace(fields.Get("request"), "state-1234", "state-9999", 1)}, "consent": {fields.Get("consent")}}, nil, 403},
		}
		for _, tt := range tests {
			hdr := tt.hdr
			var r reply
			if len(hdr) >= 2 && hdr[0] == "Origin" && hdr[1] == "" {
				f := url.Values{"request": {tt.fields.Get("request")}, "consent": {tt.fields.Get("consent")}, "decision": {"allow"}}
				r = h.do("POST", AuthorizePath, strings.NewReader(f.Encode()), "Content-Type", "application/x-www-form-urlencoded")
			} else {
				r = h.decide(tt.fields, "allow", hdr...)
			}
			if r.status != tt.status {
				t.Errorf("%s: %d %s, want %d", tt.name, r.status, r.body, tt.status)
			}
		}

		// Deny sends the client access_denied.
		_, unused := h.consent(authQuery(client, newPKCE("t")))
		r := h.decide(fields, "deny")
		if loc, _ := url.Parse(r.header.Get("Location")); r.status != http.StatusSeeOther || loc.Query().Get("error") != "access_denied" {
			t.Fatalf("deny: %d %q", r.status, r.header.Get("Location"))
		}
		// A page left open past its lifetime no longer grants.
		time.Sleep(consentLifetime + time.Second)
		if r := h.decide(unused, "allow"); r.status != 403 {
			t.Fatalf("stale consent page: %d", r.status)
		}
	})
}

// TestConsentPageHeaders: the page cannot be framed and runs no script.
func TestConsentPageHeaders(t *testing.T) {
	h := newHarness(t, nil)
	client := h.register("c", testRedirect)
	r := h.do("GET", AuthorizePath+"?"+authQuery(client, newPKCE("f")).Encode(), nil)
	if r.header.Get("X-Frame-Options") != "DENY" || !strings.Contains(r.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
		!strings.Contains(r.header.Get("Content-Security-Policy"), "default-src 'none'") || r.header.Get("Cache-Control") != "no-store" ||
		r.header.Get("Referrer-Policy") != "same-origin" {
		t.Fatalf("headers %v", r.header)
	}
}

// TestAuthorizeRefusals: PKCE S256 is required, redirect URIs must be
// registered, the resource must be this server.
func TestAuthorizeRefusals(t *testing.T) {
	h := newHarness(t, nil)
	client := h.register("c", testRedirect)
	p := newPKCE("g")
	tests := []struct {
		name     string
		mod      func(url.Values)
		redirect bool // the error goes back to the client
		err      string
	}{
		{"plain PKCE", func(q url.Values) { q.Set("code_challenge_method", "plain") }, true, "invalid_request"},
		{"no challenge method", func(q url.Values) { q.Del("code_challenge_method") }, true, "invalid_request"},
		{"no PKCE", func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }, true, "invalid_request"},
		{"another resource", func(q url.Values) { q.Set("resource", "http://127.0.0.1:9999/mcp") }, true, "invalid_target"},
		{"implicit grant", func(q url.Values) { q.Set("response_type", "token") }, true, "unsupported_response_type"},
		{"unregistered redirect", func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:33333/other") }, false, "invalid_request"},
		{"unknown client", func(q url.Values) { q.Set("client_id", "nobody") }, false, "invalid_client"},
	}
	for _, tt := range tests {
		q := authQuery(client, p)
		tt.mod(q)
		r := h.do("GET", AuthorizePath+"?"+q.Encode(), nil)
		if tt.redirect {
			loc, _ := url.Parse(r.header.Get("Location"))
			if r.status != http.StatusSeeOther || !strings.HasPrefix(loc.String(), testRedirect) || loc.Query().Get("error") != tt.err {
				t.Errorf("%s: %d %q %s", tt.name, r.status, r.header.Get("Location"), r.body)
			}
			continue
		}
		if r.status < 400 || r.header.Get("Location") != "" || oauthError(t, r) != tt.err {
			t.Errorf("%s: %d %q %s", tt.name, r.status, r.header.Get("Location"), r.body)
		}
	}
	// A loopback redirect may change its port (RFC 8252 §7.3).
	q := authQuery(client, p)
	q.Set("redirect_uri", "http://127.0.0.1:45678/callback")
	if r := h.do("GET", AuthorizePath+"?"+q.Encode(), nil); r.status != 200 {
		t.Errorf("loopback redirect on another port: %d %s", r.status, r.body)
	}
}

// TestTokenRefusals: codes are single use, short-lived, bound to the
// verifier and the exact redirect URI and to their client.
func TestTokenRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		client := h.register("c", testRedirect, "http://127.0.0.1:33333/other")
		other := h.register("other", testRedirect)
		p := newPKCE("h")

		if e := oauthError(t, h.exchange(client, h.code(client, p), newPKCE("x").verifier)); e != "invalid_grant" {
			t.Errorf("wrong verifier: %s", e)
		}
		code := h.code(client, p)
		r := h.form(TokenPath, url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code},
			"code_verifier": {p.verifier}, "redirect_uri": {"http://127.0.0.1:33333/other"}})
		if e := oauthError(t, r); e != "invalid_grant" {
			t.Errorf("other registered redirect at the token step: %s", e)
		}
		if e := oauthError(t, h.exchange(other, h.code(client, p), p.verifier)); e != "invalid_grant" {
			t.Errorf("code of another client: %s", e)
		}

		code = h.code(client, p)
		access, _ := tokens(t, h.exchange(client, code, p.verifier))
		if e := oauthError(t, h.exchange(client, code, p.verifier)); e != "invalid_grant" {
			t.Errorf("code used twice: %s", e)
		}
		if r := h.call(access); r.status != 401 {
			t.Errorf("tokens of a code used twice still work: %d", r.status)
		}

		code = h.code(client, p)
		time.Sleep(DefaultCodeLifetime + time.Second)
		if e := oauthError(t, h.exchange(client, code, p.verifier)); e != "invalid_grant" {
			t.Errorf("expired code: %s", e)
		}
		r = h.form(TokenPath, url.Values{"grant_type": {"password"}, "client_id": {client}, "username": {"a"}, "password": {"b"}})
		if e := oauthError(t, r); e != "unsupported_grant_type" && e != "invalid_request" {
			t.Errorf("password grant: %s", e)
		}
	})
}

// TestRegistrationRefusals: redirect URIs follow the native-app rules,
// registrations are bounded in size and count.
func TestRegistrationRefusals(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.MaxClients = 5 })
	post := func(v any) reply {
		b, _ := json.Marshal(v)
		return h.do("POST", RegisterPath, strings.NewReader(string(b)), "Content-Type", "application/json")
	}
	for _, u := range []string{"http://evil.example/cb", "http://127.0.0.1.evil.example/cb", "javascript:alert(1)", "data:text/html,x",
		"file:///etc/passwd", "https://x.example/cb#frag", "https://user@x.example/cb", "/relative", "https:///nohost", strings.Repeat("a", 3000)} {
		if r := post(map[string]any{"redirect_uris": []string{u}}); oauthError(t, r) != "invalid_redirect_uri" && oauthError(t, r) != "invalid_client_metadata" {
			t.Errorf("redirect %.40q: %d %s", u, r.status, r.body)
		}
	}
	for _, u := range []string{"http://127.0.0.1/cb", "http://[::1]:3000/cb", "http://localhost:6274/oauth/callback", "https://claude.ai/api/mcp/auth_callback", "cursor://anysphere.cursor-retrieval/oauth/callback"} {
		if r := post(map[string]any{"redirect_uris": []string{u}}); r.status != 201 {
			t.Errorf("redirect %q refused: %s", u, r.body)
		}
	}
	for name, body := range map[string]any{
		"no redirect":        map[string]any{"client_name": "x"},
		"11 redirects":       map[string]any{"redirect_uris": strings.Split(strings.Repeat("http://127.0.0.1/cb ", 11), " ")[:11]},
		"control in name":    map[string]any{"redirect_uris": []string{testRedirect}, "client_name": "a\nb"},
		"bidi in name":       map[string]any{"redirect_uris": []string{testRedirect}, "client_name": "a\u202eb"},
		"long name":          map[string]any{"redirect_uris": []string{testRedirect}, "client_name": strings.Repeat("n", 201)},
		"client_credentials": map[string]any{"redirect_uris": []string{testRedirect}, "grant_types": []string{"client_credentials"}},
	} {
		if r := post(body); r.status != 400 {
			t.Errorf("%s: %d %s", name, r.status, r.body)
		}
	}
	if r := h.do("POST", RegisterPath, strings.NewReader(`{"redirect_uris":["`+testRedirect+`"],"x":"`+strings.Repeat("a", 20<<10)+`"}`), "Content-Type", "application/json"); r.status != 400 {
		t.Errorf("oversized registration: %d", r.status)
	}
	if r := h.do("POST", RegisterPath, strings.NewReader(`{}`), "Content-Type", "text/plain"); r.status != 400 {
		t.Errorf("non-JSON registration: %d", r.status)
	}
	// Five clients were registered above and the cap is five, but none
	// was used: the oldest makes room.
	if r := post(map[string]any{"redirect_uris": []string{testRedirect}}); r.status != http.StatusCreated {
		t.Errorf("registration past the cap of unused clients: %d %s", r.status, r.body)
	}
	// Clients that signed in are never pushed out: past the cap of
	// those, 503.
	h = newHarness(t, func(o *Options) { o.MaxClients = 2 })
	for _, name := range []string{"a", "b"} {
		c := h.register(name, testRedirect)
		p := newPKCE(name)
		tokens(t, h.exchange(c, h.code(c, p), p.verifier))
	}
	if r := post(map[string]any{"redirect_uris": []string{testRedirect}}); r.status != http.StatusServiceUnavailable {
		t.Errorf("registration past the cap of signed-in clients: %d %s", r.status, r.body)
	}
}

// TestNoState: a client that sends no state (OAuth 2.1 with PKCE; the
// TypeScript SDK by default) is served, and no state comes back to it,
// on success or on error.
func TestNoState(t *testing.T) {
	h := newHarness(t, nil)
	client := h.register("c", testRedirect)
	q := authQuery(client, newPKCE("n"))
	q.Del("state")
	_, fields := h.consent(q)
	r := h.decide(fields, "allow")
	loc, _ := url.Parse(r.header.Get("Location"))
	if r.status != http.StatusSeeOther || loc.Query().Get("code") == "" || loc.Query().Has("state") {
		t.Fatalf("allow without state: %d %q", r.status, r.header.Get("Location"))
	}
	q.Set("code_challenge_method", "plain")
	r = h.do("GET", AuthorizePath+"?"+q.Encode(), nil)
	loc, _ = url.Parse(r.header.Get("Location"))
	if loc.Query().Get("error") != "invalid_request" || loc.Query().Has("state") {
		t.Fatalf("error without state: %q", r.header.Get("Location"))
	}
}

// TestConsentTokenSingleUse: a consent page decides once. Its form posted
// again (allowed or denied before) is refused, and grants no second code.
func TestConsentTokenSingleUse(t *testing.T) {
	h := newHarness(t, nil)
	client := h.register("c", testRedirect)
	for _, first := range []string{"allow", "deny"} {
		_, fields := h.consent(authQuery(client, newPKCE("s")))
		if r := h.decide(fields, first); r.status != http.StatusSeeOther {
			t.Fatalf("%s: %d %s", first, r.status, r.body)
		}
		if r := h.decide(fields, "allow"); r.status != http.StatusForbidden || r.header.Get("Location") != "" {
			t.Errorf("the page's form posted again after %s: %d %q %s", first, r.status, r.header.Get("Location"), r.body)
		}
	}
	// Two pages for the same request are two decisions.
	q := authQuery(client, newPKCE("u"))
	_, a := h.consent(q)
	_, b := h.consent(q)
	for _, fields := range []url.Values{a, b} {
		if r := h.decide(fields, "allow"); r.status != http.StatusSeeOther {
			t.Errorf("a fresh page of the same request: %d %s", r.status, r.body)
		}
	}
}

// TestRegistrationNotFromWebPages: a web page cannot register clients:
// registration answers no CORS to a page of another origin and refuses
// its requests, preflight or not. Pages served from this machine
// (loopback origins, the Inspector's web UI) may.
func TestRegistrationNotFromWebPages(t *testing.T) {
	h := newHarness(t, nil)
	body := `{"redirect_uris":["` + testRedirect + `"]}`
	for _, origin := range []string{"https://evil.example", "http://evil.example:8787", "null", "http://127.0.0.1.evil.example"} {
		pre := h.do("OPTIONS", RegisterPath, nil, "Origin", origin, "Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "content-type")
		if got := pre.header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("preflight from %s allowed %q", origin, got)
		}
		r := h.do("POST", RegisterPath, strings.NewReader(body), "Content-Type", "application/json", "Origin", origin)
		if r.status != http.StatusForbidden || r.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("registration from %s: %d %q %s", origin, r.status, r.header.Get("Access-Control-Allow-Origin"), r.body)
		}
	}
	for _, origin := range []string{"http://localhost:6274", "http://127.0.0.1:3000"} {
		pre := h.do("OPTIONS", RegisterPath, nil, "Origin", origin, "Access-Control-Request-Method", "POST")
		if got := pre.header.Get("Access-Control-Allow-Origin"); got != origin {
			t.Errorf("preflight from %s: %d, allowed %q", origin, pre.status, got)
		}
		r := h.do("POST", RegisterPath, strings.NewReader(body), "Content-Type", "application/json", "Origin", origin)
		if r.status != http.StatusCreated || r.header.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("registration from %s: %d %q %s", origin, r.status, r.header.Get("Access-Control-Allow-Origin"), r.body)
		}
	}
}

// TestRegistrationFlood: registrations from one address are rate
// limited, and at the cap the oldest never-used registration makes room:
// a flood can neither fill the cap for good nor push out a client that
// signed in.
func TestRegistrationFlood(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(o *Options) { o.MaxClients = 4 })
		from := func(addr string) int {
			req := httptest.NewRequest("POST", RegisterPath, strings.NewReader(`{"redirect_uris":["`+testRedirect+`"]}`))
			req.Host = "127.0.0.1:8787"
			req.RemoteAddr = addr
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.mux.ServeHTTP(rec, req)
			return rec.Code
		}
		// A client that signs in holds a grant.
		used := h.register("used", testRedirect)
		p := newPKCE("v")
		_, refresh := tokens(t, h.exchange(used, h.code(used, p), p.verifier))

		// A burst from one address, then 429 until time passes.
		n := 1
		for ; n < 100 && from("127.0.0.1:5000") == http.StatusCreated; n++ {
			time.Sleep(time.Millisecond)
		}
		if n >= 100 || n < 4 {
			t.Fatalf("one address registered %d clients in a burst", n)
		}
		if got := from("127.0.0.1:5001"); got != http.StatusTooManyRequests {
			t.Errorf("the same address on another port: %d, want 429", got)
		}
		if got := from("[::1]:5000"); got != http.StatusCreated {
			t.Errorf("another address: %d, want 201", got)
		}
		time.Sleep(time.Minute)
		if got := from("127.0.0.1:5000"); got != http.StatusCreated {
			t.Errorf("a minute later: %d, want 201", got)
		}
		// Many more than the cap were registered; the client that signed
		// in is still there and refreshes.
		if _, rt := tokens(t, h.refresh(used, refresh)); rt == "" {
			t.Fatal("no refresh token")
		}
	})
}
