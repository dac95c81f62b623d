package toolset

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/internal/testbin"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// Real binaries, built at test time: a C program by gcc, and a Go program
// for Linux (stripped), Windows and macOS by the go command. Each is
// built once per toolchain into the cache internal/testbin keeps; a
// missing tool skips the tests that need it.

const cHello = `#include <stdio.h>
#include <string.h>

static const char *update = "https://updates.example.com/check";
int counter = 7;

int twice(int x) { return 2 * x + counter; }

int main(int argc, char **argv) {
	char name[32];
	strcpy(name, argc > 1 ? argv[1] : "world");
	printf("hello, %s (%s) %d\n", name, update, twice(argc));
	return 0;
}
`

// goHello imports nothing: a cold build for another system compiles the
// runtime only (binview's fixtures keep to that too).
const goHello = `package main

var banner = "warden fixture: https://example.org/go-hello"

var argc = 1

func main() {
	println(banner, argc)
}
`

// build returns the path of a fixture, building it on first use.
func build(t testing.TB, name string) string {
	t.Helper()
	switch name {
	case "hello-elf":
		return testbin.C(t, name, testbin.CProgram{File: "hello.c", Source: cHello,
			Flags: []string{"-O2", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong"}})
	case "go-linux-stripped", "go-windows.exe", "go-darwin":
		p := testbin.GoProgram{
			Files:  map[string]string{"main.go": goHello, "go.mod": "module example.com/hello\n\ngo 1.22\n"},
			GOOS:   map[string]string{"go-linux-stripped": "linux", "go-windows.exe": "windows", "go-darwin": "darwin"}[name],
			GOARCH: "amd64",
		}
		if name == "go-linux-stripped" {
			p.Ldflags = "-s -w"
		}
		return testbin.Go(t, name, p)
	}
	t.Fatalf("no fixture %s", name)
	return ""
}

// ---- a server around the family ----

var (
	alice = auth.Principal{Issuer: "https://issuer.example", Tenant: "acme", Credential: "alice"}
	bob   = auth.Principal{Issuer: "https://issuer.example", Tenant: "acme", Credential: "bob"}
	carol = auth.Principal{Issuer: "https://issuer.example", Tenant: "globex", Credential: "carol"}
)

func as(p auth.Principal) context.Context {
	return mcp.WithCaller(auth.WithPrincipal(context.Background(), p), p.Issuer+"\x00"+p.Credential)
}

type server struct {
	t   testing.TB
	b   *BinaryViews
	reg *tool.Registry
	srv *mcp.Server
}

// newServer serves the bininspect_ family of b the way the wiring does.
func newServer(t testing.TB, b *BinaryViews) *server {
	t.Helper()
	reg := tool.NewRegistry()
	if err := Register(reg, Deps{Binary: b}, Selection{Edition: EditionLean}); err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(reg, &mcp.Options{Tasks: true}) // the family resolves its own views
	t.Cleanup(srv.Close)
	return &server{t: t, b: b, reg: reg, srv: srv}
}

// newViews returns a service with a root and the options given.
func newViews(t testing.TB, o BinaryOptions) *BinaryViews {
	t.Helper()
	b, err := NewBinaryViews(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reply is what a client reads of one tool call.
type reply struct {
	raw        json.RawMessage
	isError    bool
	code       string
	message    string
	details    map[string]any
	structured map[string]any
	warnings   []tool.Warning
}

func (r reply) str(k string) string { s, _ := r.structured[k].(string); return s }

func (r reply) warned(code string) bool {
	for _, w := range r.warnings {
		if w.Code == code {
			return true
		}
	}
	return false
}

func (r reply) items() []map[string]any {
	var out []map[string]any
	list, _ := r.structured["items"].([]any)
	for _, it := range list {
		m, _ := it.(map[string]any)
		out = append(out, m)
	}
	return out
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// call calls a tool on the stateless revision.
func (s *server) call(ctx context.Context, name, args string) reply {
	s.t.Helper()
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,` + modernMeta + `}}`
	return s.parse(s.srv.ServeMessage(ctx, []byte(msg), nil))
}

func (s *server) parse(out []byte) reply {
	s.t.Helper()
	var env struct {
		Result struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
			Content           []tool.Content  `json:"content"`
		} `json:"result"`
		Error any `json:"error"`
	}
	if err := json.Unmarshal(out, &env); err != nil || env.Error != nil {
		s.t.Fatalf("response %s: %v", out, err)
	}
	r := reply{raw: out, isError: env.Result.IsError}
	if r.isError {
		var e struct {
			Code    string         `json:"errorCode"`
			Message string         `json:"errorMessage"`
			Details map[string]any `json:"details"`
		}
		if json.Unmarshal(env.Result.StructuredContent, &e) == nil && e.Code != "" {
			r.code, r.message, r.details = e.Code, e.Message, e.Details
		} else if len(env.Result.Content) > 0 {
			// A tool with an output schema puts its error in the text:
			// "code: message", then the details as a JSON line.
			text := env.Result.Content[0].Text
			first, rest, _ := strings.Cut(text, "\n")
			r.code, r.message, _ = strings.Cut(first, ": ")
			if rest != "" {
				var d struct {
					Details map[string]any `json:"details"`
				}
				if json.Unmarshal([]byte(rest), &d) == nil && d.Details != nil {
					r.details = d.Details
				} else {
					_ = json.Unmarshal([]byte(rest), &r.details)
				}
			}
		}
	}
	_ = json.Unmarshal(env.Result.StructuredContent, &r.structured)
	var w struct {
		Warnings []tool.Warning `json:"warnings"`
	}
	_ = json.Unmarshal(env.Result.StructuredContent, &w)
	r.warnings = w.Warnings
	return r
}

// must calls a tool and fails the test on an error result.
func (s *server) must(ctx context.Context, name, args string) reply {
	s.t.Helper()
	r := s.call(ctx, name, args)
	if r.isError {
		s.t.Fatalf("%s %s: %s: %s", name, args, r.code, r.message)
	}
	return r
}

// legacy is one legacy session of the server.
type legacy struct {
	s    *server
	sess *mcp.Session
	ctx  context.Context
	id   int
}

func (s *server) legacy(ctx context.Context) *legacy {
	s.t.Helper()
	l := &legacy{s: s, sess: s.srv.NewSession(""), ctx: ctx}
	s.t.Cleanup(l.sess.Close)
	l.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}`)
	m, _ := mcp.ParseMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	l.sess.HandleNotification(m)
	return l
}

func (l *legacy) request(method, params string) []byte {
	l.s.t.Helper()
	l.id++
	m, err := mcp.ParseMessage([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, l.id, method, params)))
	if err != nil {
		l.s.t.Fatal(err)
	}
	res, rerr := l.sess.Handle(l.ctx, m, nil)
	if rerr != nil {
		l.s.t.Fatalf("%s: %v", method, rerr)
	}
	return []byte(`{"jsonrpc":"2.0","id":1,"result":` + string(res) + `}`)
}

func (l *legacy) call(name, args string) reply {
	l.s.t.Helper()
	return l.s.parse(l.request("tools/call", `{"name":"`+name+`","arguments":`+args+`}`))
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
