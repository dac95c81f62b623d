package cli

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/warden-mcp/warden/auth/localas"
)

// TestAuthorizationServerOnlyLocal: only the local profile (loopback
// listener, local key, loopback public URL) is its own authorization
// server, and its RFC 9728 metadata names it. A hosted configuration, with
// an external issuer or reachable beyond loopback, serves none of the
// endpoints and its metadata names the configured issuer.
func TestAuthorizationServerOnlyLocal(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	asPaths := []string{localas.MetadataPath, localas.AuthorizePath, localas.TokenPath, localas.RegisterPath, localas.RevokePath}
	for _, c := range []struct {
		name       string
		cfg        Config
		wantAS     bool
		wantServer string // authorization_servers[0] of the RFC 9728 document
	}{
		{"local", Config{StateDir: t.TempDir(), Listen: "127.0.0.1:8787"}, true, "http://127.0.0.1:8787"},
		{"external issuer on loopback", Config{StateDir: t.TempDir(), Listen: "127.0.0.1:8787",
			Auth: AuthConfig{Issuer: "https://idp.example.com/", JWKSFile: jwksFile(t)}}, false, "https://idp.example.com/"},
		{"local key on all interfaces", Config{StateDir: t.TempDir(), Listen: "0.0.0.0:8787", PublicURL: "https://mcp.example.com/mcp"}, false, "urn:warden:local"},
		{"local key behind a proxy", Config{StateDir: t.TempDir(), Listen: "127.0.0.1:8787", PublicURL: "https://mcp.example.com/mcp"}, false, "urn:warden:local"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := c.cfg.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			ctl, err := openControls(context.Background(), cfg, logger, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ctl.close()
			docs := ctl.documents()
			for _, p := range asPaths {
				if _, ok := docs[p]; ok != c.wantAS {
					t.Errorf("serves %s: %v, want %v", p, ok, c.wantAS)
				}
			}
			if (ctl.as != nil) != c.wantAS {
				t.Errorf("authorization server present: %v", ctl.as != nil)
			}
			rec := httptest.NewRecorder()
			docs["/.well-known/oauth-protected-resource/mcp"].ServeHTTP(rec, httptest.NewRequest("GET", "/.well-known/oauth-protected-resource/mcp", nil))
			var prm struct {
				AuthorizationServers []string `json:"authorization_servers"`
			}
			json.Unmarshal(rec.Body.Bytes(), &prm)
			if len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != c.wantServer {
				t.Errorf("authorization_servers = %v, want [%s]", prm.AuthorizationServers, c.wantServer)
			}
			if c.wantAS {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest("GET", localas.MetadataPath, nil)
				req.Host = "127.0.0.1:8787"
				docs[localas.MetadataPath].ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					t.Errorf("AS metadata: %d", rec.Code)
				}
			}
		})
	}
}
