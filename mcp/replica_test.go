package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/statestore"
	"github.com/warden-mcp/warden/store/postgres"
	"github.com/warden-mcp/warden/tool"
)

// Two replicas share nothing but their state store (and the request-state
// key): every request below is served by one or the other, as a load
// balancer without stickiness would. The store is in memory for every
// run, and PostgreSQL too when WARDEN_TEST_POSTGRES names one (each
// replica with a pool of its own, as two processes would have).

// replicaTools are the tools both replicas serve.
type replicaTools struct {
	reg      *tool.Registry
	release  chan struct{} // lets rep_slow answer
	started  chan string   // rep_task and rep_slow report their start
	canceled chan string   // rep_task reports its run was cancelled
}

func newReplicaTools() *replicaTools {
	rt := &replicaTools{reg: tool.NewRegistry(), release: make(chan struct{}),
		started: make(chan string, 8), canceled: make(chan string, 8)}
	def := func(name string) tool.Def {
		d := peerDef(name, "A replica test tool.")
		return d
	}
	task := def("rep_task")
	task.Tasks = tool.TasksOptional
	tool.Add(rt.reg, task, func(ctx context.Context, c *tool.Call, _ peerNone) (string, error) {
		c.Detach()
		rt.started <- "rep_task"
		<-ctx.Done()
		rt.canceled <- "rep_task"
		return "", ctx.Err()
	})
	tool.Add(rt.reg, def("rep_slow"), func(ctx context.Context, c *tool.Call, _ peerNone) (string, error) {
		rt.started <- "rep_slow"
		c.Progress(1, 2, "half way")
		select {
		case <-rt.release:
			return "slow done", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	tool.Add(rt.reg, def("rep_ask"), func(ctx context.Context, c *tool.Call, _ peerNone) (string, error) {
		got, err := c.Input(ctx, map[string]tool.InputRequest{
			"name": tool.Elicit("What is your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)),
		})
		if err != nil {
			return "", err
		}
		var a struct {
			Content struct {
				Name string `json:"name"`
			} `json:"content"`
		}
		_ = json.Unmarshal(got["name"], &a)
		return "Hello, " + a.Content.Name + "!", nil
	})
	return rt
}

// replica is one server: its handler on a loopback listener.
type replica struct {
	h  *mcp.HTTPHandler
	ts *httptest.Server
}

func newReplica(t *testing.T, rt *replicaTools, st statestore.Store) *replica {
	srv := mcp.NewServer(rt.reg, &mcp.Options{Name: "replica", StateKey: peerStateKey, State: st, Tasks: true})
	t.Cleanup(srv.Close)
	h := mcp.NewHTTPHandler(srv, &mcp.HTTPOptions{Wrap: callerFromHeader})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return &replica{h: h, ts: ts}
}

// roundRobin is a reverse proxy that sends each request to the next
// replica in turn.
func roundRobin(t *testing.T, urls ...string) *httptest.Server {
	var n atomic.Uint64
	targets := make([]*url.URL, len(urls))
	for i, u := range urls {
		targets[i], _ = url.Parse(u)
	}
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(targets[n.Add(1)%uint64(len(targets))])
		},
		FlushInterval: -1,
	}
	ts := httptest.NewServer(p)
	t.Cleanup(ts.Close)
	return ts
}

// stores are the state stores the replica tests run over.
func stores(t *testing.T) map[string]func(t *testing.T) (a, b statestore.Store) {
	out := map[string]func(t *testing.T) (statestore.Store, statestore.Store){
		"memory": func(*testing.T) (statestore.Store, statestore.Store) { m := statestore.NewMemory(); return m, m },
	}
	if dsn := os.Getenv("WARDEN_TEST_POSTGRES"); dsn != "" {
		out["postgres"] = func(t *testing.T) (statestore.Store, statestore.Store) {
			schema := fmt.Sprintf("warden_replica_%d", time.Now().UnixNano())
			open := func() *postgres.Store {
				s, err := postgres.Open(context.Background(), dsn, &postgres.Options{Schema: schema})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			a, b := open(), open()
			t.Cleanup(func() {
				b.Close()
				a.Close()
				dropSchema(t, dsn, schema)
			})
			return a, b
		}
	}
	return out
}

// client speaks to the replicas as one caller.
type client struct {
	t      *testing.T
	caller string
}

func (c client) do(base, method, sid, body string, hdr map[string]string) *http.Response {
	c.t.Helper()
	req, _ := http.NewRequest(method, base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Test-Caller", c.caller)
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

func (c client) json(base, method, sid, body string, hdr map[string]string) (int, string) {
	c.t.Helper()
	resp := c.do(base, method, sid, body, hdr)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func modernHdr(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": mcp.VersionModern, "Mcp-Method": method, "Accept": "application/json"}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

const taskCaps = `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

func modernReq(id int, method, params string) string {
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",%s}}}`,
		id, method, params, taskCaps)
}

func TestReplicasShareState(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			rt := newReplicaTools()
			sa, sb := open(t)
			a, b := newReplica(t, rt, sa), newReplica(t, rt, sb)
			c := client{t: t, caller: "alice"}
			t.Run("LegacySession", func(t *testing.T) { testReplicaSession(t, c, a, b) })
			t.Run("TaskPolledAndCancelledElsewhere", func(t *testing.T) { testReplicaTask(t, c, rt, a, b) })
			t.Run("InputRoundFinishedElsewhere", func(t *testing.T) { testReplicaInput(t, c, a, b) })
			t.Run("ElicitationAnsweredElsewhere", func(t *testing.T) { testReplicaElicit(t, c, a, b) })
			// Last: it stops replica a.
			t.Run("StreamResumedAfterReplicaStops", func(t *testing.T) { testReplicaResume(t, c, rt, a, b, sa) })
		})
	}
}

// testReplicaSession: a legacy session opened through a round-robin proxy
// is served by both replicas, refused to another caller, and gone
// everywhere once deleted on one.
func testReplicaSession(t *testing.T, c client, a, b *replica) {
	rr := roundRobin(t, a.ts.URL, b.ts.URL)
	resp := c.do(rr.URL, "POST", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, nil)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	if st, body := c.json(rr.URL, "POST", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); st != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", st, body)
	}
	for i := range 6 {
		st, body := c.json(rr.URL, "POST", sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 10+i), map[string]string{"Accept": "application/json"})
		if st != 200 || !strings.Contains(body, "rep_ask") {
			t.Fatalf("tools/list %d through the proxy: %d %.200s", i, st, body)
		}
	}
	if st, _ := c.json(rr.URL, "POST", sid, `{"jsonrpc":"2.0","id":30,"method":"logging/setLevel","params":{"level":"error"}}`, nil); st != 200 {
		t.Fatalf("setLevel: %d", st)
	}
	mallory := client{t: t, caller: "mallory"}
	for _, r := range []*replica{a, b} {
		if st, _ := mallory.json(r.ts.URL, "POST", sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil); st != http.StatusNotFound {
			t.Errorf("another caller reached the session: %d", st)
		}
	}
	if st, _ := c.json(b.ts.URL, "DELETE", sid, "", nil); st != http.StatusNoContent {
		t.Fatalf("DELETE on b: %d", st)
	}
	// a forgets it within its recheck interval (a second).
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, _ := c.json(a.ts.URL, "POST", sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, nil)
		if st == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a still serves a session deleted on b: %d", st)
		}
		time.Sleep(100 * time.Millisecond) // polling a condition, bounded
	}
}

// testReplicaTask: a task started on a is polled on b and cancelled on
// b; a's run stops.
func testReplicaTask(t *testing.T, c client, rt *replicaTools, a, b *replica) {
	st, body := c.json(a.ts.URL, "POST", "", modernReq(1, "tools/call", `"name":"rep_task"`), modernHdr("tools/call", "rep_task"))
	if st != 200 || !strings.Contains(body, `"resultType":"task"`) {
		t.Fatalf("task: %d %s", st, body)
	}
	wait(t, rt.started, "the task's start")
	var res struct {
		Result struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(body), &res)
	id := res.Result.TaskID
	get := func(r *replica) string {
		_, body := c.json(r.ts.URL, "POST", "", modernReq(2, "tasks/get", `"taskId":"`+id+`"`), modernHdr("tasks/get", id))
		json.Unmarshal([]byte(body), &res)
		return res.Result.Status
	}
	if s := get(b); s != "working" {
		t.Fatalf("tasks/get on b: %q", s)
	}
	if st, _ := (client{t: t, caller: "mallory"}).json(b.ts.URL, "POST", "", modernReq(2, "tasks/get", `"taskId":"`+id+`"`), modernHdr("tasks/get", id)); st == 200 {
		if s := get(b); s == "" {
			t.Error("another caller read the task")
		}
	}
	if st, body := c.json(b.ts.URL, "POST", "", modernReq(3, "tasks/cancel", `"taskId":"`+id+`"`), modernHdr("tasks/cancel", id)); st != 200 {
		t.Fatalf("tasks/cancel on b: %d %s", st, body)
	}
	wait(t, rt.canceled, "a's run to stop after b cancelled the task")
	if s := get(a); s != "cancelled" {
		t.Errorf("tasks/get on a after the cancel: %q", s)
	}
}

// testReplicaInput: an input round begun on a (input_required with a
// sealed requestState) is finished on b.
func testReplicaInput(t *testing.T, c client, a, b *replica) {
	_, body := c.json(a.ts.URL, "POST", "", modernReq(1, "tools/call", `"name":"rep_ask"`), modernHdr("tools/call", "rep_ask"))
	var res struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(body), &res); res.Result.RequestState == "" {
		t.Fatalf("no input round on a: %s", body)
	}
	params := `"name":"rep_ask","inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}},"requestState":"` + res.Result.RequestState + `"`
	_, body = c.json(b.ts.URL, "POST", "", modernReq(2, "tools/call", params), modernHdr("tools/call", "rep_ask"))
	if !strings.Contains(body, "Hello, Ada!") {
		t.Errorf("the round finished on b: %s", body)
	}
}

// openLegacy opens a legacy session on r that can elicit.
func openLegacy(t *testing.T, c client, r *replica) string {
	resp := c.do(r.ts.URL, "POST", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}`, nil)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	c.json(r.ts.URL, "POST", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	return sid
}

// sseEvents reads SSE events from r, sending each data line with its id.
func sseEvents(r io.Reader, out chan<- [2]string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var id string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: ") && len(line) > len("data: "):
			out <- [2]string{id, strings.TrimPrefix(line, "data: ")}
		}
	}
	close(out)
}

// testReplicaElicitation: a legacy call on a asks the client a question
// (elicitation/create on its stream); the answer is posted to b, and a's
// call goes on with it.
func testReplicaElicit(t *testing.T, c client, a, b *replica) {
	sid := openLegacy(t, c, a)
	resp := c.do(a.ts.URL, "POST", sid, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"rep_ask"}}`, nil)
	defer resp.Body.Close()
	events := make(chan [2]string, 16)
	go sseEvents(resp.Body, events)
	ev := wait(t, events, "the elicitation request")
	var req struct {
		ID     string `json:"id"`
		Method string `json:"method"`
	}
	if json.Unmarshal([]byte(ev[1]), &req); req.Method != "elicitation/create" {
		t.Fatalf("first event: %s", ev[1])
	}
	answer := `{"jsonrpc":"2.0","id":"` + req.ID + `","result":{"action":"accept","content":{"name":"Grace"}}}`
	if st, body := c.json(b.ts.URL, "POST", sid, answer, nil); st != http.StatusAccepted {
		t.Fatalf("the answer posted to b: %d %s", st, body)
	}
	ev = wait(t, events, "the call's result on a's stream")
	if !strings.Contains(ev[1], "Hello, Grace!") {
		t.Errorf("result: %s", ev[1])
	}
}

// testReplicaResume: a legacy call on a loses its client mid-stream; a is
// stopped (drained: the call finishes and its outcome is kept); the
// client resumes the stream on b and receives the rest.
func testReplicaResume(t *testing.T, c client, rt *replicaTools, a, b *replica, st statestore.Store) {
	sid, last := dropSlowCall(t, c, rt, a, st, 7)
	// a is stopped for a rolling restart: no new requests, the call that
	// lost its client finishes, then a's sessions end.
	a.h.Drain()
	a.ts.Config.SetKeepAlivesEnabled(false)
	close(rt.release)
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := a.h.Wait(wctx); err != nil {
		t.Fatalf("a's call did not finish: %v", err)
	}
	a.ts.Close()
	a.h.Close()

	status, body, timedOut := resumeOn(t, c, b, sid, last)
	if timedOut || status != 200 || !strings.Contains(body, "slow done") || !strings.Contains(body, `"id":7`) {
		t.Errorf("resumed on b after a stopped: %d %q", status, body)
	}
}

// dropSlowCall starts rep_slow as legacy call id on a, reads its first
// progress event, then drops the stream as a client that goes away does,
// and waits until a marks the stream in st as going on without its
// client. It returns the session and the last event id the client saw.
func dropSlowCall(t *testing.T, c client, rt *replicaTools, a *replica, st statestore.Store, id int) (sid, last string) {
	t.Helper()
	sid = openLegacy(t, c, a)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"rep_slow","_meta":{"progressToken":"p"}}}`
	req, _ := http.NewRequestWithContext(ctx, "POST", a.ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Test-Caller", c.caller)
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan [2]string, 16)
	go sseEvents(resp.Body, events)
	wait(t, rt.started, "rep_slow's start")
	last = wait(t, events, "the progress event")[0]
	cancel() // the client loses its stream
	resp.Body.Close()
	for range events {
	}
	stream, _, _ := strings.Cut(last, "-")
	deadline := time.Now().Add(10 * time.Second)
	for {
		msgs, err := st.Messages(context.Background(), "events:"+sid+":"+stream, 0, time.Now(), 10)
		if err == nil && len(msgs) > 0 {
			return sid, last
		}
		if time.Now().After(deadline) {
			t.Fatalf("a never marked the stream it lost: %v", err)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, bounded
	}
}

// resumeOn resumes session sid's stream on r after event last, as a
// client does, and reads it to its end (at most 10 s).
func resumeOn(t *testing.T, c client, r *replica, sid, last string) (status int, body string, timedOut bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", r.ts.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Test-Caller", c.caller)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Last-Event-ID", last)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(b), ctx.Err() != nil
}

func dropSchema(t *testing.T, dsn, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Logf("drop %s: %v", schema, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
		t.Logf("drop %s: %v", schema, err)
	}
}

// cutStore stands for a replica's connection to the store, which a crash
// cuts: once cut, every call fails.
type cutStore struct {
	statestore.Store
	cut atomic.Bool
}

var errCut = fmt.Errorf("the replica is gone")

func (c *cutStore) PutState(ctx context.Context, r statestore.Record) (int64, error) {
	if c.cut.Load() {
		return 0, errCut
	}
	return c.Store.PutState(ctx, r)
}

func (c *cutStore) AppendMessage(ctx context.Context, ch string, d []byte, exp time.Time) (int64, error) {
	if c.cut.Load() {
		return 0, errCut
	}
	return c.Store.AppendMessage(ctx, ch, d, exp)
}

func (c *cutStore) DeleteState(ctx context.Context, kind, id string) error {
	if c.cut.Load() {
		return errCut
	}
	return c.Store.DeleteState(ctx, kind, id)
}

// TestReplicaCrash: a replica that stops without warning (no drain, no
// writes: its store connection cut, its liveness record gone as it would
// be replicaTTL later) leaves a task and a stream it served; the other
// replica ends them with replica_lost instead of leaving them working
// until they expire.
func TestReplicaCrash(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			rt := newReplicaTools()
			sa, sb := open(t)
			cut := &cutStore{Store: sa}
			srvA := mcp.NewServer(rt.reg, &mcp.Options{Name: "replica", StateKey: peerStateKey, State: cut, Tasks: true})
			ha := mcp.NewHTTPHandler(srvA, &mcp.HTTPOptions{Wrap: callerFromHeader})
			tsA := httptest.NewServer(ha)
			t.Cleanup(func() { tsA.Close(); srvA.Close() })
			a := &replica{h: ha, ts: tsA}
			b := newReplica(t, rt, sb)
			c := client{t: t, caller: "alice"}

			// A task running on a, and a stream on a whose client left.
			st, body := c.json(a.ts.URL, "POST", "", modernReq(1, "tools/call", `"name":"rep_task"`), modernHdr("tools/call", "rep_task"))
			if st != 200 || !strings.Contains(body, `"resultType":"task"`) {
				t.Fatalf("task: %d %s", st, body)
			}
			wait(t, rt.started, "the task's start")
			var res struct {
				Result struct {
					TaskID string `json:"taskId"`
					Status string `json:"status"`
					Error  struct {
						Message string `json:"message"`
					} `json:"error"`
				} `json:"result"`
			}
			json.Unmarshal([]byte(body), &res)
			id := res.Result.TaskID

			sid, last := dropSlowCall(t, c, rt, a, sb, 8)

			// a crashes.
			cut.cut.Store(true)
			if err := sb.DeleteState(context.Background(), "replica", srvA.Instance()); err != nil {
				t.Fatal(err)
			}

			_, body = c.json(b.ts.URL, "POST", "", modernReq(2, "tasks/get", `"taskId":"`+id+`"`), modernHdr("tasks/get", id))
			json.Unmarshal([]byte(body), &res)
			if res.Result.Status != "failed" || !strings.Contains(res.Result.Error.Message, "replica") {
				t.Errorf("the crashed replica's task, on b: %s", body)
			}
			_, gbody, timedOut := resumeOn(t, c, b, sid, last)
			if timedOut || !strings.Contains(gbody, `"id":8`) || !strings.Contains(gbody, "replica_lost") {
				t.Errorf("the crashed replica's stream, resumed on b: %q", gbody)
			}
			close(rt.release) // a's call ends; it can write nothing
		})
	}
}
