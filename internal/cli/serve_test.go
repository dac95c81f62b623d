package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// startServe runs warden serve on a free loopback port and returns its URL,
// the development token it printed, and a stop function.
func startServe(t *testing.T, args ...string) (url, token string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := Run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0", "--log-level", "error"}, args...), strings.NewReader(""), pw, io.Discard)
		pw.Close()
		done <- code
	}()
	sc := bufio.NewScanner(pr)
	urlRE := regexp.MustCompile(`listening on (http://\S+)`)
	for sc.Scan() {
		line := sc.Text()
		if m := urlRE.FindStringSubmatch(line); m != nil {
			url = m[1]
		}
		if strings.HasPrefix(line, "eyJ") {
			token = line
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" || token == "" {
		cancel()
		t.Fatalf("serve printed no URL or token (exit %d)", <-done)
	}
	return url, token, func() int { cancel(); return <-done }
}

func post(t *testing.T, url, token, method, params string) (*http.Response, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if m := regexp.MustCompile(`"name":"([^"]+)"`).FindStringSubmatch(params); m != nil {
		req.Header.Set("Mcp-Name", m[1])
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestServeEndToEnd(t *testing.T) {
	if edition != "full" {
		t.Skip("uses the website scan, which the lean edition lacks")
	}
	state := t.TempDir()
	cfgPath := filepath.Join(t.TempDir(), "warden.yaml")
	os.WriteFile(cfgPath, []byte("limits:\n  requests_per_window: 8\n  request_window: 60s\n"), 0o600)
	url, token, stop := startServe(t, "--state-dir", state, "--config", cfgPath, "--unsafe")

	// No token: 401 with the challenge that points at the metadata.
	resp, _ := post(t, url, "", "tools/list", "")
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="`) {
		t.Errorf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	// A bad token: invalid_token.
	resp, _ = post(t, url, token+"x", "tools/list", "")
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("bad token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	// The development token lists and calls.
	resp, body := post(t, url, token, "tools/list", "")
	if resp.StatusCode != 200 || !strings.Contains(body, "keysweep_scan_text") || resp.Header.Get("RateLimit") == "" {
		t.Errorf("list: %d %.200s %v", resp.StatusCode, body, resp.Header)
	}
	// A token entitled to keysweep only is refused the website scan, as a
	// tool result the model can read.
	var out bytes.Buffer
	if code := Run(context.Background(), []string{"token", "--state-dir", state, "--listen", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"), "--entitle", "keysweep", "--subject", "bob"}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("warden token exit %d", code)
	}
	bob := strings.TrimSpace(out.String())
	_, body = post(t, url, bob, "tools/call", `"name":"microdefend_scan_website","arguments":{"url":"https://example.com"},`)
	if !strings.Contains(body, "forbidden: this credential is not entitled to microdefend_scan_website") {
		t.Errorf("not entitled: %s", body)
	}
	_, body = post(t, url, bob, "tools/call", `"name":"keysweep_scan_text","arguments":{"text":"nothing"},`)
	if !strings.Contains(body, `\"status\":\"completed\"`) {
		t.Errorf("entitled: %s", body)
	}
	// The transport limit: 8 requests per minute per credential.
	var last *http.Response
	for i := 0; i < 8; i++ {
		last, _ = post(t, url, bob, "tools/list", "")
	}
	if last.StatusCode != 429 || last.Header.Get("Retry-After") == "" {
		t.Errorf("over the limit: %d %v", last.StatusCode, last.Header)
	}
	// Public documents need no token.
	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/jwks.json", "/healthz", "/readyz"} {
		r, err := http.Get(strings.TrimSuffix(url, "/mcp") + p)
		if err != nil || r.StatusCode != 200 {
			t.Errorf("%s: %v %v", p, err, r)
		}
		r.Body.Close()
	}
	if code := stop(); code != 0 {
		t.Errorf("serve exit %d", code)
	}
	// The audit trail has the calls, never their arguments.
	out.Reset()
	Run(context.Background(), []string{"audit", "--state-dir", state, "--json"}, nil, &out, io.Discard)
	var audit struct {
		Records []struct {
			Credential, Tool, Outcome string
		} `json:"records"`
	}
	if err := json.Unmarshal(out.Bytes(), &audit); err != nil || len(audit.Records) < 2 {
		t.Fatalf("audit: %v %s", err, out.String())
	}
	seen := map[string]bool{}
	for _, r := range audit.Records {
		seen[r.Credential+" "+r.Tool+" "+r.Outcome] = true
	}
	if !seen["bob microdefend_scan_website forbidden"] || !seen["bob keysweep_scan_text ok"] {
		t.Errorf("audit records: %+v", audit.Records)
	}
	if strings.Contains(out.String(), "nothing") || strings.Contains(out.String(), "example.com") {
		t.Error("arguments reached the audit trail")
	}
}
