package mcp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// greeter is a registry with one tool, for the examples.
func greeter() *tool.Registry {
	reg := tool.NewRegistry()
	tool.Add(reg, tool.Def{
		Name:        "greet",
		Description: "Greet someone by name.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     tool.Catalog{Category: "example", Trust: tool.TrustAuto},
	}, func(ctx context.Context, call *tool.Call, in struct {
		Name string `json:"name" maxLength:"64"`
	}) (string, error) {
		return "hello, " + in.Name, nil
	})
	return reg
}

const exampleMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// A server serves a registry in both protocol eras; ServeMessage answers
// one message in process.
func ExampleNewServer() {
	srv := mcp.NewServer(greeter(), &mcp.Options{Name: "example", Version: "1.0.0"})
	defer srv.Close()
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},` + exampleMeta + `}}`
	fmt.Println(string(srv.ServeMessage(context.Background(), []byte(req), nil)))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello, Ada"}],"isError":false,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
}

// ServeStdio reads newline-delimited JSON-RPC until its input ends, as a
// client that launches the server as a process sends it.
func ExampleServer_ServeStdio() {
	srv := mcp.NewServer(greeter(), &mcp.Options{Name: "example", Version: "1.0.0"})
	defer srv.Close()
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Grace"}}}
`)
	var out strings.Builder
	if err := srv.ServeStdio(context.Background(), in, &out, nil); err != nil {
		fmt.Println(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	fmt.Println(lines[len(lines)-1])
	// Output:
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello, Grace"}],"isError":false}}
}

// NewHTTPHandler serves streamable HTTP. Put authentication in front of it
// on anything but loopback.
func ExampleNewHTTPHandler() {
	srv := mcp.NewServer(greeter(), &mcp.Options{Name: "example", Version: "1.0.0"})
	defer srv.Close()
	h := mcp.NewHTTPHandler(srv, nil)
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Linus"},` + exampleMeta + `}}`
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "greet")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp.Status)
	_, _ = io.Copy(os.Stdout, resp.Body)
	// Output:
	// 200 OK
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello, Linus"}],"isError":false,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1.0.0"}}}}
}
