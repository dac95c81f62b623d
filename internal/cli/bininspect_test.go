package cli

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/policy"
	"github.com/warden-mcp/warden/store/postgres"
)

// toolReply is what a client reads of one call: the structured result,
// or the error code and message.
type toolReply struct {
	raw        string
	code, msg  string
	structured map[string]any
}

func (r toolReply) str(k string) string { s, _ := r.structured[k].(string); return s }

// callAs calls a tool of a wired server on the stateless revision as p.
func callAs(t testing.TB, srv *mcp.Server, p auth.Principal, name, args string) toolReply {
	t.Helper()
	ctx := mcp.WithCaller(auth.WithPrincipal(context.Background(), p), p.Issuer+"\x00"+p.Credential)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	return parseToolReply(t, srv.ServeMessage(ctx, []byte(msg), nil))
}

func parseToolReply(t testing.TB, out []byte) toolReply {
	t.Helper()
	var env struct {
		Result struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
			Content           []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	r := toolReply{raw: string(out)}
	if env.Result.IsError && len(env.Result.Content) > 0 {
		first, _, _ := strings.Cut(env.Result.Content[0].Text, "\n")
		r.code, r.msg, _ = strings.Cut(first, ": ")
		return r
	}
	_ = json.Unmarshal(env.Result.StructuredContent, &r.structured)
	return r
}

var (
	hostedAlice = auth.Principal{Issuer: "https://idp.example", Tenant: "acme", Credential: "alice", Entitlements: []string{"*"}}
	hostedCarol = auth.Principal{Issuer: "https://idp.example", Tenant: "globex", Credential: "carol", Entitlements: []string{"*"}}
)

// A small raw arm64 snippet, for opens that need no fixture.
var snippet = base64.StdEncoding.EncodeToString([]byte{0x1f, 0x20, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6, 'h', 'e', 'l', 'l', 'o', 0})

// The hosted wiring analyses in a child process (warden analyze-worker,
// here this test binary re-executed); the local one in process.
func TestHostedAnalysesInAChild(t *testing.T) {
	p := gccHello(t)
	data, _ := os.ReadFile(p)
	for _, c := range []struct {
		name      string
		stdio     bool
		listen    string
		wantChild bool
	}{
		{"hosted", false, "0.0.0.0:8787", true},
		{"local stdio", true, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			state, marks := t.TempDir(), t.TempDir()
			cfg, err := Config{Listen: c.listen, StateDir: state}.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			cfg.Bininspect.AnalysisMemoryBytes = 1<<30 + raceMemory
			ctl, err := openControls(context.Background(), cfg, discardLogger(), c.stdio, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ctl.close()
			if want := map[bool]profile{true: profileHosted, false: profileLocal}[c.wantChild]; ctl.profile != want {
				t.Fatalf("profile %s", ctl.profile)
			}
			w, err := wire(wireOptions{logger: discardLogger(), stateDir: state, controls: ctl, cfg: cfg, isolateEnv: []string{workerEnv + "=" + marks}})
			if err != nil {
				t.Fatal(err)
			}
			r := callAs(t, w.srv, hostedAlice, "bininspect_open", `{"data_base64":"`+base64.StdEncoding.EncodeToString(data)+`"}`)
			if r.code != "" || r.str("format") != "elf" {
				t.Fatalf("open: %s", r.raw)
			}
			children, _ := os.ReadDir(marks)
			if got := len(children) > 0; got != c.wantChild {
				t.Errorf("analysed in a child: %v, want %v", got, c.wantChild)
			}
			// The hosted limits: 64 MiB files; local: 512 MiB.
			want := map[bool]int64{true: 64 << 20, false: 512 << 20}[c.wantChild]
			if got := w.binary.MaxFileSize(); got != want {
				t.Errorf("file limit %d, want %d", got, want)
			}
		})
	}
}

// pgControls are hosted controls on a fresh PostgreSQL schema, as two
// replicas of one deployment have.
func pgControls(t *testing.T, dsn, schema string) *controls {
	t.Helper()
	st, err := postgres.Open(context.Background(), dsn, &postgres.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	lim, err := limits.New(st, LimitsConfig{}.limits(profileHosted))
	if err != nil {
		t.Fatal(err)
	}
	return &controls{profile: profileHosted, lim: lim, store: st, close: st.Close,
		policy: &policy.Controls{Limiter: lim, Logger: discardLogger()}}
}

// Two server instances on one PostgreSQL share views: a view opened on
// one is read on the other, which rebuilds it from the store; the
// per-caller limit holds across them; an upload reaches both.
func TestBinaryViewsSharedOnPostgres(t *testing.T) {
	dsn := os.Getenv("WARDEN_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("WARDEN_TEST_POSTGRES not set")
	}
	schema := "warden_cli_" + strings.ToLower(rand.Text()[:12])
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err == nil {
			conn.Exec(context.Background(), `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
			conn.Close(context.Background())
		}
	})
	state := t.TempDir() // the shared handle key, as a shared state directory gives
	cfg, _ := Config{Listen: "0.0.0.0:8787", StateDir: state}.withDefaults()
	cfg.Bininspect.MaxViews = 2
	cfg.Bininspect.AnalysisMemoryBytes = 1<<30 + raceMemory
	var replicas []*wired
	for range 2 {
		w, err := wire(wireOptions{logger: discardLogger(), stateDir: state, controls: pgControls(t, dsn, schema), cfg: cfg,
			isolateEnv: []string{workerEnv + "=1"}})
		if err != nil {
			t.Fatal(err)
		}
		replicas = append(replicas, w)
	}
	one, two := replicas[0].srv, replicas[1].srv
	open := callAs(t, one, hostedAlice, "bininspect_open", `{"data_base64":"`+snippet+`","format":"raw","arch":"arm64","base":"0x4000"}`)
	if open.code != "" {
		t.Fatalf("open: %s", open.raw)
	}
	view := `"view":"` + open.str("view") + `"`
	tri := callAs(t, two, hostedAlice, "bininspect_triage", `{`+view+`}`)
	if tri.code != "" || tri.str("arch") != "arm64" || tri.str("image_base") != "0x4000" {
		t.Fatalf("triage on the other replica: %s", tri.raw)
	}
	mr := callAs(t, two, hostedAlice, "bininspect_memory_read", `{`+view+`,"address":"0x4008","length":5}`)
	if mr.str("hex") != "68656c6c6f" {
		t.Errorf("read on the other replica: %s", mr.raw)
	}
	if r := callAs(t, two, hostedCarol, "bininspect_triage", `{`+view+`}`); r.code != "view_not_found" {
		t.Errorf("carol with alice's handle: %s", r.raw)
	}
	other := base64.StdEncoding.EncodeToString([]byte{0x1f, 0x20, 0x03, 0xd5, 1})
	third := base64.StdEncoding.EncodeToString([]byte{0x1f, 0x20, 0x03, 0xd5, 2})
	if r := callAs(t, two, hostedAlice, "bininspect_open", `{"data_base64":"`+other+`","format":"raw","arch":"arm64"}`); r.code != "" {
		t.Fatalf("second view: %s", r.raw)
	}
	if r := callAs(t, one, hostedAlice, "bininspect_open", `{"data_base64":"`+third+`","format":"raw","arch":"arm64"}`); r.code != "too_many_views" {
		t.Errorf("third view across replicas: %s", r.raw)
	}
	if r := callAs(t, one, hostedAlice, "bininspect_view_close", `{`+view+`}`); r.code != "" {
		t.Fatalf("close: %s", r.raw)
	}
	if r := callAs(t, two, hostedAlice, "bininspect_triage", `{`+view+`}`); r.code != "view_not_found" {
		t.Errorf("closed on one, used on two: %s", r.raw)
	}
}

// warden serve with --root opens files by path; warden upload sends a
// file to /uploads with the development token and prints its reference,
// which bininspect_open takes.
func TestServeRootsAndUpload(t *testing.T) {
	elf := gccHello(t)
	root := filepath.Dir(elf)
	state := t.TempDir()
	url, token, stop := startServe(t, "--state-dir", state, "--root", root)
	defer stop()
	call := func(name, args string) toolReply {
		t.Helper()
		_, body := post(t, url, token, "tools/call", `"name":"`+name+`","arguments":`+args+`,`)
		i := strings.Index(body, "{")
		return parseToolReply(t, []byte(strings.TrimSpace(body[i:])))
	}
	if r := call("bininspect_open", `{"path":"hello"}`); r.code != "" || r.str("name") != "hello" {
		t.Errorf("open by path: %s", r.raw)
	}
	if r := call("bininspect_open", `{"path":"/etc/passwd"}`); r.code != "path_not_allowed" {
		t.Errorf("outside the root: %s", r.raw)
	}
	// Unauthenticated uploads are refused before anything is read.
	req, _ := http.NewRequest(http.MethodPut, strings.TrimSuffix(url, "/mcp")+"/uploads", strings.NewReader("x"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("upload without a token: %d", resp.StatusCode)
	}
	out, errOut, code := run(t, "", "upload", "--url", url, "--state-dir", state, elf)
	ref := strings.TrimSpace(out)
	if code != ExitOK || !strings.HasPrefix(ref, "sha256:") || len(ref) != 71 {
		t.Fatalf("warden upload: exit %d %q %s", code, out, errOut)
	}
	r := call("bininspect_open", `{"blob":"`+ref+`"}`)
	if r.code != "" || r.str("blob") != ref || r.str("format") != "elf" {
		t.Errorf("open the upload: %s", r.raw)
	}
	// WARDEN_TOKEN wins over the token file; a bad one is refused.
	t.Setenv("WARDEN_TOKEN", "not-a-token")
	if _, errOut, code := run(t, "", "upload", "--url", url, "--state-dir", state, elf); code != ExitError ||
		!strings.Contains(errOut, "the server answered 401 Unauthorized: invalid_token: ") || strings.Contains(errOut, "not-a-token") {
		t.Errorf("bad token: exit %d %s", code, errOut)
	}
	t.Setenv("WARDEN_TOKEN", "")
	if _, errOut, code := run(t, "", "upload", "--url", url, "--state-dir", state, root); code != ExitError || !strings.Contains(errOut, "not a regular file") {
		t.Errorf("a directory: exit %d %s", code, errOut)
	}
}

func TestUploadURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://127.0.0.1:8787/mcp", "http://127.0.0.1:8787/uploads"},
		{"https://warden.example.com/team/mcp", "https://warden.example.com/team/uploads"},
		{"https://warden.example.com/uploads", "https://warden.example.com/uploads"},
		{"https://warden.example.com", "https://warden.example.com/uploads"},
		{"https://warden.example.com/mcp?x=1#y", "https://warden.example.com/uploads"},
	} {
		if got, err := uploadURL(c.in, "/mcp"); err != nil || got != c.want {
			t.Errorf("%s: %q %v, want %q", c.in, got, err, c.want)
		}
	}
	if _, err := uploadURL("ftp://x/mcp", "/mcp"); err == nil {
		t.Error("ftp accepted")
	}
}

// warden stdio --root serves a legacy session whose open view is active.
func TestStdioRoot(t *testing.T) {
	elf := gccHello(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), []string{"stdio", "--state-dir", t.TempDir(), "--root", filepath.Dir(elf), "--log-level", "error"},
			inR, outW, io.Discard)
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	// Each request waits for the answer before it: stdio serves calls
	// concurrently.
	ask := func(line string) string {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"id"`) {
			if !sc.Scan() {
				t.Fatalf("no answer to %s", line)
			}
			return sc.Text()
		}
		return ""
	}
	ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	ask(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	ask(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bininspect_open","arguments":{"data_base64":"` + snippet + `","format":"raw","arch":"arm64"}}}`)
	if r := parseToolReply(t, []byte(ask(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bininspect_open","arguments":{"path":"hello"}}}`))); r.structured["active"] != true {
		t.Fatalf("open: %s", r.raw)
	}
	line := ask(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"bininspect_imports","arguments":{"query":"puts"}}}`)
	r := parseToolReply(t, []byte(line))
	items, _ := r.structured["items"].([]any)
	if len(items) != 1 || strings.Contains(line, "implicit_view") {
		t.Errorf("imports through the active view: %s", line)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d", code)
	}
}

// The configuration's bininspect block is checked at start-up.
func TestBininspectConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "warden.yaml")
	os.WriteFile(path, []byte("bininspect:\n  roots: ["+dir+"]\n  max_file_bytes: 1048576\n  max_views: 4\n  view_idle: 10m\n  analysis_timeout: 5s\n  upload_quota_bytes: -1\n"), 0o600)
	cfg, err := loadConfig(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err = cfg.withDefaults(); err != nil {
		t.Fatal(err)
	}
	b := cfg.Bininspect
	if len(b.Roots) != 1 || b.MaxFileBytes != 1<<20 || b.MaxViews != 4 || time.Duration(b.ViewIdle) != 10*time.Minute || b.UploadQuotaBytes != -1 {
		t.Errorf("bininspect block: %+v", b)
	}
	for _, bad := range []BininspectConfig{{MaxFileBytes: 1 << 30}, {MaxViews: -1}, {UploadQuotaBytes: -2}, {ViewIdle: -1}} {
		if _, err := (Config{Bininspect: bad}).withDefaults(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	// A root that is not a directory stops the server at start.
	_, errOut, code := run(t, "", "stdio", "--state-dir", t.TempDir(), "--root", path)
	if code != ExitError || !strings.Contains(errOut, "not a directory") {
		t.Errorf("a file as root: exit %d %s", code, errOut)
	}
}
