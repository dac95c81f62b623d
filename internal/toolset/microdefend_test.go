package toolset

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/safehttp"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/tooltest"
	"github.com/warden-mcp/warden/webscan"
)

func registryWith(t *testing.T, deps Deps) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry()
	if err := Register(reg, deps, Selection{Edition: EditionFull}); err != nil {
		t.Fatal(err)
	}
	return reg
}

// The production policy (Deps.SafeHTTP nil) refuses every input below
// before any connection, each with its documented code.
func TestScanWebsiteRefusals(t *testing.T) {
	reg := registryWith(t, Deps{})
	cases := map[string]string{
		`{}`:                                         "invalid_target",
		`{"url":5}`:                                  "invalid_target",
		`{"url":""}`:                                 "invalid_target",
		`{"url":"ftp://example.com/"}`:               "invalid_scheme",
		`{"url":"http://user:pw@example.com/"}`:      "credentials_in_url",
		`{"url":"http://127.0.0.1/"}`:                "blocked_ip",
		`{"url":"http://[::1]/"}`:                    "blocked_ip",
		`{"url":"http://2130706433/"}`:               "blocked_ip",
		`{"url":"http://169.254.169.254/latest/"}`:   "blocked_ip",
		`{"url":"http://localhost/"}`:                "blocked_hostname",
		`{"url":"http://metadata.google.internal/"}`: "blocked_hostname",
		`{"url":"http://example.com:8080/"}`:         "blocked_port",
		`{"url":"https://example.com/` + strings.Repeat("a", 2100) + `"}`: "url_too_long",
	}
	for args, code := range cases {
		rep, err := tooltest.Invoke(context.Background(), reg, "microdefend_scan_website", args, nil)
		if err != nil || rep.Result == nil {
			t.Fatalf("%.60s: %v", args, err)
		}
		if got := rep.Result.ErrorCode(); got != code {
			t.Errorf("%.60s: code %q, want %q (%s)", args, got, code, rep.Result.Content[0].Text)
		}
		if strings.Contains(string(rep.Raw), "127.0.0.1") && code == "blocked_ip" && !strings.Contains(args, "127.0.0.1") {
			t.Errorf("%.60s: the refused address leaked into the result", args)
		}
	}
}

type fixedResolver map[string]netip.Addr

func (r fixedResolver) LookupNetIP(_ context.Context, _ string, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return []netip.Addr{a}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// A scan of a local fixture site, reached only through a resolver and an
// exact address:port allowance injected by the test.
func TestScanWebsiteFixture(t *testing.T) {
	site := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.env":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("APP_ENV=production\nGITHUB_TOKEN=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\nDB_HOST=db\n"))
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Server", "Apache/2.4.41 (Ubuntu)")
			w.Write([]byte("<html><head><title>fixture</title></head><body>hello</body></html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	site.StartTLS()
	defer site.Close()
	ap := netip.MustParseAddrPort(site.Listener.Addr().String())
	pool := x509.NewCertPool()
	pool.AddCert(site.Certificate())
	deps := Deps{SafeHTTP: &safehttp.Options{
		AllowAddrPorts: []netip.AddrPort{ap},
		Resolver:       fixedResolver{"example.com.": ap.Addr()},
		RootCAs:        pool,
	}}
	reg := registryWith(t, deps)
	url := "https://example.com:" + itoa(ap.Port()) + "/"
	rep, err := tooltest.Invoke(context.Background(), reg, "microdefend_scan_website", `{"url":"`+url+`"}`, nil)
	if err != nil || rep.Result == nil || rep.Result.IsError {
		t.Fatalf("scan: %v %.400s", err, rep.Raw)
	}
	var out webscan.Report
	if err := json.Unmarshal(rep.Result.StructuredContent, &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != "completed" || out.ScanID == "" || out.Result.Grade == "" {
		t.Fatalf("report: %+v", out)
	}
	var envFinding *webscan.Finding
	for i, f := range out.Findings {
		if f.Category == webscan.CategoryExposure && strings.Contains(f.Title+f.Detail+f.Evidence, ".env") {
			envFinding = &out.Findings[i]
		}
	}
	if envFinding == nil {
		t.Fatalf("the exposed .env was not reported: %+v", out.Findings)
	}
	if bytes.Contains(rep.Raw, []byte("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")) || bytes.Contains(rep.Raw, []byte("wWPw5k4aXcaT")) {
		t.Error("the secret in the exposed file reached the result")
	}
	tooltest.Check(t, reg, &tooltest.Options{Samples: map[string][]string{"microdefend_scan_website": {`{"url":"` + url + `"}`}}})
}

func itoa(p uint16) string {
	b, _ := json.Marshal(p)
	return string(b)
}
