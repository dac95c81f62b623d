package plugin

import (
	"context"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

type benchArgs struct {
	Text string `json:"text" maxLength:"100000"`
}

type benchResult struct {
	Text string `json:"text"`
}

// BenchmarkToolsCall is one tools/call of a trivial tool (echo) through
// the protocol engine: written in Go against the SDK, and the same tool
// as a WebAssembly plugin built with the Go kit (instance reused for the
// caller, as the server does), and, where clang can build it, the C
// scaffold's echo.
//
//	go test -run '^$' -bench BenchmarkToolsCall -benchmem ./plugin/
func BenchmarkToolsCall(b *testing.B) {
	reg := tool.NewRegistry()
	tool.Add(reg, tool.Def{Name: "native_echo", Description: "Echo.", Annotations: tool.Annotations{ReadOnly: true},
		Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto}},
		func(ctx context.Context, c *tool.Call, in benchArgs) (benchResult, error) {
			return benchResult(in), nil
		})
	p := loadHostile(b, Limits{})
	for _, t := range p.Tools() {
		reg.MustRegister(t)
	}
	cases := []struct{ name, tool string }{{"go", "native_echo"}, {"wasm", "hostile_echo"}}
	// The C scaffold's echo: the same call with a module that has no
	// runtime of its own.
	if CanBuild("c") == nil {
		dir := b.TempDir()
		if err := New(dir, "cecho", ScaffoldOptions{Lang: "c"}); err != nil {
			b.Fatal(err)
		}
		if err := Build(context.Background(), dir, nil); err != nil {
			b.Fatal(err)
		}
		pc, err := Load(context.Background(), dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { pc.Close(context.Background()) })
		for _, t := range pc.Tools() {
			reg.MustRegister(t)
		}
		cases = append(cases, struct{ name, tool string }{"wasm-c", "cecho_echo"})
	}
	srv := mcp.NewServer(reg, &mcp.Options{Name: "bench", Version: "1"})
	for _, c := range cases {
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + c.tool + `","arguments":{"text":"hello"},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		b.Run(c.name, func(b *testing.B) {
			out := srv.ServeMessage(context.Background(), msg, nil)
			if !strings.Contains(string(out), `"text":"hello"`) || strings.Contains(string(out), `"isError":true`) {
				b.Fatalf("%s", out)
			}
			b.ReportAllocs()
			for b.Loop() {
				srv.ServeMessage(context.Background(), msg, nil)
			}
		})
	}
}
