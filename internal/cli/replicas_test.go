package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Two warden serve processes on one PostgreSQL, behind a round-robin
// proxy, share every piece of state: credentials (and their revocation),
// legacy sessions, input rounds, elicitation answers and the outcome of a
// stream whose client left, collected from the second replica after the
// first was stopped. Each replica has a state directory of its own: the
// keys they must share come from the store.

var (
	buildOnce sync.Once
	wardenBin string
	buildErr  error
)

// builtWarden builds cmd/warden once per test run.
func builtWarden(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "warden-bin-")
		if err != nil {
			buildErr = err
			return
		}
		wardenBin = filepath.Join(dir, "warden")
		out, err := exec.Command("go", "build", "-tags", testBuildTags(), "-o", wardenBin, "github.com/warden-mcp/warden/cmd/warden").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return wardenBin
}

// replicaProc is one warden serve process.
type replicaProc struct {
	cmd  *exec.Cmd
	url  string // http://127.0.0.1:port
	done chan error
}

func startReplica(t *testing.T, bin, cfgPath string) *replicaProc {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--config", cfgPath, "--unsafe", "--log-level", "warn")
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &replicaProc{cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

func waitReady(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := http.Get(base + "/readyz")
		if err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became ready: %v", base, err)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, bounded
	}
}

// apiClient talks MCP with an API key.
type apiClient struct {
	t   *testing.T
	key string
}

func (c apiClient) do(ctx context.Context, base, method, sid, body string, hdr map[string]string) *http.Response {
	c.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.key)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp
}

func (c apiClient) call(base, method, sid, body string, hdr map[string]string) (int, string) {
	c.t.Helper()
	resp := c.do(context.Background(), base, method, sid, body, hdr)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (c apiClient) openLegacy(base string) string {
	c.t.Helper()
	resp := c.do(context.Background(), base, "POST", "",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}`, nil)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		c.t.Fatalf("initialize on %s: %d", base, resp.StatusCode)
	}
	if st, _ := c.call(base, "POST", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); st != http.StatusAccepted {
		c.t.Fatalf("initialized: %d", st)
	}
	return sid
}

type sseEvent struct{ id, data string }

func readSSE(r io.Reader, out chan<- sseEvent) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 4<<20)
	var id string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: ") && len(line) > len("data: "):
			out <- sseEvent{id, strings.TrimPrefix(line, "data: ")}
		}
	}
	close(out)
}

func next[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the stream ended", what)
		}
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	panic("unreachable")
}

const scanCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"microdefend_scan_website","arguments":{"url":"http://127.0.0.1:9/"}}}`

func TestTwoServeProcessesShareState(t *testing.T) {
	dsn := os.Getenv("WARDEN_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("WARDEN_TEST_POSTGRES not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	if !postgresBuilt {
		t.Skip("built without -tags postgres")
	}
	if edition != "full" {
		t.Skip("uses the website scan's approval, which the lean edition lacks")
	}
	bin := builtWarden(t)
	schema := fmt.Sprintf("warden_two_%d", time.Now().UnixNano())
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err == nil {
			conn.Exec(context.Background(), `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
			conn.Close(context.Background())
		}
	})
	proxyAddr := freePort(t)
	addrs := []string{freePort(t), freePort(t)}
	var cfgs []string
	for i, addr := range addrs {
		dir := t.TempDir()
		cfg := filepath.Join(dir, "warden.yaml")
		os.WriteFile(cfg, []byte(fmt.Sprintf(`listen: %s
public_url: http://%s/mcp
state_dir: %s
shutdown_timeout: 20s
store: {dsn: %q, schema: %s}
auth: {credential_cache_ttl: 1s}
`, addr, proxyAddr, filepath.Join(dir, fmt.Sprint("state", i)), dsn, schema)), 0o600)
		cfgs = append(cfgs, cfg)
	}
	// The API key is issued once, into the shared store.
	out, err := exec.Command(bin, "credentials", "create", "--config", cfgs[0], "--tenant", "acme", "--json").Output()
	if err != nil {
		t.Fatalf("credentials create: %v", err)
	}
	var created struct{ ID, Key string }
	if json.Unmarshal(out, &created); created.Key == "" {
		t.Fatalf("credentials create printed %s", out)
	}
	a, b := startReplica(t, bin, cfgs[0]), startReplica(t, bin, cfgs[1])
	a.url, b.url = "http://"+addrs[0], "http://"+addrs[1]
	waitReady(t, a.url)
	waitReady(t, b.url)

	var n atomic.Uint64
	targets := []*url.URL{{Scheme: "http", Host: addrs[0]}, {Scheme: "http", Host: addrs[1]}}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(targets[n.Add(1)%2]) }, FlushInterval: -1}
	proxy := httptest.NewUnstartedServer(rp)
	proxy.Listener.Close()
	if proxy.Listener, err = netListen(proxyAddr); err != nil {
		t.Fatal(err)
	}
	proxy.Start()
	defer proxy.Close()
	c := apiClient{t: t, key: created.Key}

	t.Run("LegacySessionThroughTheProxy", func(t *testing.T) {
		sid := c.openLegacy(proxy.URL)
		for i := range 4 {
			st, body := c.call(proxy.URL, "POST", sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"keysweep_scan_text","arguments":{"text":"nothing here"}}}`, 10+i), map[string]string{"Accept": "application/json"})
			if st != 200 || !strings.Contains(body, `\"status\":\"completed\"`) {
				t.Fatalf("call %d through the proxy: %d %.300s", i, st, body)
			}
		}
		if st, _ := c.call(proxy.URL, "DELETE", sid, "", nil); st != http.StatusNoContent {
			t.Fatalf("DELETE: %d", st)
		}
	})

	t.Run("InputRoundFinishedOnTheOtherReplica", func(t *testing.T) {
		// The website scan asks for approval: on the stateless revision,
		// an input round whose requestState a seals and b opens.
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
		hdr := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "microdefend_scan_website", "Accept": "application/json"}
		_, body := c.call(a.url, "POST", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"microdefend_scan_website","arguments":{"url":"http://127.0.0.1:9/"},`+meta+`}}`, hdr)
		var res struct {
			Result struct {
				RequestState  string                     `json:"requestState"`
				InputRequests map[string]json.RawMessage `json:"inputRequests"`
			} `json:"result"`
		}
		json.Unmarshal([]byte(body), &res)
		if res.Result.RequestState == "" || len(res.Result.InputRequests) != 1 {
			t.Fatalf("no approval round on a: %.400s", body)
		}
		var key string
		for k := range res.Result.InputRequests {
			key = k
		}
		retry := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"microdefend_scan_website","arguments":{"url":"http://127.0.0.1:9/"},` +
			`"inputResponses":{"` + key + `":{"action":"accept","content":{}}},"requestState":"` + res.Result.RequestState + `",` + meta + `}}`
		_, body = c.call(b.url, "POST", "", retry, hdr)
		if strings.Contains(body, "requestState") || strings.Contains(body, "approval_") || !strings.Contains(body, `"isError":true`) {
			t.Errorf("b did not finish a's round (the scan itself refuses a loopback target): %.400s", body)
		}
	})

	t.Run("ElicitationAnsweredOnTheOtherReplica", func(t *testing.T) {
		sid := c.openLegacy(a.url)
		resp := c.do(context.Background(), a.url, "POST", sid, fmt.Sprintf(scanCall, 5), nil)
		defer resp.Body.Close()
		events := make(chan sseEvent, 8)
		go readSSE(resp.Body, events)
		ev := next(t, events, "the approval question")
		var q struct{ ID, Method string }
		if json.Unmarshal([]byte(ev.data), &q); q.Method != "elicitation/create" {
			t.Fatalf("first event: %s", ev.data)
		}
		if st, _ := c.call(b.url, "POST", sid, `{"jsonrpc":"2.0","id":"`+q.ID+`","result":{"action":"decline"}}`, nil); st != http.StatusAccepted {
			t.Fatalf("answer on b: %d", st)
		}
		if ev := next(t, events, "the result on a's stream"); !strings.Contains(ev.data, "approval_declined") {
			t.Errorf("result: %s", ev.data)
		}
	})

	t.Run("SessionApprovalHoldsOnBothReplicas", func(t *testing.T) {
		// Approved once in a legacy session (asked by a, answered on b),
		// a confirm tool is not asked about again on b.
		sid := c.openLegacy(a.url)
		resp := c.do(context.Background(), a.url, "POST", sid, fmt.Sprintf(scanCall, 6), nil)
		events := make(chan sseEvent, 8)
		go readSSE(resp.Body, events)
		ev := next(t, events, "the approval question")
		var q struct{ ID, Method string }
		if json.Unmarshal([]byte(ev.data), &q); q.Method != "elicitation/create" {
			t.Fatalf("first event: %s", ev.data)
		}
		if st, _ := c.call(b.url, "POST", sid, `{"jsonrpc":"2.0","id":"`+q.ID+`","result":{"action":"accept","content":{"approve":true}}}`, nil); st != http.StatusAccepted {
			t.Fatalf("answer on b: %d", st)
		}
		if ev := next(t, events, "the result on a's stream"); strings.Contains(ev.data, "approval_") {
			t.Fatalf("approved call: %s", ev.data)
		}
		resp.Body.Close()
		// Were b to ask again, this JSON-only request could not carry the
		// question and would wait: bound it.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		r2 := c.do(ctx, b.url, "POST", sid, fmt.Sprintf(scanCall, 7), map[string]string{"Accept": "application/json"})
		raw, _ := io.ReadAll(r2.Body)
		r2.Body.Close()
		st, body := r2.StatusCode, string(raw)
		if st != 200 || strings.Contains(body, "elicitation/create") || strings.Contains(body, "approval_") || !strings.Contains(body, `"id":7`) {
			t.Errorf("b asked again, or refused: %d %.300s", st, body)
		}
	})

	t.Run("RevocationReachesBothReplicas", func(t *testing.T) {
		other, err := exec.Command(bin, "credentials", "create", "--config", cfgs[1], "--tenant", "acme", "--json").Output()
		if err != nil {
			t.Fatal(err)
		}
		var k struct{ ID, Key string }
		json.Unmarshal(other, &k)
		kc := apiClient{t: t, key: k.Key}
		list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		hdr := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list", "Accept": "application/json"}
		for _, r := range []*replicaProc{a, b} {
			if st, _ := kc.call(r.url, "POST", "", list, hdr); st != 200 {
				t.Fatalf("new key on %s: %d", r.url, st)
			}
		}
		if out, err := exec.Command(bin, "credentials", "revoke", "--config", cfgs[0], k.ID).CombinedOutput(); err != nil {
			t.Fatalf("revoke: %v %s", err, out)
		}
		for _, r := range []*replicaProc{a, b} {
			deadline := time.Now().Add(10 * time.Second) // the cache TTL is 1s here
			for {
				st, _ := kc.call(r.url, "POST", "", list, hdr)
				if st == http.StatusUnauthorized {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s still admits a revoked key: %d", r.url, st)
				}
				time.Sleep(100 * time.Millisecond) // polling a condition, bounded
			}
		}
	})

	// Last: it stops a.
	t.Run("StreamResumedAfterTheFirstReplicaStops", func(t *testing.T) {
		sid := c.openLegacy(a.url)
		ctx, cancel := context.WithCancel(context.Background())
		resp := c.do(ctx, a.url, "POST", sid, fmt.Sprintf(scanCall, 9), nil)
		events := make(chan sseEvent, 8)
		go readSSE(resp.Body, events)
		ev := next(t, events, "the approval question")
		var q struct{ ID, Method string }
		json.Unmarshal([]byte(ev.data), &q)
		cancel() // the client loses its stream while a waits for the answer
		resp.Body.Close()
		for range events {
		}
		// a is stopped for a rolling restart; it lets the call finish.
		if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		// The answer goes to b; a, draining, picks it up from the store.
		if st, _ := c.call(b.url, "POST", sid, `{"jsonrpc":"2.0","id":"`+q.ID+`","result":{"action":"decline"}}`, nil); st != http.StatusAccepted {
			t.Fatalf("answer on b: %d", st)
		}
		select {
		case err := <-a.done:
			if err != nil {
				t.Fatalf("a exited with %v", err)
			}
			a.done <- nil // for the cleanup
		case <-time.After(30 * time.Second):
			t.Fatal("a did not stop")
		}
		rctx, rcancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer rcancel()
		g := c.do(rctx, b.url, "GET", sid, "", map[string]string{"Accept": "text/event-stream", "Last-Event-ID": ev.id})
		body, _ := io.ReadAll(g.Body)
		g.Body.Close()
		if g.StatusCode != 200 || !strings.Contains(string(body), `"id":9`) || !strings.Contains(string(body), "approval_declined") {
			t.Errorf("resumed on b after a stopped: %d %q", g.StatusCode, body)
		}
	})
}

func netListen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
