package cli

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/internal/toolset"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/policy"
	"github.com/warden-mcp/warden/safehttp"
	"github.com/warden-mcp/warden/store/sqlite"
	"github.com/warden-mcp/warden/tool"
)

type oneHost struct{ addr netip.Addr }

func (h oneHost) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{h.addr}, nil
}

// privateSite is a fixture site whose answers carry what the privacy
// modes must remove (a session cookie, a token in a redirect's query) next
// to what they must keep (the server banner, the paths).
func privateSite(t *testing.T) (*httptest.Server, netip.AddrPort, *x509.CertPool) {
	t.Helper()
	site := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "nginx/1.25.3")
		w.Header().Set("Set-Cookie", "session=sess-9f8e7d6c5b4a39281706; Path=/; HttpOnly")
		w.Header().Set("X-Api-Key", "ak-live-77c0ffee77c0ffee77c0ffee")
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><head><title>Private</title></head><body>hello</body></html>"))
			return
		}
		http.NotFound(w, r)
	}))
	site.StartTLS()
	t.Cleanup(site.Close)
	ap := netip.MustParseAddrPort(site.Listener.Addr().String())
	pool := x509.NewCertPool()
	pool.AddCert(site.Certificate())
	return site, ap, pool
}

// scanUnder runs the website scan of the fixture through the privacy
// layer the wiring builds, in one mode, and returns the response bytes.
func scanUnder(t *testing.T, mode string, ap netip.AddrPort, pool *x509.CertPool) string {
	t.Helper()
	reg := tool.NewRegistry()
	deps := toolset.Deps{SafeHTTP: &safehttp.Options{AllowAddrPorts: []netip.AddrPort{ap}, Resolver: oneHost{ap.Addr()}, RootCAs: pool}}
	if err := toolset.Register(reg, deps, toolset.Selection{Edition: toolset.EditionFull}); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	lim, _ := limits.New(st, nil)
	gates, err := policy.NewGates(reg, policy.CatalogConfig{Unsafe: true, Approvals: policy.ApprovalsClient}, st)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := newPrivacy(Config{Privacy: mode}, []byte("0123456789abcdef0123456789abcdef"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctl := &policy.Controls{Limiter: lim, Gates: gates, Local: policy.LocalPrincipal(), Questions: priv.Questions()}
	srv := mcp.NewServer(reg, &mcp.Options{Middleware: append(ctl.Middleware(), priv.Middleware())})
	t.Cleanup(srv.Close)
	url := "https://shop.example.com:" + strconv.Itoa(int(ap.Port())) + "/?token=tk-0f1e2d3c4b5a69788796a5b4&page=2"
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"microdefend_scan_website","arguments":{"url":"` + url +
		`"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	out := string(srv.ServeMessage(auth.WithPrincipal(context.Background(), *policy.LocalPrincipal()), []byte(msg), nil))
	if !strings.Contains(out, `"isError":false`) {
		t.Fatalf("%s: the scan failed: %.600s", mode, out)
	}
	return out
}

// The bytes a client receives. The scan never reports cookie values or
// unknown headers at all, in any mode (the engine keeps what it grades,
// not what it saw); the token in the URL's query is removed by balanced
// and strict and kept byte for byte by off; nearby values that are not
// secret (the server banner, the query's keys, the cookie's name) survive.
func TestPrivacyOnTheWebsiteScan(t *testing.T) {
	if edition != "full" {
		t.Skip("the lean edition has no website scan")
	}
	_, ap, pool := privateSite(t)
	const token = "tk-0f1e2d3c4b5a69788796a5b4"
	never := []string{"sess-9f8e7d6c5b4a39281706", "ak-live-77c0ffee77c0ffee77c0ffee"}
	keep := []string{"nginx/1.25.3", "token=", "page=", `"name\":\"session\"`}

	off := scanUnder(t, "off", ap, pool)
	if !strings.Contains(off, "token="+token) {
		t.Errorf("off changed the URL; it must change nothing")
	}
	for _, mode := range []string{"off", "balanced", "strict"} {
		got := off
		if mode != "off" {
			got = scanUnder(t, mode, ap, pool)
			if strings.Contains(got, token) {
				t.Errorf("%s: the token in the query reached the client", mode)
			}
			if !strings.Contains(got, "token=REDACTED") {
				t.Errorf("%s: the query value was not replaced by its marker", mode)
			}
		}
		for _, s := range never {
			if strings.Contains(got, s) {
				t.Errorf("%s: %q reached the client", mode, s)
			}
		}
		for _, k := range keep {
			if !strings.Contains(got, k) {
				t.Errorf("%s: the non-secret %q was removed", mode, k)
			}
		}
	}
	strict := scanUnder(t, "strict", ap, pool)
	if strings.Contains(strict, "shop.example.com") || !strings.Contains(strict, ".invalid") {
		t.Error("strict kept the host name instead of its pseudonym")
	}
	if bal := scanUnder(t, "balanced", ap, pool); !strings.Contains(bal, "shop.example.com") {
		t.Error("balanced removed the host name, which only strict replaces")
	}
}

// keysweep_scan_text never returns a secret by construction: its output
// is the same bytes in every mode (the privacy pass finds nothing to
// remove and removes nothing it should keep).
func TestPrivacyOnTheSecretScan(t *testing.T) {
	w := func(mode string) string {
		reg := tool.NewRegistry()
		if err := toolset.Register(reg, toolset.Deps{FingerprintKey: []byte("fixed-fingerprint-key-0123456789")}, toolset.Selection{Edition: edition}); err != nil {
			t.Fatal(err)
		}
		priv, err := newPrivacy(Config{Privacy: mode}, []byte("0123456789abcdef0123456789abcdef"), nil)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := sqlite.Open(context.Background(), t.TempDir(), nil)
		t.Cleanup(func() { st.Close() })
		lim, _ := limits.New(st, nil)
		ctl := &policy.Controls{Limiter: lim, Local: policy.LocalPrincipal()}
		srv := mcp.NewServer(reg, &mcp.Options{Middleware: append(ctl.Middleware(), priv.Middleware())})
		t.Cleanup(srv.Close)
		text := `aws_access_key_id = AKIAIOSFODNN7EXAMPLE\nrequest_id = 9f0b3c2e-8d4a-4f7e-b1a2-3c4d5e6f7a8b\ngithub = 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`
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"keysweep_scan_text","arguments":{"text":"` + text +
			`"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		return string(srv.ServeMessage(auth.WithPrincipal(context.Background(), *policy.LocalPrincipal()), []byte(msg), nil))
	}
	off, bal := w("off"), w("balanced")
	if off != bal {
		t.Errorf("balanced changed a result that holds no secret:\noff:      %.400s\nbalanced: %.400s", off, bal)
	}
	if strings.Contains(off, "AKIAIOSFODNN7EXAMPLE") || strings.Contains(off, "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") || !strings.Contains(off, "github_personal_access_token") {
		t.Errorf("the scan result: %.600s", off)
	}
}

// A tenant may be stricter than the server.
func TestPrivacyPerTenant(t *testing.T) {
	p, err := newPrivacy(Config{Privacy: "off", Tenants: map[string]TenantConfig{"acme": {Privacy: "strict"}}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.ForTenant("acme").Mode() != "strict" || p.ForTenant("other").Mode() != "off" {
		t.Errorf("acme %s, other %s", p.ForTenant("acme").Mode(), p.ForTenant("other").Mode())
	}
	if _, err := newPrivacy(Config{Tenants: map[string]TenantConfig{"acme": {Privacy: "loud"}}}, nil, nil); err == nil {
		t.Error("a tenant's unknown mode was accepted")
	}
	if got := p.Questions().Hide("password=hunter2-but-longer-Zq9"); strings.Contains(got, "hunter2-but-longer-Zq9") {
		t.Errorf("approval questions must never repeat a secret, even when the mode is off: %q", got)
	}
}

// A credential embedded in a binary is a secret like any other:
// bininspect_strings through the wired server drops it in balanced mode,
// keeps it in off, and keeps the strings around it in both.
func TestPrivacyOnBinaryStrings(t *testing.T) {
	ctx := context.Background()
	run := func(mode string) string {
		state := t.TempDir()
		cfg, err := Config{StateDir: state, Privacy: mode}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		ctl, err := openControls(ctx, cfg, discardLogger(), true, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ctl.close)
		w, err := wire(wireOptions{logger: discardLogger(), stateDir: state, controls: ctl, cfg: cfg})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.srv.Close)
		call := func(name, args string) string {
			msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args +
				`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			return string(w.srv.ServeMessage(ctx, []byte(msg), nil))
		}
		blob := base64.StdEncoding.EncodeToString([]byte("\x00\x01\x02\x03config/settings.json\x00\x00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\x00\x00Usage: tool [options]\x00"))
		if out := call("bininspect_open", `{"data_base64":"`+blob+`","format":"raw","arch":"x86-64"}`); !strings.Contains(out, `"isError":false`) {
			t.Fatalf("open: %.400s", out)
		}
		return call("bininspect_strings", `{}`)
	}
	const token = "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"
	off, bal := run("off"), run("balanced")
	if !strings.Contains(off, token) {
		t.Errorf("off removed the token: %.600s", off)
	}
	if strings.Contains(bal, token) || !strings.Contains(bal, "[REDACTED:github_personal_access_token]") {
		t.Errorf("balanced: %.600s", bal)
	}
	for _, keep := range []string{"config/settings.json", "Usage: tool [options]"} {
		if !strings.Contains(off, keep) || !strings.Contains(bal, keep) {
			t.Errorf("%q did not survive both modes", keep)
		}
	}
}
