package auth

import (
	"strings"
	"testing"
	"time"
)

func TestConfigErrors(t *testing.T) {
	base := Config{Issuer: testIssuer, Audience: testAudience, JWKSURL: "https://issuer.example/jwks"}
	tests := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"no issuer", func(c *Config) { c.Issuer = "" }, "Issuer is required"},
		{"no audience", func(c *Config) { c.Audience = "" }, "Audience is required"},
		{"relative audience", func(c *Config) { c.Audience = "/mcp" }, "absolute"},
		{"audience with query", func(c *Config) { c.Audience = "https://a.example/mcp?x=1" }, "query"},
		{"audience with fragment", func(c *Config) { c.Audience = "https://a.example/mcp#f" }, "fragment"},
		{"plain http audience", func(c *Config) { c.Audience = "http://a.example/mcp" }, "https"},
		{"no key source", func(c *Config) { c.JWKSURL = "" }, "one of"},
		{"two key sources", func(c *Config) { c.JWKSFile = "/x" }, "only one"},
		{"plain http JWKS", func(c *Config) { c.JWKSURL = "http://issuer.example/jwks" }, "https"},
		{"relative JWKS", func(c *Config) { c.JWKSURL = "/jwks" }, "absolute"},
		{"negative skew", func(c *Config) { c.Skew = -time.Second }, "Skew"},
		{"huge skew", func(c *Config) { c.Skew = time.Hour }, "Skew"},
		{"huge token cap", func(c *Config) { c.MaxTokenBytes = 1 << 20 }, "MaxTokenBytes"},
		{"negative duration", func(c *Config) { c.JWKSMaxStaleness = -1 }, "negative"},
		{"bad scope", func(c *Config) { c.RequiredScopes = []string{"a b"} }, "RequiredScopes"},
		{"control character in realm", func(c *Config) { c.Realm = "a\nb" }, "Realm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.mod(&c)
			_, err := NewVerifier(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewVerifier: %v, want error containing %q", err, tt.want)
			}
		})
	}
	// Loopback http is fine for both.
	c := base
	c.Audience, c.JWKSURL = "http://127.0.0.1:8080/mcp", "http://localhost:9/jwks"
	if _, err := NewVerifier(c); err != nil {
		t.Fatalf("loopback http: %v", err)
	}
}

func TestConfigDefaults(t *testing.T) {
	n, err := Config{Issuer: testIssuer, Audience: "HTTPS://MCP.example.com:443/mcp/", JWKSFile: "x"}.normalize(true)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"Audience", n.Audience, "https://mcp.example.com/mcp"},
		{"metadata URL", n.metadataURL, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"},
		{"ClaimNames", n.ClaimNames, ClaimNames{"sub", "tenant", "entitlements", "scope"}},
		{"Skew", n.Skew, DefaultSkew},
		{"MaxTokenBytes", n.MaxTokenBytes, DefaultMaxTokenBytes},
		{"MaxLifetime", n.MaxLifetime, DefaultMaxLifetime},
		{"JWKSRefreshInterval", n.JWKSRefreshInterval, DefaultJWKSRefresh},
		{"JWKSMinRefreshInterval", n.JWKSMinRefreshInterval, DefaultJWKSMinRefresh},
		{"JWKSMaxStaleness", n.JWKSMaxStaleness, DefaultJWKSMaxStaleness},
		{"JWKSTimeout", n.JWKSTimeout, DefaultJWKSTimeout},
		{"MaxJWKSBytes", n.MaxJWKSBytes, int64(DefaultMaxJWKSBytes)},
		{"VerifiedCacheSize", n.VerifiedCacheSize, DefaultVerifiedCacheSize},
		{"Realm", n.Realm, DefaultRealm},
		{"AuthorizationServers", strings.Join(n.AuthorizationServers, ","), testIssuer},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestCanonicalURIMatches(t *testing.T) {
	c, err := parseCanonicalURI("https://mcp.example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		aud  string
		want bool
	}{
		{"https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/mcp/", true},
		{"HTTPS://MCP.EXAMPLE.COM/mcp", true},
		{"https://mcp.example.com:443/mcp", true},
		{"https://mcp.example.com/mcp//", false},
		{"https://mcp.example.com:8443/mcp", false},
		{"http://mcp.example.com/mcp", false},
		{"https://mcp.example.com/MCP", false},
		{"https://mcp.example.com/mcp?x", false},
		{"https://mcp.example.com/mcp#x", false},
		{"https://user@mcp.example.com/mcp", false},
		{"https://mcp.example.com", false},
		{"mcp.example.com/mcp", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := c.matches(tt.aud); got != tt.want {
			t.Errorf("matches(%q) = %v, want %v", tt.aud, got, tt.want)
		}
	}
}
