package auth

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProtectedResourceMetadata(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), func(c *Config) {
		c.RequiredScopes = []string{"mcp:tools"}
		c.ResourceName = "Warden"
	})
	if diff := cmp.Diff([]string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"}, v.MetadataPaths()); diff != "" {
		t.Errorf("MetadataPaths (-want +got):\n%s", diff)
	}
	const want = `{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://issuer.example"],` +
		`"bearer_methods_supported":["header"],"scopes_supported":["mcp:tools"],"resource_name":"Warden"}` + "\n"
	h := v.ProtectedResourceMetadata()
	for _, path := range v.MetadataPaths() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		got := []string{rec.Body.String(), rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"), rec.Header().Get("Access-Control-Allow-Origin")}
		if diff := cmp.Diff([]string{want, "application/json", "public, max-age=3600", "*"}, got); diff != "" || rec.Code != 200 {
			t.Errorf("GET %s: %d (-want +got):\n%s", path, rec.Code, diff)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", v.MetadataPaths()[0], nil))
	if rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d, Allow %q", rec.Code, rec.Header().Get("Allow"))
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("HEAD", v.MetadataPaths()[0], nil))
	if rec.Code != 200 || rec.Body.Len() != 0 {
		t.Errorf("HEAD: %d, %d body bytes", rec.Code, rec.Body.Len())
	}
}

func TestMetadataPathsRootResource(t *testing.T) {
	v, _ := fileVerifier(t, standardJWKS(t), func(c *Config) { c.Audience = "https://mcp.example.com:8443/" })
	if diff := cmp.Diff([]string{"/.well-known/oauth-protected-resource"}, v.MetadataPaths()); diff != "" {
		t.Errorf("MetadataPaths (-want +got):\n%s", diff)
	}
	if got, want := v.ResourceMetadataURL(), "https://mcp.example.com:8443/.well-known/oauth-protected-resource"; got != want {
		t.Errorf("ResourceMetadataURL = %s, want %s", got, want)
	}
	if got, want := v.Resource(), "https://mcp.example.com:8443"; got != want {
		t.Errorf("Resource = %s, want %s", got, want)
	}
}
