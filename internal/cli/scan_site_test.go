package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// devSite is a developer's own site on a loopback port, counting the
// requests it gets.
func devSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Set-Cookie", "sessionid=1")
		fmt.Fprint(w, "<html><head><title>my app</title></head><body>dev</body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func sitePort(t *testing.T, srv *httptest.Server) string {
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// The developer's own site on localhost:PORT is refused by default with
// every flag it needs named at once, and scanned with them, the report
// saying so in text, JSON and HTML.
func TestScanSiteOwnDevSite(t *testing.T) {
	if edition != "full" {
		t.Skip("the lean edition has no website scan")
	}
	srv, hits := devSite(t)
	port := sitePort(t, srv)
	target := "http://localhost:" + port + "/"
	state := t.TempDir()

	_, errOut, code := run(t, "", "scan", "site", "--state-dir", state, target)
	if code != ExitError {
		t.Fatalf("exit %d, want %d", code, ExitError)
	}
	for _, want := range []string{
		"blocked_port: port " + port + " is not scanned; Warden scans ports 80 and 443 only unless you pass --allow-port " + port + " (CLI only)",
		"and then blocked_hostname: localhost is a loopback name; Warden never scans local host names unless you pass --allow-private (CLI only)",
		"Try: warden scan site --allow-private --allow-port " + port + " --state-dir " + state + " " + target,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("refusal lacks %q:\n%s", want, errOut)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("a refused scan sent %d requests", hits.Load())
	}

	page := filepath.Join(t.TempDir(), "report.html")
	out, errOut, code := run(t, "", "scan", "site", "--state-dir", state, "--allow-private", "--allow-port", port, "--json", "--html", page, target)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Status         string `json:"status"`
		PolicyWarnings []struct {
			Code, Message string
		} `json:"policy_warnings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Status != "completed" || len(rep.PolicyWarnings) != 2 || rep.PolicyWarnings[0].Code != "private_addresses_allowed" ||
		rep.PolicyWarnings[1].Code != "extra_ports_allowed" || !strings.Contains(rep.PolicyWarnings[1].Message, "port "+port+" besides 80 and 443") {
		t.Errorf("JSON report: %+v", rep)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `<div class="warning" role="alert"><strong>Warning:</strong> This scan could reach loopback`) {
		t.Error("the HTML report lacks the warning")
	}
	out, _, code = run(t, "", "scan", "site", "--state-dir", state, "--allow-private", "--allow-port", port, target)
	if code != 0 || !strings.Contains(out, "WARNING: This scan could reach loopback") || !strings.Contains(out, "WARNING: This scan could reach port "+port) {
		t.Errorf("text report (exit %d):\n%s", code, out)
	}
}

func TestScanSiteExplainsRefusals(t *testing.T) {
	if edition != "full" {
		t.Skip("the lean edition has no website scan")
	}
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"http://127.0.0.1/"}, "blocked_ip: 127.0.0.1 is a loopback address; Warden never scans private or loopback addresses unless you pass --allow-private (CLI only)\n  Try: warden scan site --allow-private --state-dir ", ""},
		{[]string{"http://169.254.169.254/"}, "blocked_ip: 169.254.169.254 is a cloud-metadata endpoint; Warden never scans it, not even with --allow-private", "Try:"},
		{[]string{"--allow-private", "http://169.254.169.254/"}, "not even with --allow-private", "Try:"},
		{[]string{"--allow-private", "http://127.0.0.1:8080/"}, "blocked_port: port 8080 is not scanned; Warden scans ports 80 and 443 only unless you pass --allow-port 8080 (CLI only)\n  Try: warden scan site --allow-private --allow-port 8080 --state-dir ", "and then"},
		{[]string{"example.com"}, "invalid_scheme: only http and https URLs are scanned; did you mean https://example.com?", ""},
		{[]string{"--allow-port", "70000", "http://127.0.0.1/"}, "--allow-port 70000: want a port from 1 to 65535", ""},
	} {
		_, errOut, code := run(t, "", append([]string{"scan", "site", "--state-dir", t.TempDir()}, c.args...)...)
		if code != ExitError || !strings.Contains(errOut, c.want) || (c.not != "" && strings.Contains(errOut, c.not)) {
			t.Errorf("%v: exit %d\n%s\nwant %q", c.args, code, errOut, c.want)
		}
	}
}

// The Try: line of a refusal is the whole command again: the flags the
// user gave, the widening ones among them merged with those the URL needs.
func TestScanSiteTryKeepsFlags(t *testing.T) {
	if edition != "full" {
		t.Skip("the lean edition has no website scan")
	}
	srv, hits := devSite(t)
	port := sitePort(t, srv)
	target := "http://localhost:" + port + "/"
	state := t.TempDir()
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	spaced := filepath.Join(dir, "my report.html")
	for _, c := range []struct {
		args []string
		url  string
		want string // after "Try: warden scan site "; "" means no Try line
	}{
		{nil, target, "--allow-private --allow-port " + port + " " + target},
		{[]string{"--json"}, target, "--allow-private --allow-port " + port + " --json " + target},
		{[]string{"--allow-port", port, "--html", page}, target, "--allow-private --allow-port " + port + " --html " + page + " " + target},
		{[]string{"--allow-private", "--fail-below", "B"}, target, "--allow-private --allow-port " + port + " --fail-below B " + target},
		{[]string{"--allow-port", "9999", "--json"}, target, "--allow-private --allow-port 9999 --allow-port " + port + " --json " + target},
		{[]string{"--allow-port=9999,8443"}, target, "--allow-private --allow-port 9999 --allow-port 8443 --allow-port " + port + " " + target},
		{[]string{"--html", spaced, "--json=false"}, target, "--allow-private --allow-port " + port + " --html '" + spaced + "' --json=false " + target},
		{[]string{"--json"}, "http://127.0.0.1/?a=1&b=2", "--allow-private --json 'http://127.0.0.1/?a=1&b=2'"},
		{[]string{"--allow-private", "--allow-port", port, "--json"}, "http://169.254.169.254:" + port + "/", ""},
	} {
		args := append(append([]string{"scan", "site"}, c.args...), "--state-dir", state, c.url)
		_, errOut, code := run(t, "", args...)
		if code != ExitError {
			t.Errorf("%v: exit %d, want %d", c.args, code, ExitError)
			continue
		}
		_, try, found := strings.Cut(errOut, "Try: warden scan site ")
		switch {
		case c.want == "" && found:
			t.Errorf("%v: a Try: line where no flag helps:\n%s", c.args, errOut)
		case c.want != "" && strings.TrimSpace(try) != strings.Replace(c.want, " "+shellQuote(c.url), " --state-dir "+state+" "+shellQuote(c.url), 1):
			t.Errorf("%v:\n got Try: warden scan site %s\nwant Try: warden scan site %s", c.args, strings.TrimSpace(try),
				strings.Replace(c.want, " "+shellQuote(c.url), " --state-dir "+state+" "+shellQuote(c.url), 1))
		}
	}
	if hits.Load() != 0 {
		t.Errorf("refused scans sent %d requests", hits.Load())
	}
}

// A report path that cannot be written fails before any request, and a
// failed scan leaves an earlier report where it was.
func TestScanSiteOpensReportFirst(t *testing.T) {
	if edition != "full" {
		t.Skip("the lean edition has no website scan")
	}
	srv, hits := devSite(t)
	port := sitePort(t, srv)
	bad := filepath.Join(t.TempDir(), "missing-dir", "report.html")
	_, errOut, code := run(t, "", "scan", "site", "--state-dir", t.TempDir(), "--allow-private", "--allow-port", port, "--html", bad, srv.URL)
	if code != ExitError || !strings.Contains(errOut, "--html:") || hits.Load() != 0 {
		t.Errorf("exit %d, %d requests sent: %s", code, hits.Load(), errOut)
	}

	dir := t.TempDir()
	old := filepath.Join(dir, "old.html")
	os.WriteFile(old, []byte("earlier report"), 0o644)
	fresh := filepath.Join(dir, "fresh.html")
	for _, p := range []string{old, fresh} {
		if _, _, code := run(t, "", "scan", "site", "--state-dir", t.TempDir(), "--html", p, "http://127.0.0.1/"); code != ExitError {
			t.Fatalf("exit %d", code)
		}
	}
	if b, _ := os.ReadFile(old); string(b) != "earlier report" {
		t.Errorf("a failed scan changed the earlier report: %q", b)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a failed scan left a report file behind: %v", err)
	}
}
