package auth

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	goldenMetadataURL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	goldenMissing     = `Bearer realm="warden", resource_metadata="` + goldenMetadataURL + `", scope="mcp:tools"`
	goldenInvalid     = `Bearer realm="warden", error="invalid_token", resource_metadata="` + goldenMetadataURL + `", scope="mcp:tools"`
	goldenBadRequest  = `Bearer realm="warden", error="invalid_request", resource_metadata="` + goldenMetadataURL + `", scope="mcp:tools"`
	goldenScope       = `Bearer realm="warden", error="insufficient_scope", error_description="the access token lacks a required scope", resource_metadata="` + goldenMetadataURL + `", scope="mcp:tools"`
)

type response struct {
	Status          int
	WWWAuthenticate string
	RetryAfter      string
	CacheControl    string
	Body            string
}

// echoPrincipal answers 200 with the identity found in the context.
var echoPrincipal = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	p, ok := PrincipalFrom(r.Context())
	if !ok {
		http.Error(w, "no principal", 500)
		return
	}
	w.Write([]byte(p.Credential + "@" + p.Tenant))
})

func serve(h http.Handler, r *http.Request) response {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return response{
		Status:          rec.Code,
		WWWAuthenticate: rec.Header().Get("WWW-Authenticate"),
		RetryAfter:      rec.Header().Get("Retry-After"),
		CacheControl:    rec.Header().Get("Cache-Control"),
		Body:            rec.Body.String(),
	}
}

func TestMiddlewareResponses(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), func(c *Config) { c.RequiredScopes = []string{"mcp:tools"} })
	good := tokenES(t, claims())
	noScope := claims()
	noScope["scope"] = "other"
	const (
		bodyMissing = `{"error":"missing_token","error_description":"a bearer token is required"}` + "\n"
		bodyInvalid = `{"error":"invalid_token","error_description":"the access token is invalid or expired"}` + "\n"
		bodyBadReq  = `{"error":"invalid_request","error_description":"the authorization request is malformed"}` + "\n"
		bodyScope   = `{"error":"insufficient_scope","error_description":"the access token lacks a required scope"}` + "\n"
	)
	missing := response{401, goldenMissing, "", "no-store", bodyMissing}
	invalid := response{401, goldenInvalid, "", "no-store", bodyInvalid}
	badReq := response{400, goldenBadRequest, "", "no-store", bodyBadReq}
	tests := []struct {
		name   string
		target string
		auth   []string
		want   response
	}{
		{"44 no Authorization header", "/mcp", nil, missing},
		{"45 Basic scheme", "/mcp", []string{"Basic dXNlcjpwYXNz"}, missing},
		{"45 scheme that starts like Bearer", "/mcp", []string{"BearerX " + good}, missing},
		{"46 lower-case scheme", "/mcp", []string{"bearer " + good}, response{200, "", "", "", "cred-1@tenant-a"}},
		{"46 upper-case scheme", "/mcp", []string{"BEARER " + good}, response{200, "", "", "", "cred-1@tenant-a"}},
		{"47 two Authorization headers", "/mcp", []string{"Bearer " + good, "Bearer " + good}, badReq},
		{"48 comma-joined credentials", "/mcp", []string{"Bearer " + good + ", Bearer " + good}, invalid},
		{"49 two spaces", "/mcp", []string{"Bearer  " + good}, invalid},
		{"50 tab after the scheme", "/mcp", []string{"Bearer\t" + good}, invalid},
		{"50 space inside the token", "/mcp", []string{"Bearer " + good[:10] + " " + good[10:]}, invalid},
		{"51 empty value", "/mcp", []string{""}, badReq},
		{"51 Bearer without a token", "/mcp", []string{"Bearer"}, badReq},
		{"52 token in the query", "/mcp?access_token=" + good, nil, badReq},
		{"52 token in the query and the header", "/mcp?x=1&access_token=" + good, []string{"Bearer " + good}, badReq},
		{"query mentioning access_token harmlessly", "/mcp?q=access_token", []string{"Bearer " + good}, response{200, "", "", "", "cred-1@tenant-a"}},
		{"rejected token", "/mcp", []string{"Bearer " + good[:len(good)-4] + "AAAA"}, invalid},
		{"55 valid token without the required scope", "/mcp", []string{"Bearer " + tokenES(t, noScope)}, response{403, goldenScope, "", "no-store", bodyScope}},
		{"valid token", "/mcp", []string{"Bearer " + good}, response{200, "", "", "", "cred-1@tenant-a"}},
	}
	h := v.Middleware(echoPrincipal)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", tt.target, nil)
			for _, a := range tt.auth {
				r.Header.Add("Authorization", a)
			}
			got := serve(h, r)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if strings.Contains(got.Body+got.WWWAuthenticate, good[:30]) {
				t.Error("response echoes the token")
			}
		})
	}
}

func TestMiddlewareNoScopesConfigured(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), nil)
	got := serve(v.Middleware(echoPrincipal), httptest.NewRequest("GET", "/mcp", nil))
	want := `Bearer realm="warden", resource_metadata="` + goldenMetadataURL + `"`
	if got.Status != 401 || got.WWWAuthenticate != want {
		t.Fatalf("got %d %q, want 401 %q", got.Status, got.WWWAuthenticate, want)
	}
}

func TestMiddlewareKeySetUnavailable(t *testing.T) {
	srv := newJWKSServer(t, nil)
	srv.set(http.StatusInternalServerError, nil)
	v, _ := urlVerifier(t, srv, nil)
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+tokenES(t, claims()))
	got := serve(v.Middleware(echoPrincipal), r)
	want := response{503, "", "5", "no-store", `{"error":"key_set_unavailable","error_description":"token signing keys are unavailable; retry later","retryAfterSeconds":5}` + "\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

// TestMiddlewareIdentityOnlyFromToken: identity-looking client headers and a
// principal planted by an outer layer are both replaced by the token's, and
// the token itself does not travel on to the next handler.
func TestMiddlewareIdentityOnlyFromToken(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), nil)
	var got Principal
	var downstreamAuth []string
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = PrincipalFrom(r.Context())
		downstreamAuth = r.Header.Values("Authorization")
	}))
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+tokenES(t, claims()))
	r.Header.Set("X-Warden-Tenant", "tenant-b")
	r.Header.Set("X-Forwarded-User", "admin")
	r = r.WithContext(WithPrincipal(r.Context(), Principal{Credential: "planted", Tenant: "tenant-b", Entitlements: []string{"*"}}))
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got.Credential != "cred-1" || got.Tenant != "tenant-a" || got.Entitled("anything") {
		t.Fatalf("principal = %+v", got)
	}
	if len(downstreamAuth) != 0 {
		t.Fatalf("the token reached the next handler: %d Authorization values", len(downstreamAuth))
	}
	if r.Header.Get("Authorization") == "" {
		t.Fatal("the caller's request was modified")
	}
}

// TestMiddlewareNeverLogsToken: refusal logs carry code and reason only.
func TestMiddlewareNeverLogsToken(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	v, _ := fileVerifier(t, standardJWKS(t), func(c *Config) { c.Logger = logger })
	c := claims()
	c["iss"] = "https://evil.example"
	tok := tokenES(t, c)
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	serve(v.Middleware(echoPrincipal), r)
	out := buf.String()
	if !strings.Contains(out, "reason="+ReasonIssuerMismatch) {
		t.Fatalf("log lacks the reason: %s", out)
	}
	for _, part := range strings.Split(tok, ".") {
		if strings.Contains(out, part[:16]) {
			t.Fatalf("log contains token text: %s", out)
		}
	}
}

func TestChallengeQuotesConfiguredValues(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), func(c *Config) {
		c.Realm = `a "quoted" \ realm`
		c.ResourceMetadataURL = "https://meta.example/prm"
	})
	got := v.Challenge(missingToken(ReasonNoAuthorization))
	want := `Bearer realm="a \"quoted\" \\ realm", resource_metadata="https://meta.example/prm"`
	if got != want {
		t.Fatalf("Challenge = %s, want %s", got, want)
	}
}

func TestWriteErrorForeignErrorFailsClosed(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), nil)
	rec := httptest.NewRecorder()
	v.WriteError(rec, context.DeadlineExceeded)
	if rec.Code != 401 || !strings.Contains(rec.Header().Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("got %d %q", rec.Code, rec.Header().Get("WWW-Authenticate"))
	}
}

// TestMiddlewareCheckCredential is row 53 of research/auth-quotas-storage.md §2.4: a valid token whose
// credential is unknown or revoked gets 401; a check that cannot answer
// fails closed with 503. Cached tokens are checked too.
func TestMiddlewareCheckCredential(t *testing.T) {
	revoked := map[string]bool{}
	var storeDown bool
	var calls int
	v, _ := fileVerifier(t, standardJWKS(t), func(c *Config) {
		c.CheckCredential = func(ctx context.Context, p Principal) error {
			calls++
			if storeDown {
				return context.DeadlineExceeded
			}
			if revoked[p.Credential] {
				return fmt.Errorf("credential %s: %w", p.Credential, ErrCredentialRejected)
			}
			return nil
		}
	})
	h := v.Middleware(echoPrincipal)
	tok := "Bearer " + tokenES(t, claims())
	same := func() *http.Request {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set("Authorization", tok)
		return r
	}
	if got := serve(h, same()); got.Status != 200 {
		t.Fatalf("active credential: %+v", got)
	}
	revoked["cred-1"] = true
	got := serve(h, same()) // now a cache hit
	if got.Status != 401 || got.WWWAuthenticate != `Bearer realm="warden", error="invalid_token", error_description="the access token was revoked; get a new one from the issuer", resource_metadata="`+goldenMetadataURL+`"` {
		t.Fatalf("revoked credential: %+v", got)
	}
	revoked["cred-1"] = false
	storeDown = true
	got = serve(h, same())
	want := response{503, "", "1", "no-store", `{"error":"credential_check_unavailable","error_description":"the credential cannot be checked now; retry later","retryAfterSeconds":1}` + "\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("store down (-want +got):\n%s", diff)
	}
	if calls != 3 {
		t.Fatalf("CheckCredential called %d times, want once per request", calls)
	}
}

// TestMiddlewareRenewHints: a token refused for a reason its holder can
// cure says what happened and how to get a new one, in the challenge and
// in the body; other refusals keep the short message.
func TestMiddlewareRenewHints(t *testing.T) {
	const hint = "run `warden token` for a new one"
	v, _ := fileVerifier(t, standardJWKS(t), func(c *Config) { c.RenewHint = hint })
	expired := claims()
	expired["iat"] = t0.Add(-2 * time.Hour).Unix()
	expired["exp"] = t0.Add(-time.Hour).Unix()
	otherAud := claims()
	otherAud["aud"] = "http://127.0.0.1:9999/mcp"
	otherIss := claims()
	otherIss["iss"] = "urn:warden:local"
	badSig := tokenES(t, claims())
	badSig = badSig[:len(badSig)-4] + "AAAA"
	tests := []struct {
		name, token, desc string
	}{
		{"expired", tokenES(t, expired), "the access token expired at 2026-06-01T11:00:00Z; " + hint},
		{"another audience", tokenES(t, otherAud), "the access token was issued for another server, not " + testAudience + "; " + hint},
		{"another issuer", tokenES(t, otherIss), "the access token comes from an issuer this server does not trust; " + hint},
		{"bad signature", badSig, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			r.Header.Set("Authorization", "Bearer "+tt.token)
			got := serve(v.Middleware(echoPrincipal), r)
			wantDesc := tt.desc
			challenge := `Bearer realm="warden", error="invalid_token", error_description="` + tt.desc + `", resource_metadata="` + goldenMetadataURL + `"`
			if tt.desc == "" {
				wantDesc = "the access token is invalid or expired"
				challenge = `Bearer realm="warden", error="invalid_token", resource_metadata="` + goldenMetadataURL + `"`
			}
			want := response{401, challenge, "", "no-store", `{"error":"invalid_token","error_description":"` + wantDesc + `"}` + "\n"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := NewVerifier(Config{Issuer: testIssuer, Audience: testAudience, JWKSFile: "x", RenewHint: `say "hi"`}); err == nil {
		t.Fatal("a RenewHint with a quote was accepted")
	}
}
