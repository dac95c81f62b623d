// Command hello is the smallest Warden server: one typed tool, served over
// stdio in both protocol eras. Point a client at `go run ./examples/hello`.
package main

import (
	"context"
	"io"
	"os"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

func main() {
	if err := serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		os.Exit(1)
	}
}

func serve(ctx context.Context, in io.Reader, out io.Writer) error {
	reg := tool.NewRegistry()
	tool.Add(reg, tool.Def{Name: "hello_greet", Description: "Greet someone by name.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     tool.Catalog{Category: "example", Trust: tool.TrustAuto},
	}, func(ctx context.Context, call *tool.Call, in struct {
		Name string `json:"name" maxLength:"64" desc:"Who to greet"`
	}) (string, error) {
		return "hello, " + in.Name, nil
	})
	return mcp.NewServer(reg, nil).ServeStdio(ctx, in, out, nil)
}
