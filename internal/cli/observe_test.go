package cli

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/internal/repotest"
	"github.com/warden-mcp/warden/telemetry"
)

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r, string(b)
}

// TestServeMetricsHealthAndJWKS: --metrics-listen serves /metrics and the
// health checks on a listener of its own; with the health paths off, the
// public listener no longer answers them (what it does answer:
// TestHealthOffAnswersOnlyTheDocumentedPaths); the local key's JWKS is
// also at /.well-known/mcp-jwks.json, never cached.
func TestServeMetricsHealthAndJWKS(t *testing.T) {
	if !telemetry.MetricsBuilt {
		t.Skip("built without -tags prometheus; TestOptionalWeightRefused covers this build")
	}
	maddr := freePort(t)
	cfgPath := filepath.Join(t.TempDir(), "warden.yaml")
	os.WriteFile(cfgPath, []byte("health:\n  liveness_path: \"-\"\n  readiness_path: \"-\"\n"), 0o600)
	url, token, stop := startServe(t, "--state-dir", t.TempDir(), "--config", cfgPath, "--metrics-listen", maddr)
	defer stop()
	base := strings.TrimSuffix(url, "/mcp")
	if resp, _ := post(t, url, token, "tools/list", ""); resp.StatusCode != 200 {
		t.Fatalf("list: %d", resp.StatusCode)
	}
	post(t, url, token, "tools/call", `"name":"keysweep_scan_text","arguments":{"text":"nothing"},`)
	r, body := get(t, "http://"+maddr+"/metrics")
	for _, want := range []string{
		`warden_requests_total{era="modern",method="tools/list",status="200",transport="http"} 1`,
		`warden_tool_calls_total{outcome="ok",tool="keysweep_scan_text"} 1`,
		"warden_in_flight_requests", "warden_legacy_sessions", "warden_open_streams", "warden_audit_records_pending",
	} {
		if r.StatusCode != 200 || !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if r, _ := get(t, "http://"+maddr+p); r.StatusCode != 200 {
			t.Errorf("metrics listener %s: %d", p, r.StatusCode)
		}
		if r, _ := get(t, base+p); r.StatusCode != 404 {
			t.Errorf("public %s with health off: %d, want 404", p, r.StatusCode)
		}
	}
	if r, _ := get(t, base+"/metrics"); r.StatusCode != 404 {
		t.Errorf("public /metrics: %d", r.StatusCode)
	}
	r, jwks := get(t, base+"/.well-known/mcp-jwks.json")
	_, orig := get(t, base+"/.well-known/jwks.json")
	if r.StatusCode != 200 || r.Header.Get("Cache-Control") != "no-store" || jwks != orig || !strings.Contains(jwks, `"kty":"EC"`) {
		t.Errorf("mcp-jwks.json: %d %q %s", r.StatusCode, r.Header.Get("Cache-Control"), jwks)
	}
}

// TestHealthOffAnswersOnlyTheDocumentedPaths: with the health paths off,
// the public listener answers exactly on the paths operations.md lists
// (the endpoint, uploads, the well-known documents, the local sign-in)
// and 404 on every other, the health checks included.
func TestHealthOffAnswersOnlyTheDocumentedPaths(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repotest.Root(t), "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, para, ok := strings.Cut(string(doc), "**Health checks.**")
	para, _, _ = strings.Cut(para, "\n\n")
	documented := regexp.MustCompile("`(/[a-z0-9._/-]*)`").FindAllStringSubmatch(para, -1)
	if !ok || len(documented) < 5 {
		t.Fatalf("operations.md's health-check paragraph lists %d paths", len(documented))
	}
	cfgPath := filepath.Join(t.TempDir(), "warden.yaml")
	os.WriteFile(cfgPath, []byte("health:\n  liveness_path: \"-\"\n  readiness_path: \"-\"\n"), 0o600)
	url, _, stop := startServe(t, "--state-dir", t.TempDir(), "--config", cfgPath)
	defer stop()
	base := strings.TrimSuffix(url, "/mcp")
	served := map[string]bool{}
	for _, m := range documented {
		p := m[1]
		if p == "/healthz" || p == "/readyz" {
			continue // named as what moves away
		}
		served[p] = true
		if r, _ := get(t, base+p); r.StatusCode == 404 {
			t.Errorf("%s is documented as served with the health paths off, and answers 404", p)
		}
	}
	// Every path the server has a handler for, and some it has not: what
	// the paragraph does not list must be 404.
	for _, p := range []string{"/uploads", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource",
		"/.well-known/jwks.json", "/.well-known/mcp-jwks.json", "/.well-known/oauth-authorization-server",
		"/oauth/register", "/oauth/authorize", "/oauth/token", "/oauth/revoke",
		"/healthz", "/readyz", "/metrics", "/", "/mcp/", "/uploads/x", "/oauth", "/oauth/", "/.well-known/",
		"/.well-known/openid-configuration", "/favicon.ico"} {
		if served[p] {
			continue
		}
		if r, _ := get(t, base+p); r.StatusCode != 404 {
			t.Errorf("%s answers %d with the health paths off; operations.md promises 404", p, r.StatusCode)
		}
	}
}
