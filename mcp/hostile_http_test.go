package mcp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/warden-mcp/warden/mcp"
)

// Hostile HTTP input: every request below is refused with an exact status
// and JSON-RPC error code, and the server goes on answering the next valid
// request.

// hostileReq describes one raw request to the protocol endpoint.
type hostileReq struct {
	method string
	host   string // overrides the Host header when set
	header http.Header
	body   io.Reader
	length int64 // ContentLength; -1 sends the body chunked
}

// modernHeaders are the headers of a valid modern request for method.
func modernHeaders(method string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", mcp.VersionModern)
	h.Set("Mcp-Method", method)
	return h
}

func modernBody(id, method, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{%s%s}}`, id, method, modernMeta, extra)
}

func validList() hostileReq {
	b := modernBody("1", "tools/list", "")
	return hostileReq{method: "POST", header: modernHeaders("tools/list"), body: strings.NewReader(b), length: int64(len(b))}
}

// with returns a copy of h with header k set to vs (k removed when vs is
// empty).
func with(h http.Header, k string, vs ...string) http.Header {
	h = h.Clone()
	h.Del(k)
	for _, v := range vs {
		h.Add(k, v)
	}
	return h
}

func post(h http.Header, body string) hostileReq {
	return hostileReq{method: "POST", header: h, body: strings.NewReader(body), length: int64(len(body))}
}

// hostileServer is a loopback server whose handler checks Host against
// its own port, as warden serve does.
func hostileServer(t *testing.T, fx *peerFixture) (*httptest.Server, string) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	ts.Config.Handler = mcp.NewHTTPHandler(fx.srv, &mcp.HTTPOptions{LoopbackPort: port})
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, port
}

// send performs r and returns the status, the response body and its
// JSON-RPC error code (0 when the body carries none).
func send(t *testing.T, ts *httptest.Server, r hostileReq) (int, []byte, int) {
	t.Helper()
	req, err := http.NewRequest(r.method, ts.URL+"/mcp", r.body)
	if err != nil {
		t.Fatal(err)
	}
	if r.header != nil {
		req.Header = r.header.Clone()
	}
	if r.host != "" {
		req.Host = r.host
	}
	if r.body != nil {
		req.ContentLength = r.length
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatalf("%s: %v", r.method, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	code := 0
	if len(body) > 0 {
		if err := json.Unmarshal(body, &msg); err != nil {
			t.Fatalf("status %d with a body that is not JSON: %q", resp.StatusCode, trunc(body))
		}
		if msg.Error != nil {
			code = msg.Error.Code
		}
	}
	return resp.StatusCode, body, code
}

func trunc(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// patternReader yields prefix, n copies of fill, then suffix, without
// holding the body in memory; as an io.Reader of unknown length it can be
// sent chunked.
type patternReader struct {
	prefix, suffix []byte
	fill           byte
	n              int64
	off            int64
}

func (p *patternReader) Read(b []byte) (int, error) {
	total := int64(len(p.prefix)) + p.n + int64(len(p.suffix))
	if p.off >= total {
		return 0, io.EOF
	}
	i := 0
	for ; i < len(b) && p.off < total; i++ {
		switch {
		case p.off < int64(len(p.prefix)):
			b[i] = p.prefix[p.off]
		case p.off < int64(len(p.prefix))+p.n:
			b[i] = p.fill
		default:
			b[i] = p.suffix[p.off-int64(len(p.prefix))-p.n]
		}
		p.off++
	}
	return i, nil
}

// bigBody is a valid tools/call whose text argument pads it to size bytes.
func bigBody(size int64) *patternReader {
	prefix := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + modernMeta + `,"name":"peer_echo","arguments":{"text":"`)
	suffix := []byte(`"}}}`)
	return &patternReader{prefix: prefix, suffix: suffix, fill: 'a', n: size - int64(len(prefix)) - int64(len(suffix))}
}

func TestHostileHTTP(t *testing.T) {
	fx := newPeerFixture(t)
	ts, port := hostileServer(t, fx)
	list := modernHeaders("tools/list")
	listBody := modernBody("1", "tools/list", "")
	nested := func(depth int) string {
		return modernBody("1", "tools/list", `"x":`+strings.Repeat("[", depth)+strings.Repeat("]", depth))
	}
	cases := []struct {
		name   string
		req    hostileReq
		status int
		code   int
	}{
		{"oversized announced", hostileReq{method: "POST", header: modernHeaders("tools/call"), body: bigBody(mcp.MaxMessageBytes + 1), length: mcp.MaxMessageBytes + 1}, 413, mcp.CodeInvalidRequest},
		{"oversized chunked", hostileReq{method: "POST", header: modernHeaders("tools/call"), body: bigBody(mcp.MaxMessageBytes + 1), length: -1}, 413, mcp.CodeInvalidRequest},
		{"oversized chunked 16 MiB", hostileReq{method: "POST", header: modernHeaders("tools/call"), body: bigBody(16 << 20), length: -1}, 413, mcp.CodeInvalidRequest},
		{"invalid JSON", post(list, `{"jsonrpc":"2.0","id":1,`), 400, mcp.CodeParseError},
		{"empty body", post(list, ``), 400, mcp.CodeParseError},
		{"invalid UTF-8", post(list, "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"tools/list\"}"), 400, mcp.CodeParseError},
		{"wrong content type", post(with(list, "Content-Type", "text/plain"), listBody), 415, mcp.CodeInvalidRequest},
		{"no content type", post(with(list, "Content-Type"), listBody), 415, mcp.CodeInvalidRequest},
		{"batch", post(list, `[`+listBody+`]`), 400, mcp.CodeInvalidRequest},
		{"not an object", post(list, `"tools/list"`), 400, mcp.CodeInvalidRequest},
		{"jsonrpc 1.0", post(list, strings.Replace(listBody, `"2.0"`, `"1.0"`, 1)), 400, mcp.CodeInvalidRequest},
		{"duplicate member", post(list, `{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list","params":{`+modernMeta+`}}`), 400, mcp.CodeInvalidRequest},
		{"duplicate version header", post(with(list, "MCP-Protocol-Version", mcp.VersionModern, mcp.VersionModern), listBody), 400, mcp.CodeHeaderMismatch},
		{"conflicting version headers", post(with(list, "MCP-Protocol-Version", mcp.VersionModern, "2099-01-01"), listBody), 400, mcp.CodeHeaderMismatch},
		{"duplicate method header", post(with(list, "Mcp-Method", "tools/list", "tools/list"), listBody), 400, mcp.CodeHeaderMismatch},
		{"conflicting method headers", post(with(list, "Mcp-Method", "tools/list", "tools/call"), listBody), 400, mcp.CodeHeaderMismatch},
		{"missing method header", post(with(list, "Mcp-Method"), listBody), 400, mcp.CodeHeaderMismatch},
		{"method header mismatch", post(with(list, "Mcp-Method", "tools/call"), listBody), 400, mcp.CodeHeaderMismatch},
		{"method header case", post(with(list, "Mcp-Method", "TOOLS/LIST"), listBody), 400, mcp.CodeHeaderMismatch},
		{"version header mismatch", post(list, strings.Replace(listBody, `protocolVersion":"2026-07-28"`, `protocolVersion":"2099-01-01"`, 1)), 400, mcp.CodeHeaderMismatch},
		{"missing version header", post(with(list, "MCP-Protocol-Version"), listBody), 400, mcp.CodeHeaderMismatch},
		{"name header mismatch", post(with(modernHeaders("tools/call"), "Mcp-Name", "peer_fail"), modernBody("1", "tools/call", `"name":"peer_echo","arguments":{"text":"x"}`)), 400, mcp.CodeHeaderMismatch},
		{"duplicate name header", post(with(modernHeaders("tools/call"), "Mcp-Name", "peer_echo", "peer_echo"), modernBody("1", "tools/call", `"name":"peer_echo","arguments":{"text":"x"}`)), 400, mcp.CodeHeaderMismatch},
		{"base64 name header", post(with(modernHeaders("tools/call"), "Mcp-Name", "=?base64?cGVlcl9lY2hv?="), modernBody("1", "tools/call", `"name":"peer_echo","arguments":{"text":"x"}`)), 200, 0},
		{"unpadded base64 name header", post(with(modernHeaders("tools/call"), "Mcp-Name", "=?base64?cGVlcl9lY2g?="), modernBody("1", "tools/call", `"name":"peer_ech","arguments":{"text":"x"}`)), 400, mcp.CodeHeaderMismatch},
		{"unknown version", post(with(list, "MCP-Protocol-Version", "2099-01-01"), strings.Replace(listBody, `protocolVersion":"2026-07-28"`, `protocolVersion":"2099-01-01"`, 1)), 400, mcp.CodeUnsupportedVer},
		{"missing _meta", post(list, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`), 400, mcp.CodeInvalidParams},
		{"_meta without capabilities", post(list, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`), 400, mcp.CodeInvalidParams},
		{"_meta not an object", post(list, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":[]}}`), 400, mcp.CodeInvalidParams},
		{"long string id", post(list, modernBody(`"`+strings.Repeat("i", 200)+`"`, "tools/list", "")), 400, mcp.CodeInvalidRequest},
		{"30-digit id", post(list, modernBody(strings.Repeat("9", 30), "tools/list", "")), 400, mcp.CodeInvalidRequest},
		{"fractional id", post(list, modernBody("1.5", "tools/list", "")), 400, mcp.CodeInvalidRequest},
		{"null id", post(list, modernBody("null", "tools/list", "")), 400, mcp.CodeInvalidRequest},
		{"object id", post(list, modernBody(`{"a":1}`, "tools/list", "")), 400, mcp.CodeInvalidRequest},
		{"10k brackets", post(list, strings.Repeat("[", 10000)+strings.Repeat("]", 10000)), 400, mcp.CodeInvalidRequest},
		{"deep nesting in params", post(list, nested(5000)), 400, mcp.CodeInvalidRequest},
		{"nesting past the JSON decoder", post(list, nested(20000)), 400, mcp.CodeParseError},
		{"unbalanced brackets", post(list, strings.Repeat("[", 100000)), 400, mcp.CodeParseError},
		{"client-sent response", post(list, `{"jsonrpc":"2.0","id":1,"result":{}}`), 400, mcp.CodeInvalidRequest},
		{"unknown method", post(with(list, "Mcp-Method", "no/such"), modernBody("1", "no/such", "")), 404, mcp.CodeMethodNotFound},
		{"initialize on the modern path", post(with(list, "Mcp-Method", "initialize"), modernBody("1", "initialize", "")), 404, mcp.CodeMethodNotFound},
		{"legacy call without a session", post(with(with(list, "MCP-Protocol-Version"), "Mcp-Method"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), 400, mcp.CodeInvalidRequest},
		{"unknown session", post(with(list, "Mcp-Session-Id", "deadbeef"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), 404, mcp.CodeInvalidRequest},
		{"bad origin", post(with(list, "Origin", "http://evil.example"), listBody), 403, mcp.CodeInvalidRequest},
		{"origin on another port", post(with(list, "Origin", "http://127.0.0.1:1"), listBody), 403, mcp.CodeInvalidRequest},
		{"two origins", post(with(list, "Origin", "http://127.0.0.1:"+port, "http://evil.example"), listBody), 403, mcp.CodeInvalidRequest},
		{"bad host", hostileReq{method: "POST", host: "evil.example:" + port, header: list, body: strings.NewReader(listBody), length: int64(len(listBody))}, 403, mcp.CodeInvalidRequest},
		{"host without port", hostileReq{method: "POST", host: "localhost", header: list, body: strings.NewReader(listBody), length: int64(len(listBody))}, 403, mcp.CodeInvalidRequest},
		{"GET modern", hostileReq{method: "GET", header: with(list, "Accept", "text/event-stream")}, 405, mcp.CodeInvalidRequest},
		{"DELETE modern", hostileReq{method: "DELETE", header: list}, 405, mcp.CodeInvalidRequest},
		{"PUT", post(list, listBody), 405, mcp.CodeInvalidRequest},
	}
	cases[len(cases)-1].req.method = "PUT"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body, code := send(t, ts, tc.req)
			if status != tc.status || code != tc.code {
				t.Errorf("got %d / %d, want %d / %d; body %s", status, code, tc.status, tc.code, trunc(body))
			}
			if tc.status == 413 && !bytes.Contains(body, []byte(`"request_too_large"`)) {
				t.Errorf("413 without request_too_large: %s", trunc(body))
			}
			// The next valid request is served.
			if status, body, code := send(t, ts, validList()); status != 200 || code != 0 {
				t.Errorf("valid request after %s: %d / %d %s", tc.name, status, code, trunc(body))
			}
		})
	}

	// Good origins and hosts pass.
	for _, h := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port} {
		r := validList()
		r.host = h
		r.header = with(r.header, "Origin", "http://"+h)
		if status, body, _ := send(t, ts, r); status != 200 {
			t.Errorf("host and origin %s: %d %s", h, status, trunc(body))
		}
	}
}

// pipeListener serves connections made of net.Pipe: inside a synctest
// bubble, a server on it runs on the bubble's clock, and its timeouts
// fire at exact times whatever the load.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8787} }

func (l *pipeListener) dial() net.Conn {
	client, server := net.Pipe()
	l.conns <- server
	return client
}

// slowServer serves the peer fixture on a pipe listener with cfg's
// timeouts, until the test ends.
func slowServer(t *testing.T, cfg *http.Server) *pipeListener {
	fx := newPeerFixture(t)
	l := newPipeListener()
	cfg.Handler = mcp.NewHTTPHandler(fx.srv, nil)
	go func() { _ = cfg.Serve(l) }()
	t.Cleanup(func() { _ = cfg.Close() })
	return l
}

// exchange sends a valid request on a new connection and returns the
// status line of the answer.
func (l *pipeListener) exchange(t *testing.T) string {
	t.Helper()
	conn := l.dial()
	defer conn.Close()
	body := validListBody()
	req := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nContent-Type: application/json\r\n" +
		"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nConnection: close\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	go func() { _, _ = io.WriteString(conn, req) }()
	b, _ := io.ReadAll(conn)
	line, _, _ := strings.Cut(string(b), "\r\n")
	return line
}

// TestHostileSlowHeaders: a client that dribbles its request headers is
// cut off by the server's ReadHeaderTimeout, and the server goes on.
func TestHostileSlowHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := slowServer(t, &http.Server{ReadHeaderTimeout: 300 * time.Millisecond})
		conn := l.dial()
		defer conn.Close()
		start := time.Now()
		closed := make(chan []byte)
		go func() {
			b, _ := io.ReadAll(conn)
			closed <- b
		}()
		head := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nContent-Type: application/json\r\nX-Slow: "
		for i := 0; i < len(head); i++ {
			if _, err := conn.Write([]byte{head[i]}); err != nil {
				break // the server hung up, as it should
			}
			time.Sleep(20 * time.Millisecond)
		}
		b := <-closed
		if len(b) > 0 && !bytes.HasPrefix(b, []byte("HTTP/1.1 4")) {
			t.Errorf("unexpected answer %q", b)
		}
		t.Logf("cut off after %v: %.60q", time.Since(start), b)
		if d := time.Since(start); d > 400*time.Millisecond {
			t.Errorf("the connection lived %v with a 300 ms header timeout", d)
		}
		if got := l.exchange(t); got != "HTTP/1.1 200 OK" {
			t.Errorf("valid request after slow headers: %q", got)
		}
	})
}

// TestHostileSlowBody: a client that sends its headers, then dribbles its
// body, is cut off by the server's ReadTimeout: it gets a 408, a 400 parse
// error or a closed connection, never a hung handler, and the server goes
// on.
func TestHostileSlowBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := slowServer(t, &http.Server{ReadTimeout: 300 * time.Millisecond})
		conn := l.dial()
		defer conn.Close()
		body := validListBody()
		head := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8787" +
			"\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n" +
			fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))
		answer := make(chan []byte)
		go func() {
			b, _ := io.ReadAll(conn)
			answer <- b
		}()
		if _, err := io.WriteString(conn, head); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for i := 0; i < len(body); i++ {
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		b := <-answer
		if len(b) > 0 && !bytes.HasPrefix(b, []byte("HTTP/1.1 408")) && !bytes.HasPrefix(b, []byte("HTTP/1.1 400")) {
			t.Errorf("a timed-out body was answered %q", trunc(b))
		}
		t.Logf("cut off after %v: %.60q", time.Since(start), b)
		if d := time.Since(start); d > 400*time.Millisecond {
			t.Errorf("the connection lived %v with a 300 ms read timeout", d)
		}
		if got := l.exchange(t); got != "HTTP/1.1 200 OK" {
			t.Errorf("valid request after a slow body: %q", got)
		}
	})
}
