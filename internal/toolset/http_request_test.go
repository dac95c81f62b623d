package toolset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/policy"
	"github.com/warden-mcp/warden/safehttp"
	"github.com/warden-mcp/warden/store/sqlite"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/tooltest"
)

// site is a local fixture reached only through the test allowance, under
// host names a counting resolver maps to it.
type site struct {
	srv     *httptest.Server
	port    string
	res     *hostResolver
	mu      sync.Mutex
	seen    []string // "METHOD host path"
	gotAuth []string
	gotBody []string
}

type hostResolver struct {
	addr    netip.Addr
	mu      sync.Mutex
	lookups map[string]int
}

func (r *hostResolver) LookupNetIP(_ context.Context, _ string, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups[strings.TrimSuffix(host, ".")]++
	return []netip.Addr{r.addr}, nil
}

func (r *hostResolver) count(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lookups[host]
}

func newSite(t *testing.T) *site {
	s := &site{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, r.Method+" "+strings.Split(r.Host, ":")[0]+" "+r.URL.Path)
		s.gotAuth = append(s.gotAuth, r.Header.Get("Authorization"))
		s.gotBody = append(s.gotBody, string(b))
		s.mu.Unlock()
		switch r.URL.Path {
		case "/login":
			w.Header().Set("Set-Cookie", "sid=sess-value-7f3a; Path=/; HttpOnly")
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Request-Note", "visible-note")
			w.WriteHeader(201)
			w.Write([]byte(`{"ok":true}`))
		case "/same":
			http.Redirect(w, r, "/login", http.StatusFound)
		case "/cross":
			http.Redirect(w, r, "http://api.example.com:"+s.port+"/login", http.StatusTemporaryRedirect)
		case "/outside":
			http.Redirect(w, r, "http://outside.example.net:"+s.port+"/login", http.StatusFound)
		case "/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/big":
			w.Header().Set("Content-Length", "5000")
			w.Write(bytes.Repeat([]byte("z"), 5000))
		case "/binary":
			w.Write([]byte{0, 1, 2, 0xff})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.srv.Close)
	ap := netip.MustParseAddrPort(s.srv.Listener.Addr().String())
	s.port = strconv.Itoa(int(ap.Port()))
	s.res = &hostResolver{addr: ap.Addr(), lookups: map[string]int{}}
	return s
}

func (s *site) deps(scope ...string) Deps {
	ap := netip.MustParseAddrPort(s.srv.Listener.Addr().String())
	d := Deps{SafeHTTP: &safehttp.Options{AllowAddrPorts: []netip.AddrPort{ap}, Resolver: s.res}}
	if len(scope) > 0 {
		d.InScope = func(h string) bool {
			for _, e := range scope {
				if e == h {
					return true
				}
			}
			return false
		}
	}
	return d
}

func (s *site) url(host, path string) string { return "http://" + host + ":" + s.port + path }

func (s *site) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func TestHTTPRequestCatalog(t *testing.T) {
	reg := registryWith(t, Deps{})
	tl, ok := reg.Lookup("http_request")
	if !ok {
		t.Fatal("http_request not registered")
	}
	if !tl.Catalog.Unsafe || tl.Catalog.Trust != tool.TrustConfirmEach || tl.Catalog.TargetParam != "url" ||
		!tl.Annotations.OpenWorld || tl.Annotations.ReadOnly || tl.Annotations.Idempotent || !tl.Annotations.Destructive {
		t.Errorf("catalog %+v annotations %+v", tl.Catalog, tl.Annotations)
	}
	tooltest.Check(t, reg, &tooltest.Options{RequirePrivacy: true})
	lean := tool.NewRegistry()
	if err := Register(lean, Deps{}, Selection{Edition: EditionLean}); err != nil {
		t.Fatal(err)
	}
	if _, ok := lean.Lookup("http_request"); ok {
		t.Error("the lean edition ships http_request")
	}
	if _, ok := lean.Lookup("http_parse"); !ok {
		t.Error("the lean edition lacks http_parse, which sends nothing")
	}
}

func TestHTTPRequestSendsAndReports(t *testing.T) {
	s := newSite(t)
	call := privacyServer(t, registryWith(t, s.deps()), "off")
	args, _ := json.Marshal(map[string]any{"method": "POST", "url": s.url("app.example.com", "/login"),
		"headers": map[string]string{"Authorization": "Bearer req-secret-token-1", "Content-Type": "application/json"},
		"body":    `{"user":"alice","password":"req-secret-pass-2"}`})
	resp := call("http_request", string(args))
	var out HTTPRequestResult
	if err := json.Unmarshal(structured(t, resp), &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != 201 || out.Body != `{"ok":true}` || out.BodyFormat != "text" || out.ContentLength != 11 ||
		out.Request.Method != "POST" || out.Request.BodyBytes != 47 || out.Timing.TotalMS <= 0 || out.RemoteIP == "" {
		t.Errorf("%+v", out)
	}
	if s.gotAuth[0] != "Bearer req-secret-token-1" || !strings.Contains(s.gotBody[0], "req-secret-pass-2") {
		t.Errorf("the fixture did not get the request: %q %q", s.gotAuth, s.gotBody)
	}
	// Request secrets are never echoed, even with privacy off.
	for _, sec := range []string{"req-secret-token-1", "req-secret-pass-2"} {
		if bytes.Contains(resp, []byte(sec)) {
			t.Errorf("%s echoed", sec)
		}
	}
	// Cut bodies say so; binary bodies are base64.
	json.Unmarshal(structured(t, call("http_request", `{"url":"`+s.url("app.example.com", "/big")+`","max_response_bytes":100}`)), &out)
	if out.BodyBytes != 100 || !out.BodyTruncated || out.ContentLength != 5000 {
		t.Errorf("cut: %d %v %d", out.BodyBytes, out.BodyTruncated, out.ContentLength)
	}
	json.Unmarshal(structured(t, call("http_request", `{"url":"`+s.url("app.example.com", "/binary")+`"}`)), &out)
	if out.Body != "AAEC/w==" || out.BodyFormat != "base64" {
		t.Errorf("binary: %q %s", out.Body, out.BodyFormat)
	}
	for args, code := range map[string]string{
		`{"url":"http://127.0.0.1/"}`:                                        "blocked_ip",
		`{"url":"http://169.254.169.254/latest/"}`:                           "blocked_ip",
		`{"url":"http://localhost/"}`:                                        "blocked_hostname",
		`{"url":"http://example.com:8080/"}`:                                 "blocked_port",
		`{"url":"ftp://example.com/"}`:                                       "invalid_scheme",
		`{"url":"https://example.com/","method":"CONNECT"}`:                  "invalid_params",
		`{"url":"https://example.com/","method":"GE T"}`:                     "invalid_params",
		`{"url":"https://example.com/","headers":{"Host":"evil"}}`:           "invalid_params",
		`{"url":"https://example.com/","headers":{"Transfer-Encoding":"x"}}`: "invalid_params",
		`{"url":"https://example.com/","headers":{"X-A":"a\r\nB: c"}}`:       "invalid_params",
		`{"url":"https://example.com/","body":"%%%","body_format":"base64"}`: "invalid_params",
	} {
		if got := errorCode(call("http_request", args)); got != code {
			t.Errorf("%s: %q, want %q", args, got, code)
		}
	}
}

func TestHTTPRequestRedirects(t *testing.T) {
	s := newSite(t)
	call := privacyServer(t, registryWith(t, s.deps("app.example.com", "api.example.com")), "off")
	do := func(path, policy string) HTTPRequestResult {
		t.Helper()
		var out HTTPRequestResult
		args, _ := json.Marshal(map[string]any{"url": s.url("app.example.com", path), "redirects": policy,
			"headers": map[string]string{"Authorization": "Bearer origin-only"}})
		json.Unmarshal(structured(t, call("http_request", string(args))), &out)
		return out
	}
	if out := do("/same", "none"); out.Status != 302 || out.Stopped == nil || out.Stopped.Code != "redirect_not_followed" || len(out.Redirects) != 0 {
		t.Errorf("none: %+v", out)
	}
	if out := do("/same", "same-origin"); out.Status != 201 || len(out.Redirects) != 1 || out.Redirects[0].Status != 302 || out.Stopped != nil {
		t.Errorf("same-origin, same origin: %+v", out)
	}
	if out := do("/cross", "same-origin"); out.Status != 307 || out.Stopped == nil || out.Stopped.Code != "redirect_cross_origin" {
		t.Errorf("same-origin, cross: %+v", out)
	}
	before := len(s.requests())
	if out := do("/cross", "follow"); out.Status != 201 || len(out.Redirects) != 1 || !strings.Contains(out.FinalURL, "api.example.com") {
		t.Errorf("follow: %+v", out)
	}
	if got := s.gotAuth[before+1]; got != "" {
		t.Errorf("Authorization crossed origins: %q", got)
	}
	if out := do("/loop", "follow"); out.Stopped == nil || out.Stopped.Code != "too_many_redirects" || len(out.Redirects) != 5 {
		t.Errorf("loop: %d hops, %+v", len(out.Redirects), out.Stopped)
	}
	// A hop outside the scope is neither looked up nor requested.
	if out := do("/outside", "follow"); out.Status != 302 || out.Stopped == nil || out.Stopped.Code != "target_out_of_scope" {
		t.Errorf("outside: %+v", out)
	}
	if n := s.res.count("outside.example.net"); n != 0 {
		t.Errorf("the out-of-scope hop cost %d look-ups", n)
	}
	for _, r := range s.requests() {
		if strings.Contains(r, "outside.example.net") {
			t.Errorf("the out-of-scope hop was requested: %s", r)
		}
	}
	// Without a scope, a hop to a metadata address is refused by the SSRF
	// rules.
	var out HTTPRequestResult
	open := privacyServer(t, registryWith(t, s.deps()), "off")
	json.Unmarshal(structured(t, open("http_request", `{"url":"`+s.url("app.example.com", "/metadata")+`","redirects":"follow"}`)), &out)
	if out.Stopped == nil || out.Stopped.Code != "blocked_ip" || out.Status != 302 {
		t.Errorf("metadata: %+v", out.Stopped)
	}
}

// The privacy mode on the bytes: the response's cookie value goes in
// balanced and strict and stays in off; the cookie's name, its attributes
// and a harmless header beside it survive.
func TestHTTPRequestPrivacy(t *testing.T) {
	s := newSite(t)
	args := `{"url":"` + s.url("app.example.com", "/login") + `"}`
	for mode, call := range servers(t, registryWith(t, s.deps())) {
		resp := call("http_request", args)
		if bytes.Contains(resp, []byte("sess-value-7f3a")) != (mode == "off") {
			t.Errorf("%s: cookie value present=%v", mode, mode != "off")
		}
		for _, keep := range []string{"sid=", "HttpOnly", "visible-note", "application/json"} {
			if !bytes.Contains(resp, []byte(keep)) {
				t.Errorf("%s: %s is gone: %.600s", mode, keep, resp)
			}
		}
	}
}

// gated serves reg behind the real gates: unsafe on, scope, approvals by
// elicitation.
func gated(t *testing.T, reg *tool.Registry, scope []string) (*mcp.Server, *policy.Controls) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	lim, err := limits.New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := policy.NewGates(reg, policy.CatalogConfig{Unsafe: true, ScopeInclude: scope}, approval.NewMemory(0))
	if err != nil {
		t.Fatal(err)
	}
	ctl := &policy.Controls{Limiter: lim, Gates: g, Local: policy.LocalPrincipal()}
	srv := mcp.NewServer(reg, &mcp.Options{Middleware: ctl.Middleware(), Visible: ctl.Visible})
	t.Cleanup(srv.Close)
	return srv, ctl
}

func modern(srv *mcp.Server, params string, caps string) map[string]any {
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + params +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"test-client","version":"1"}}}}`
	var out map[string]any
	json.Unmarshal(srv.ServeMessage(auth.WithPrincipal(context.Background(), *policy.LocalPrincipal()), []byte(msg), nil), &out)
	return out
}

func text(r map[string]any) string {
	res, _ := r["result"].(map[string]any)
	c, _ := res["content"].([]any)
	if len(c) == 0 {
		return ""
	}
	b, _ := c[0].(map[string]any)
	s, _ := b["text"].(string)
	return s
}

// The scope gate refuses an out-of-scope target before the handler: no
// look-up, no connection (a counting listener sees none), while the
// in-scope control beside it connects.
func TestHTTPRequestScopeCostsNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepts atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepts.Add(1)
			c.Close()
		}
	}()
	ap := netip.MustParseAddrPort(ln.Addr().String())
	res := &hostResolver{addr: ap.Addr(), lookups: map[string]int{}}
	reg := registryWith(t, Deps{SafeHTTP: &safehttp.Options{Resolver: res, AllowAddrPorts: []netip.AddrPort{ap}}})
	srv, _ := gated(t, reg, []string{"app.example.com"})
	port := strconv.Itoa(int(ap.Port()))
	for _, u := range []string{"http://other.example.net:" + port + "/", "http://APP.example.com.evil.net:" + port + "/", "http://" + ap.String() + "/"} {
		if got := text(modern(srv, `"name":"http_request","arguments":{"url":"`+u+`"},`, elicit)); !strings.HasPrefix(got, "target_out_of_scope:") {
			t.Errorf("%s: %q", u, got)
		}
	}
	if accepts.Load() != 0 || len(res.lookups) != 0 {
		t.Fatalf("out-of-scope targets cost %d connections and %v look-ups", accepts.Load(), res.lookups)
	}
	// The in-scope control asks for approval first, then connects.
	first := modern(srv, `"name":"http_request","arguments":{"url":"http://app.example.com:`+port+`/"},`, elicit)
	retry(t, srv, "http://app.example.com:"+port+"/", first, `{"action":"accept","content":{"approve":true}}`)
	if accepts.Load() == 0 || res.count("app.example.com") == 0 {
		t.Errorf("the in-scope control made %d connections and %d look-ups", accepts.Load(), res.count("app.example.com"))
	}
}

const elicit = `{"elicitation":{}}`

// retry answers an approval question of the stateless revision.
func retry(t *testing.T, srv *mcp.Server, url string, first map[string]any, answer string) map[string]any {
	t.Helper()
	res, _ := first["result"].(map[string]any)
	if res["resultType"] != "input_required" {
		t.Fatalf("no approval question: %v", first)
	}
	state, _ := json.Marshal(res["requestState"])
	return modern(srv, `"name":"http_request","arguments":{"url":"`+url+`"},"inputResponses":{"warden_approval":`+answer+`},"requestState":`+string(state)+`,`, elicit)
}

// confirm_each on the stateless revision: every call asks; accept sends,
// decline sends nothing.
func TestHTTPRequestApprovalStateless(t *testing.T) {
	s := newSite(t)
	srv, _ := gated(t, registryWith(t, s.deps()), nil)
	u := s.url("app.example.com", "/login")
	for i := range 2 {
		first := modern(srv, `"name":"http_request","arguments":{"url":"`+u+`"},`, elicit)
		if n := len(s.requests()); n != i {
			t.Fatalf("a request was sent before approval (%d)", n)
		}
		out := retry(t, srv, u, first, `{"action":"accept","content":{"approve":true}}`)
		if !strings.Contains(text(out), `"status":201`) {
			t.Fatalf("accepted call %d: %.300s", i, text(out))
		}
	}
	first := modern(srv, `"name":"http_request","arguments":{"url":"`+u+`"},`, elicit)
	if got := text(retry(t, srv, u, first, `{"action":"decline"}`)); !strings.HasPrefix(got, "approval_declined:") {
		t.Errorf("declined: %q", got)
	}
	if n := len(s.requests()); n != 2 {
		t.Errorf("%d requests sent, want the 2 approved", n)
	}
}

// confirm_each in a legacy session: the server asks with
// elicitation/create each time and waits; the answer decides.
func TestHTTPRequestApprovalLegacy(t *testing.T) {
	s := newSite(t)
	srv, _ := gated(t, registryWith(t, s.deps()), nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), inR, outW, nil); _ = outW.Close() }()
	t.Cleanup(func() { _ = inW.Close(); go io.Copy(io.Discard, outR); <-done })
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		t.Helper()
		got := make(chan string, 1)
		go func() {
			if lines.Scan() {
				got <- lines.Text()
			} else {
				got <- ""
			}
		}()
		select {
		case l := <-got:
			var m map[string]any
			_ = json.Unmarshal([]byte(l), &m)
			return m
		case <-time.After(20 * time.Second):
			t.Fatal("no message from the server")
			return nil
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"legacy","version":"1"}}}`)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	u := s.url("app.example.com", "/login")
	for i, answer := range []string{`{"action":"accept","content":{"approve":true}}`, `{"action":"decline"}`, `{"action":"accept","content":{"approve":true}}`} {
		send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(2+i) + `,"method":"tools/call","params":{"name":"http_request","arguments":{"url":"` + u + `"}}}`)
		ask := next()
		if ask["method"] != "elicitation/create" {
			t.Fatalf("call %d: expected an elicitation, got %v", i, ask)
		}
		id, _ := json.Marshal(ask["id"])
		send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + answer + `}`)
		reply := text(next())
		if i == 1 {
			if !strings.HasPrefix(reply, "approval_declined:") {
				t.Errorf("declined: %q", reply)
			}
		} else if !strings.Contains(reply, `"status":201`) {
			t.Errorf("accepted: %.200q", reply)
		}
	}
	if n := len(s.requests()); n != 2 {
		t.Errorf("%d requests sent, want the 2 approved", n)
	}
}
