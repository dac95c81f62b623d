package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

func TestServeProfile(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
		want profile
	}{
		{"defaults", Config{}, profileLocal},
		{"localhost", Config{Listen: "localhost:9000"}, profileLocal},
		{"ipv6 loopback", Config{Listen: "[::1]:8787"}, profileLocal},
		{"external issuer on loopback", Config{Auth: AuthConfig{Issuer: "https://idp.example.com/", JWKSURL: "https://idp.example.com/jwks"}}, profileHosted},
		{"all interfaces with an issuer", Config{Listen: "0.0.0.0:8787", Auth: AuthConfig{Issuer: "https://idp.example.com/", JWKSURL: "https://idp.example.com/jwks"}}, profileHosted},
		{"loopback behind a proxy", Config{PublicURL: "https://warden.example.com/mcp"}, profileHosted},
	} {
		cfg, err := c.cfg.withDefaults()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := cfg.serveProfile(); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// The local profile changes defaults only: hosted defaults stay the
// limiter's own, and a limit the file sets holds in both.
func TestProfileLimits(t *testing.T) {
	hosted := LimitsConfig{}.limits(profileHosted)
	if hosted.Transport != (limits.RatePolicy{}) || hosted.ScanRate != (limits.RatePolicy{}) || hosted.MonthlyScans != 0 || hosted.MaxConcurrentScans != 0 {
		t.Errorf("hosted defaults changed: %+v", hosted)
	}
	local := LimitsConfig{}.limits(profileLocal)
	if local.MonthlyScans != -1 || local.ScanRate != localScanRate || local.MaxConcurrentScans != 0 {
		t.Errorf("local defaults: %+v", local)
	}
	set := LimitsConfig{MonthlyScans: 50, ScansPerWindow: 5, MaxConcurrentScans: 3}
	for _, p := range []profile{profileLocal, profileHosted} {
		l := set.limits(p)
		if l.MonthlyScans != 50 || l.ScanRate.Limit != 5 || l.MaxConcurrentScans != 3 {
			t.Errorf("%s ignores the file: %+v", p, l)
		}
	}
	// How long a decision waits on the store: one setting for both sides.
	dir := t.TempDir()
	path := filepath.Join(dir, "warden.yaml")
	os.WriteFile(path, []byte("limits:\n  store_timeout: 250ms\n  store_max_wait: 3s\nstore:\n  max_conns: 24\n"), 0o600)
	cfg, err := loadConfig(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Store.MaxConns != 24 {
		t.Errorf("store.max_conns: %d", cfg.Store.MaxConns)
	}
	w := cfg.Limits.limits(profileHosted)
	if w.TransportTimeout != 250*time.Millisecond || w.ScanTimeout != 250*time.Millisecond ||
		w.TransportMaxWait != 3*time.Second || w.ScanMaxWait != 3*time.Second {
		t.Errorf("store waits: %+v", w)
	}
	if !(LimitsConfig{}).transportLimited(profileHosted) || (LimitsConfig{}).transportLimited(profileLocal) ||
		!(LimitsConfig{RequestsPerWindow: 8}).transportLimited(profileLocal) {
		t.Error("transport limit by profile")
	}
	if profileHosted.queue() != nil || profileLocal.queue() == nil {
		t.Error("queue by profile")
	}
}

// jwksFile writes the public key set of a fresh key, as an external
// issuer would publish it.
func jwksFile(t *testing.T) string {
	t.Helper()
	li, err := auth.LoadOrCreateLocalKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(p, li.JWKS(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// What each command actually wires: stdio and the default serve are
// local; an external issuer is hosted even on loopback, with every hosted
// limit and no queue.
func TestOpenControlsByProfile(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	hostedCfg := Config{StateDir: t.TempDir(), Auth: AuthConfig{Issuer: "https://idp.example.com/", JWKSFile: jwksFile(t)}}
	for _, c := range []struct {
		name  string
		cfg   Config
		stdio bool
		want  profile
	}{
		{"stdio", Config{StateDir: t.TempDir()}, true, profileLocal},
		{"stdio with an issuer in its file", Config{StateDir: t.TempDir(), Auth: hostedCfg.Auth}, true, profileLocal},
		{"serve", Config{StateDir: t.TempDir()}, false, profileLocal},
		{"serve with an issuer", hostedCfg, false, profileHosted},
	} {
		cfg, err := c.cfg.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		ctl, err := openControls(context.Background(), cfg, logger, c.stdio, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		l := ctl.lim.Config()
		switch c.want {
		case profileLocal:
			if ctl.profile != profileLocal || ctl.transport || ctl.policy.Queue == nil || l.MonthlyScans != -1 || l.ScanRate != localScanRate {
				t.Errorf("%s: %s transport=%v queue=%v %+v", c.name, ctl.profile, ctl.transport, ctl.policy.Queue, l)
			}
		case profileHosted:
			if ctl.profile != profileHosted || !ctl.transport || ctl.policy.Queue != nil || l.MonthlyScans != limits.DefaultMonthlyScans ||
				l.ScanRate.Limit != limits.DefaultScanRateLimit || l.Transport.Limit != limits.DefaultTransportLimit {
				t.Errorf("%s: %s transport=%v queue=%v %+v", c.name, ctl.profile, ctl.transport, ctl.policy.Queue, l)
			}
		}
		ctl.close()
	}
}

// warden serve says which profile it runs, and its client snippets carry
// no token: each reads it from the environment or asks for it, and the
// token reaches the environment from a file, not a command line.
func TestServePrintsProfileAndTokenFreeSnippets(t *testing.T) {
	state := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--log-level", "error", "--state-dir", state}, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	var out strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "docs/clients.md") {
			break
		}
	}
	cancel()
	go io.Copy(io.Discard, pr)
	<-done
	text := out.String()
	if !strings.Contains(text, "Profile: local (one person): no request limit, no per-minute scan limit, no monthly quota; 2 concurrent scans, more wait in line") {
		t.Errorf("no local profile line:\n%s", text)
	}
	token := regexp.MustCompile(`(?m)^eyJ\S+$`).FindString(text)
	if token == "" {
		t.Fatalf("no token printed:\n%s", text)
	}
	if n := strings.Count(text, token); n != 1 {
		t.Errorf("the token appears %d times; only its own line may carry it", n)
	}
	port := regexp.MustCompile(`listening on http://127\.0\.0\.1:(\d+)/`).FindStringSubmatch(text)
	if port == nil {
		t.Fatalf("no port in the banner:\n%s", text)
	}
	file := filepath.Join(state, "dev-token-"+port[1])
	b, err := os.ReadFile(file)
	if err != nil || strings.TrimSpace(string(b)) != token {
		t.Fatalf("token file: %v %q", err, b)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v", fi.Mode().Perm())
	}
	for _, want := range []string{
		`export WARDEN_TOKEN="$(cat ` + file + `)"`,
		`--header 'Authorization: Bearer ${WARDEN_TOKEN}'`,
		`"Authorization": "Bearer ${input:warden-token}"`,
		`"Authorization": "Bearer ${env:WARDEN_TOKEN}"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %s", want)
		}
	}
	// The local profile first offers the connection without a token: the
	// URL alone, for each client.
	url := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(text)
	if url == nil || !strings.Contains(text, "Connect without a token") || !strings.Contains(text, "claude mcp add --transport http warden "+url[1]+"\n") {
		t.Errorf("no token-free connection offered:\n%s", text)
	}
	// Each JSON block parses, in its client's shape: two token-free ones
	// (VS Code, Cursor), then the three with the pasted token.
	blocks := regexp.MustCompile(`(?m)^  \{\n(?:  .*\n)*?  \}$`).FindAllString(text, -1)
	if len(blocks) != 5 {
		t.Fatalf("found %d JSON blocks, want 5:\n%s", len(blocks), text)
	}
	for i, b := range blocks[:2] {
		if strings.Contains(b, "Authorization") || !strings.Contains(b, url[1]) {
			t.Errorf("token-free block %d: %s", i, b)
		}
	}
	blocks = blocks[2:]
	var vscode struct {
		Servers map[string]struct{ Type, URL string } `json:"servers"`
		Inputs  []struct {
			ID       string `json:"id"`
			Password bool   `json:"password"`
		} `json:"inputs"`
	}
	var cursor, desktop struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	for i, dst := range []any{&vscode, &cursor, &desktop} {
		if err := json.Unmarshal([]byte(blocks[i]), dst); err != nil {
			t.Errorf("block %d: %v\n%s", i, err, blocks[i])
		}
	}
	if vscode.Servers["warden"].Type != "http" || len(vscode.Inputs) != 1 || vscode.Inputs[0].ID != "warden-token" || !vscode.Inputs[0].Password {
		t.Errorf("VS Code block: %+v", vscode)
	}
	if cursor.MCPServers["warden"] == nil || desktop.MCPServers["warden"] == nil || !strings.Contains(string(desktop.MCPServers["warden"]), `"stdio"`) {
		t.Errorf("Cursor or Claude Desktop block: %s %s", blocks[1], blocks[2])
	}
}

// A hosted serve says so and keeps the hosted limits.
func TestServePrintsHostedProfile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "warden.yaml")
	os.WriteFile(cfg, []byte("auth:\n  issuer: https://idp.example.com/\n  jwks_file: "+jwksFile(t)+"\n"), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--log-level", "error", "--state-dir", t.TempDir(), "--config", cfg}, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var profileLine string
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "Profile: ") {
			profileLine = sc.Text()
			break
		}
	}
	cancel()
	go io.Copy(io.Discard, pr)
	<-done
	want := "Profile: hosted: per credential 120 requests per 1m0s, 10 scans per 1m0s, 1000 scans a month, 2 concurrent scans; refusals carry retryAfterSeconds"
	if profileLine != want {
		t.Errorf("got  %q\nwant %q", profileLine, want)
	}
}

// One person on the local profile meets no hosted limit: more requests
// than the hosted transport limit, and more scans than its short window.
func TestLocalServeHasNoHostedLimits(t *testing.T) {
	url, token, stop := startServe(t, "--state-dir", t.TempDir())
	defer stop()
	for i := 0; i < limits.DefaultTransportLimit+5; i++ {
		resp, _ := post(t, url, token, "tools/list", "")
		if resp.StatusCode != 200 || resp.Header.Get("RateLimit") != "" {
			t.Fatalf("request %d: %d %v", i, resp.StatusCode, resp.Header)
		}
	}
	for i := 0; i < limits.DefaultScanRateLimit+2; i++ {
		_, body := post(t, url, token, "tools/call", `"name":"keysweep_scan_text","arguments":{"text":"scan `+time.Now().String()+`"},`)
		if !strings.Contains(body, `\"status\":\"completed\"`) {
			t.Fatalf("scan %d: %s", i, body)
		}
	}
}

// A local server is one person's, often a parallel agent's: 64 calls in
// flight over one token are all served. Hosted, one caller gets an eighth
// of the requests in flight and the rest are refused with 503, so that a
// few credentials cannot crowd out the others.
func TestLocalProfileServesAParallelAgent(t *testing.T) {
	for _, c := range []struct {
		p       profile
		served  int
		refused int
	}{{profileLocal, 64, 0}, {profileHosted, serveMaxInFlight / 8, 64 - serveMaxInFlight/8}} {
		t.Run(string(c.p), func(t *testing.T) {
			release := make(chan struct{})
			started := make(chan struct{}, 64)
			reg := tool.NewRegistry()
			type in struct {
				N int `json:"n,omitempty"`
			}
			tool.Add(reg, tool.Def{Name: "hold", Description: "Wait until released.", Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto},
				Annotations: tool.Annotations{ReadOnly: true, Idempotent: true}},
				func(ctx context.Context, _ *tool.Call, _ in) (in, error) {
					started <- struct{}{}
					<-release
					return in{}, nil
				})
			opts := &mcp.HTTPOptions{Wrap: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					next.ServeHTTP(w, r.WithContext(mcp.WithCaller(r.Context(), "dev")))
				})
			}}
			c.p.httpCaps(opts)
			srv := httptest.NewServer(mcp.NewHTTPHandler(mcp.NewServer(reg, nil), opts))
			defer srv.Close()
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			defer free() // before Close, which waits for the calls
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold","arguments":{},` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			statuses := make(chan int, 64)
			for range 64 {
				go func() {
					req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
					for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
						"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "hold"} {
						req.Header.Set(k, v)
					}
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						statuses <- 0
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					statuses <- resp.StatusCode
				}()
			}
			// Wait until the calls served hold their places and the others
			// have been answered, then let them all end.
			got := map[int]int{}
			n, answered := 0, 0
			timeout := time.After(20 * time.Second)
			for n < c.served || answered < c.refused {
				select {
				case <-started:
					n++
				case st := <-statuses:
					got[st]++
					answered++
				case <-timeout:
					t.Fatalf("after 20 s: %d calls running, answers %v", n, got)
				}
			}
			free()
			for answered < 64 {
				select {
				case st := <-statuses:
					got[st]++
					answered++
				case <-timeout:
					t.Fatalf("after 20 s: answers %v", got)
				}
			}
			if want := map[int]int{200: c.served, 503: c.refused}; got[200] != c.served || got[503] != c.refused {
				t.Errorf("statuses %v, want %v", got, want)
			}
		})
	}
}
