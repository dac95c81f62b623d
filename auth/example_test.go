package auth_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/warden-mcp/warden/auth"
)

// A fresh machine: create (or load) the local signing key, mint a token and
// verify it through the middleware.
func ExampleLoadOrCreateLocalKey() {
	dir, _ := os.MkdirTemp("", "warden-state")
	defer os.RemoveAll(dir)

	issuer, err := auth.LoadOrCreateLocalKey(dir)
	if err != nil {
		log.Fatal(err)
	}
	const resource = "http://127.0.0.1:8080/mcp"
	v, err := issuer.Verifier(auth.Config{Audience: resource})
	if err != nil {
		log.Fatal(err)
	}
	token, err := issuer.Mint(auth.TokenSpec{
		Audience:     resource,
		Subject:      "dev",
		Tenant:       "local",
		Entitlements: []string{"keysweep"},
	})
	if err != nil {
		log.Fatal(err)
	}

	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := auth.PrincipalFrom(r.Context())
		fmt.Println(p.Credential, p.Tenant, p.Entitled("keysweep_scan_text"), p.Entitled("webscan_check_headers"))
	}))
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	h.ServeHTTP(httptest.NewRecorder(), r)
	// Output: dev local true false
}

// The challenge a client without a token receives.
func ExampleVerifier_Middleware() {
	v, err := auth.NewVerifier(auth.Config{
		Issuer:         "https://issuer.example",
		Audience:       "https://mcp.example.com/mcp",
		JWKSURL:        "https://issuer.example/.well-known/jwks.json",
		RequiredScopes: []string{"mcp:tools"},
	})
	if err != nil {
		log.Fatal(err)
	}
	rec := httptest.NewRecorder()
	v.Middleware(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil))
	fmt.Println(rec.Code)
	fmt.Println(rec.Header().Get("WWW-Authenticate"))
	fmt.Print(rec.Body)
	// Output:
	// 401
	// Bearer realm="warden", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"
	// {"error":"missing_token","error_description":"a bearer token is required"}
}

// Mounting the RFC 9728 document at both well-known paths.
func ExampleVerifier_ProtectedResourceMetadata() {
	v, err := auth.NewVerifier(auth.Config{
		Issuer:   "https://issuer.example",
		Audience: "https://mcp.example.com/mcp",
		JWKSURL:  "https://issuer.example/.well-known/jwks.json",
	})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, path := range v.MetadataPaths() {
		mux.Handle("GET "+path, v.ProtectedResourceMetadata())
		fmt.Println(path)
	}
	// Output:
	// /.well-known/oauth-protected-resource
	// /.well-known/oauth-protected-resource/mcp
}

// The tool layer's entitlement check.
func ExamplePrincipal_CheckEntitled() {
	ctx := auth.WithPrincipal(context.Background(), auth.Principal{Credential: "c1", Tenant: "t1", Entitlements: []string{"keysweep_*"}})
	p, _ := auth.PrincipalFrom(ctx)
	fmt.Println(p.CheckEntitled("keysweep_scan_text"))
	fmt.Println(p.CheckEntitled("webscan_check_headers"))
	// Output:
	// <nil>
	// forbidden: credential lacks the webscan_check_headers entitlement
}
