//go:build unix

package peer_test

// Protocol benchmarks: Warden's engine beside the official Go SDK, serving
// the same echo tool (internal/loadtest/fixture) in the same run. Each
// benchmark has sub-benchmarks via=http (handler.ServeHTTP in process) and
// via=stdio (newline-delimited JSON-RPC through the server's stdio loop),
// each with impl=warden and impl=gosdk, so benchstat can put them side by
// side:
//
//	go test -run '^$' -bench . -benchmem -cpu 1 -count 10 ./mcp/ > bench.txt
//	benchstat -col /impl bench.txt
//
// Every response is checked, in the loop as well as before it, so a
// benchmark that stops doing the work fails instead of getting faster.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-mcp/warden/internal/loadtest/fixture"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// listTools is the size of the tools/list benchmark's tool set.
const listTools = 50

// wantCall is in every successful echo response: the text came through
// the argument check and times got its default.
var wantCall = []byte(`"structuredContent":{"text":"hello, warden","times":1}`)

// cpuClock measures the CPU time the process spends (user and system, all
// threads, the garbage collector included). On a shared machine the wall
// clock of ns/op counts time spent waiting for a core; cpu-ns/op does not.
type cpuClock struct{ start time.Duration }

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuClock { return cpuClock{start: processCPU()} }

func (c cpuClock) report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(processCPU()-c.start)/float64(b.N), "cpu-ns/op")
	}
}

// recorder is a ResponseWriter that is reset between iterations, so that
// the harness adds the same few allocations to both sides.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

func (r *recorder) Flush() {}

func (r *recorder) reset() {
	clear(r.header)
	r.status = 0
	r.body.Reset()
}

// httpClient posts requests straight into a handler.
type httpClient struct {
	h   http.Handler
	url *url.URL
	rec *recorder
	rd  bytes.Reader
}

func newHTTPClient(h http.Handler) *httpClient {
	return &httpClient{h: h, url: &url.URL{Scheme: "http", Host: "localhost:8080", Path: "/mcp"}, rec: newRecorder()}
}

// post serves one request; the response stays in c.rec until the next.
func (c *httpClient) post(req fixture.Request) *recorder {
	c.rec.reset()
	c.rd.Reset(req.Body)
	r := &http.Request{
		Method:        http.MethodPost,
		URL:           c.url,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        req.Header,
		Body:          io.NopCloser(&c.rd),
		ContentLength: int64(len(req.Body)),
		Host:          c.url.Host,
		RemoteAddr:    "127.0.0.1:40000",
		RequestURI:    c.url.Path,
	}
	c.h.ServeHTTP(c.rec, r)
	return c.rec
}

// checkTail is how much of a response's end checkHTTP searches: enough
// for every response here (the tools/list check looks for the last tool),
// and short enough that a 45 KB list is not scanned whole on every
// iteration, which would weigh more than serving it.
const checkTail = 4 << 10

func checkHTTP(rec *recorder, want []byte) error {
	if rec.status != http.StatusOK {
		return fmt.Errorf("status %d: %.300s", rec.status, rec.body.Bytes())
	}
	body := rec.body.Bytes()
	if !bytes.Contains(body[max(0, len(body)-checkTail):], want) {
		return fmt.Errorf("response lacks %s: %.600s", want, rec.body.Bytes())
	}
	return nil
}

// impl builds one side's HTTP handler; stateless selects the SDK's
// stateless mode (Warden serves both eras on one handler).
type impl struct {
	name    string
	handler func(tb testing.TB, tools int, stateless bool) http.Handler
	stdio   func(ctx context.Context, tb testing.TB, tools int, r io.ReadCloser, w io.WriteCloser) error
}

var impls = []impl{
	{
		name: "warden",
		handler: func(tb testing.TB, tools int, _ bool) http.Handler {
			return mcp.NewHTTPHandler(fixture.WardenServer(tools), nil)
		},
		stdio: func(ctx context.Context, tb testing.TB, tools int, r io.ReadCloser, w io.WriteCloser) error {
			return fixture.WardenServer(tools).ServeStdio(ctx, r, w, nil)
		},
	},
	{
		name: "gosdk",
		handler: func(tb testing.TB, tools int, stateless bool) http.Handler {
			s := sdkServer(tb, tools)
			return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s },
				&gosdk.StreamableHTTPOptions{Stateless: stateless, JSONResponse: true})
		},
		stdio: func(ctx context.Context, tb testing.TB, tools int, r io.ReadCloser, w io.WriteCloser) error {
			return sdkServer(tb, tools).Run(ctx, &gosdk.IOTransport{Reader: r, Writer: w})
		},
	},
}

func sdkServer(tb testing.TB, tools int) *gosdk.Server {
	s, err := fixture.GoSDKServer(tools)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// scenario is one request type.
type scenario struct {
	name  string
	tools int
	// legacy: open a session first (initialize, initialized), then send
	// the request on it.
	legacy bool
	req    func(sessionID string) fixture.Request
	want   []byte
	// verify checks the first response more closely than want.
	verify func(body []byte) error
}

var (
	callScenario = scenario{
		name: "tools_call", tools: 1,
		req:  func(string) fixture.Request { return fixture.ToolsCall() },
		want: wantCall,
		verify: func(b []byte) error {
			if !bytes.Contains(b, []byte(`"resultType":"complete"`)) {
				return errors.New("no resultType")
			}
			return nil
		},
	}
	listScenario = scenario{
		name: "tools_list", tools: listTools,
		req:  func(string) fixture.Request { return fixture.ToolsList() },
		want: []byte(`"name":"echo_49"`),
		verify: func(b []byte) error {
			if n := bytes.Count(b, []byte(`"inputSchema":`)); n != listTools {
				return fmt.Errorf("listed %d tools, want %d", n, listTools)
			}
			return nil
		},
	}
	discoverScenario = scenario{
		name: "server_discover", tools: 1,
		req:  func(string) fixture.Request { return fixture.Discover() },
		want: []byte(`"supportedVersions":[`),
		verify: func(b []byte) error {
			if !bytes.Contains(b, []byte(`"2026-07-28"`)) {
				return errors.New("2026-07-28 not among the supported versions")
			}
			return nil
		},
	}
	legacyScenario = scenario{
		name: "tools_call_legacy", tools: 1, legacy: true,
		req:  fixture.LegacyCall,
		want: wantCall,
		verify: func(b []byte) error {
			if bytes.Contains(b, []byte(`"resultType"`)) {
				return errors.New("a legacy result carries resultType")
			}
			return nil
		},
	}
)

// openSession runs the legacy handshake over HTTP and returns the session
// id.
func openSession(c *httpClient) (string, error) {
	rec := c.post(fixture.Initialize())
	if err := checkHTTP(rec, []byte(`"protocolVersion":"`+fixture.LegacyVersion+`"`)); err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	sid := rec.header.Get("Mcp-Session-Id")
	if sid == "" {
		return "", errors.New("initialize: no Mcp-Session-Id")
	}
	rec = c.post(fixture.Initialized(sid))
	if rec.status != http.StatusAccepted {
		return "", fmt.Errorf("initialized: status %d: %s", rec.status, rec.body.Bytes())
	}
	return sid, nil
}

// prepareHTTP builds a handler for sc and checks one response.
func prepareHTTP(tb testing.TB, im impl, sc scenario) (*httpClient, fixture.Request) {
	c := newHTTPClient(im.handler(tb, sc.tools, !sc.legacy))
	sid := ""
	if sc.legacy {
		var err error
		if sid, err = openSession(c); err != nil {
			tb.Fatal(err)
		}
	}
	req := sc.req(sid)
	rec := c.post(req)
	if err := checkHTTP(rec, sc.want); err != nil {
		tb.Fatal(err)
	}
	if err := sc.verify(rec.body.Bytes()); err != nil {
		tb.Fatalf("%v: %s", err, rec.body.Bytes())
	}
	return c, req
}

func benchHTTP(b *testing.B, sc scenario) {
	for _, im := range impls {
		b.Run("via=http/impl="+im.name, func(b *testing.B) {
			c, req := prepareHTTP(b, im, sc)
			b.ReportAllocs()
			cpu := startCPU()
			b.ResetTimer()
			for b.Loop() {
				if err := checkHTTP(c.post(req), sc.want); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			cpu.report(b)
		})
	}
}

// stdioFeed is the client side of a stdio benchmark: it writes a
// handshake (for legacy sessions), then n copies of a request line each
// with its own id, then holds the stream open until every response has
// arrived, and only then ends it (the SDK drops responses still in flight
// at end of input).
type stdioFeed struct {
	handshake  [][]byte
	head, tail []byte // the request line split around its id
	n          int

	line []byte
	off  int
	sent int
	// ready is closed when the handshake's response has arrived; a
	// client must not send before its session is initialised.
	ready chan struct{}
	wrote int
	done  chan struct{}
}

func newStdioFeed(handshake [][]byte, req []byte, n int) *stdioFeed {
	const marker = `"id":1234567,`
	body := fixture.WithID(req, idOf(req), 1234567)
	i := bytes.Index(body, []byte(marker))
	f := &stdioFeed{handshake: handshake, n: n}
	f.head = append([]byte(nil), body[:i+len(`"id":`)]...)
	f.tail = append(append([]byte(nil), body[i+len(marker)-1:]...), '\n')
	return f
}

func idOf(body []byte) int {
	_, rest, _ := bytes.Cut(body, []byte(`"id":`))
	end := bytes.IndexByte(rest, ',')
	id, _ := strconv.Atoi(string(rest[:end]))
	return id
}

func (f *stdioFeed) Read(p []byte) (int, error) {
	for f.off == len(f.line) {
		switch {
		case len(f.handshake) > 0:
			if f.wrote == 1 {
				<-f.ready
			}
			f.wrote++
			f.line, f.handshake = append(f.handshake[0], '\n'), f.handshake[1:]
		case f.sent < f.n:
			f.sent++
			f.line = append(f.line[:0], f.head...)
			f.line = strconv.AppendInt(f.line, int64(1000+f.sent), 10)
			f.line = append(f.line, f.tail...)
		default:
			<-f.done
			return 0, io.EOF
		}
		f.off = 0
	}
	n := copy(p, f.line[f.off:])
	f.off += n
	return n, nil
}

func (f *stdioFeed) Close() error { return nil }

// stdioSink counts the responses, checks each, and closes done when the
// last one has arrived.
type stdioSink struct {
	want   []byte
	skip   int // handshake responses to pass over
	n      int
	mu     sync.Mutex
	line   []byte
	seen   int
	bad    int
	first  []byte
	sample []byte
	ready  chan struct{}
	done   chan struct{}
}

func (s *stdioSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			s.line = append(s.line, rest...)
			break
		}
		s.line = append(s.line, rest[:i]...)
		rest = rest[i+1:]
		s.endLine()
	}
	return len(p), nil
}

func (s *stdioSink) endLine() {
	line := s.line
	s.line = s.line[:0]
	if s.skip > 0 {
		s.skip--
		if s.skip == 0 {
			close(s.ready)
		}
		return
	}
	s.seen++
	if s.first == nil {
		s.first = append([]byte(nil), line...)
	}
	if !bytes.Contains(line[max(0, len(line)-checkTail):], s.want) {
		s.bad++
		if s.sample == nil {
			s.sample = append([]byte(nil), line...)
		}
	}
	if s.seen == s.n {
		close(s.done)
	}
}

func (s *stdioSink) Close() error { return nil }

// runStdio serves n requests of sc through im's stdio loop and returns
// the first response.
func runStdio(tb testing.TB, im impl, sc scenario, n int, timed func(func())) []byte {
	var handshake [][]byte
	skip := 0
	if sc.legacy {
		handshake = [][]byte{fixture.Initialize().Body, fixture.Initialized("").Body}
		skip = 1
	}
	done, ready := make(chan struct{}), make(chan struct{})
	feed := newStdioFeed(handshake, sc.req("").Body, n)
	feed.done, feed.ready = done, ready
	sink := &stdioSink{want: sc.want, skip: skip, n: n, done: done, ready: ready}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	timed(func() {
		go func() { errc <- im.stdio(ctx, tb, sc.tools, feed, sink) }()
		<-done
	})
	cancel()
	if err := <-errc; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		tb.Fatalf("serve: %v", err)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.bad > 0 {
		tb.Fatalf("%d of %d responses lack %s; one was: %.600s", sink.bad, sink.seen, sc.want, sink.sample)
	}
	return sink.first
}

func benchStdio(b *testing.B, sc scenario) {
	for _, im := range impls {
		b.Run("via=stdio/impl="+im.name, func(b *testing.B) {
			first := runStdio(b, im, sc, 1, func(f func()) { f() })
			if err := sc.verify(first); err != nil {
				b.Fatalf("%v: %s", err, first)
			}
			b.ReportAllocs()
			var cpu cpuClock
			runStdio(b, im, sc, b.N, func(f func()) {
				cpu = startCPU()
				b.ResetTimer()
				f()
				b.StopTimer()
			})
			cpu.report(b)
		})
	}
}

// BenchmarkToolsCall is a 2026-07-28 tools/call of the echo tool with its
// arguments checked and defaulted.
func BenchmarkToolsCall(b *testing.B) {
	benchHTTP(b, callScenario)
	benchStdio(b, callScenario)
}

// BenchmarkToolsList lists 50 tools at 2026-07-28.
func BenchmarkToolsList(b *testing.B) {
	benchHTTP(b, listScenario)
	benchStdio(b, listScenario)
}

// BenchmarkDiscover is server/discover.
func BenchmarkDiscover(b *testing.B) {
	benchHTTP(b, discoverScenario)
	benchStdio(b, discoverScenario)
}

// BenchmarkToolsCallLegacy is tools/call on a legacy session opened once
// with initialize.
func BenchmarkToolsCallLegacy(b *testing.B) {
	benchHTTP(b, legacyScenario)
	benchStdio(b, legacyScenario)
}

// TestBenchScenarios runs every benchmark scenario a few times on both
// implementations, so that a broken harness fails in an ordinary test
// run.
func TestBenchScenarios(t *testing.T) {
	for _, sc := range []scenario{callScenario, listScenario, discoverScenario, legacyScenario} {
		for _, im := range impls {
			t.Run(sc.name+"/"+im.name, func(t *testing.T) {
				c, req := prepareHTTP(t, im, sc)
				for range 3 {
					if err := checkHTTP(c.post(req), sc.want); err != nil {
						t.Fatal(err)
					}
				}
				first := runStdio(t, im, sc, 5, func(f func()) { f() })
				if err := sc.verify(first); err != nil {
					t.Fatalf("stdio: %v: %s", err, first)
				}
			})
		}
	}
}

// TestBenchHarnessFails checks that the harness notices a wrong answer:
// an argument past maxLength must not produce the echo.
func TestBenchHarnessFails(t *testing.T) {
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			c := newHTTPClient(im.handler(t, 1, true))
			req := fixture.ToolsCall()
			req.Body = bytes.Replace(req.Body, []byte(`"hello, warden"`), []byte(`"`+strings.Repeat("x", 257)+`"`), 1)
			rec := c.post(req)
			if err := checkHTTP(rec, wantCall); err == nil {
				t.Fatalf("a 257-character text was echoed: %s", rec.body.Bytes())
			}
			if !bytes.Contains(rec.body.Bytes(), []byte(`"isError":true`)) {
				t.Fatalf("no error result for a 257-character text: %s", rec.body.Bytes())
			}
		})
	}
}

// TestToolsListCacheFollowsRegistry checks the rendered-page cache that
// the tools/list benchmark exercises: pages differ by cursor and by era,
// and a registry change is visible on the next list.
func TestToolsListCacheFollowsRegistry(t *testing.T) {
	reg := tool.NewRegistry()
	add := func(name string) {
		tool.Add(reg, tool.Def{Name: name, Description: "d", Annotations: tool.Annotations{ReadOnly: true}, Catalog: tool.Catalog{Category: "bench", Trust: tool.TrustAuto}},
			func(context.Context, *tool.Call, struct{}) (string, error) { return "ok", nil })
	}
	add("a")
	add("b")
	add("c")
	s := mcp.NewServer(reg, &mcp.Options{PageSize: 2})
	c := newHTTPClient(mcp.NewHTTPHandler(s, nil))
	list := func(cursor string) string {
		t.Helper()
		req := fixture.ToolsList()
		if cursor != "" {
			req.Body = bytes.Replace(req.Body, []byte(`"params":{`), []byte(`"params":{"cursor":`+strconv.Quote(cursor)+`,`), 1)
		}
		rec := c.post(req)
		if rec.status != http.StatusOK {
			t.Fatalf("status %d: %s", rec.status, rec.body.Bytes())
		}
		return rec.body.String()
	}
	names := func(body string) []string {
		body, _, _ = strings.Cut(body, `"io.modelcontextprotocol/serverInfo"`)
		var out []string
		for _, part := range strings.Split(body, `{"name":"`)[1:] {
			out = append(out, part[:strings.IndexByte(part, '"')])
		}
		return out
	}
	first := list("")
	if got := names(first); !cmp.Equal(got, []string{"a", "b"}) {
		t.Fatalf("first page %v", got)
	}
	_, rest, _ := strings.Cut(first, `"nextCursor":"`)
	cursor := rest[:strings.IndexByte(rest, '"')]
	if got := names(list(cursor)); !cmp.Equal(got, []string{"c"}) {
		t.Fatalf("second page %v", got)
	}
	if got := names(list("")); !cmp.Equal(got, []string{"a", "b"}) {
		t.Fatalf("first page again %v", got)
	}
	add("aa")
	if got := names(list("")); !cmp.Equal(got, []string{"a", "aa"}) {
		t.Fatalf("after adding aa: %v", got)
	}
	reg.Remove("a")
	if got := names(list("")); !cmp.Equal(got, []string{"aa", "b"}) {
		t.Fatalf("after removing a: %v", got)
	}
	// A legacy session gets its own rendering, without resultType.
	sid, err := openSession(c)
	if err != nil {
		t.Fatal(err)
	}
	req := fixture.LegacyCall(sid)
	req.Body = []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	rec := c.post(req)
	if body := rec.body.String(); strings.Contains(body, `"resultType"`) || !cmp.Equal(names(body), []string{"aa", "b"}) {
		t.Fatalf("legacy list: %s", body)
	}
	if body := list(""); !strings.Contains(body, `"resultType":"complete"`) {
		t.Fatalf("modern list after a legacy one: %s", body)
	}
}

// TestDiscoverFollowsFeatures checks the kept server/discover renderings
// that the discover benchmark exercises: adding and removing a prompt
// changes the advertised capabilities on the next request.
func TestDiscoverFollowsFeatures(t *testing.T) {
	s := fixture.WardenServer(1)
	c := newHTTPClient(mcp.NewHTTPHandler(s, nil))
	discover := func() string {
		t.Helper()
		rec := c.post(fixture.Discover())
		if err := checkHTTP(rec, fixture.WantDiscover); err != nil {
			t.Fatal(err)
		}
		return rec.body.String()
	}
	if body := discover(); strings.Contains(body, `"prompts"`) {
		t.Fatalf("prompts advertised before any was added: %s", body)
	}
	s.AddPrompt(&mcp.Prompt{Name: "p", Description: "d",
		Get: func(context.Context, *tool.Call, map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{}, nil
		}})
	if body := discover(); !strings.Contains(body, `"prompts":{"listChanged":true}`) {
		t.Fatalf("prompts not advertised after AddPrompt: %s", body)
	}
	s.RemovePrompt("p")
	if body := discover(); strings.Contains(body, `"prompts"`) {
		t.Fatalf("prompts still advertised after RemovePrompt: %s", body)
	}
}
