package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConfigLayers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "warden.yaml")
	os.WriteFile(path, []byte(`
listen: 0.0.0.0:9000
public_url: https://warden.example.com/mcp
auth:
  issuer: https://idp.example.com/
  jwks_url: https://idp.example.com/jwks.json
  claims: {tenant: org_id, entitlements: warden_tools}
limits:
  requests_per_window: 600
  request_window: 60s
  monthly_scans: 5000
store:
  dsn: postgres://warden@db.example.com/warden
allowed_origins: [https://app.example.com]
`), 0o600)
	env := map[string]string{"WARDEN_STORE_DSN": "postgres://warden@db2.example.com/warden", "WARDEN_MONTHLY_SCANS": "42"}
	cfg, err := loadConfig(path, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err = cfg.withDefaults(); err != nil {
		t.Fatal(err)
	}
	if err := cfg.checkServe(); err != nil {
		t.Errorf("a production config refused: %v", err)
	}
	if cfg.Store.DSN != "postgres://warden@db2.example.com/warden" || cfg.Limits.MonthlyScans != 42 {
		t.Errorf("environment did not override the file: %+v", cfg)
	}
	if cfg.Auth.Claims.Tenant != "org_id" || cfg.Limits.RequestsPerWindow != 600 || time.Duration(cfg.Limits.RequestWindow) != time.Minute {
		t.Errorf("file values: %+v", cfg)
	}
	if cfg.Path != "/mcp" || cfg.ShutdownTimeout == 0 {
		t.Errorf("defaults: %+v", cfg)
	}
}

func TestConfigRefusals(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("listn: 1.2.3.4:80\n"), 0o600)
	if _, err := loadConfig(bad, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "listn") {
		t.Errorf("a misspelt key was accepted: %v", err)
	}
	cfg, _ := Config{Listen: "0.0.0.0:8787"}.withDefaults()
	if err := cfg.checkServe(); err == nil {
		t.Error("a public bind with the local development key was accepted")
	}
	if _, err := (Config{Auth: AuthConfig{Issuer: "https://idp"}}).withDefaults(); err == nil {
		t.Error("an issuer without keys was accepted")
	}
	cfg, err := Config{Listen: "127.0.0.1:0"}.withDefaults()
	if err != nil || cfg.checkServe() != nil || cfg.PublicURL != "http://127.0.0.1:0/mcp" {
		t.Errorf("loopback default: %v %+v", err, cfg)
	}
}

// A given public URL survives any listen spelling; only a derived one
// follows the port the kernel picked.
func TestServeKeepsThePublicURL(t *testing.T) {
	t.Setenv("WARDEN_PUBLIC_URL", "http://localhost:9999/mcp")
	e := &env{}
	cfg, derived, err := e.serveConfig(serveFlags{listen: "localhost:0", stateDir: t.TempDir()})
	if err != nil || derived || cfg.PublicURL != "http://localhost:9999/mcp" {
		t.Errorf("explicit public URL: %v %v %q", err, derived, cfg.PublicURL)
	}
	t.Setenv("WARDEN_PUBLIC_URL", "")
	cfg, derived, err = e.serveConfig(serveFlags{listen: "127.0.0.1:0", stateDir: t.TempDir()})
	if err != nil || !derived {
		t.Errorf("derived public URL: %v %v %q", err, derived, cfg.PublicURL)
	}
}
