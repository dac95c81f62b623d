// Command gosdkserver serves the benchmark tool set (package fixture) on
// the official Go SDK's streamable HTTP handler over loopback, for
// loadclient: stateless JSON responses on /mcp (the 2026-07-28 revision)
// and a stateful handler with JSON responses on /legacy (initialize-based
// sessions).
package main

import (
	"fmt"
	"net/http"
	"os"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-mcp/warden/internal/loadtest"
	"github.com/warden-mcp/warden/internal/loadtest/fixture"
)

func main() {
	err := loadtest.ServerMain("127.0.0.1:8702", func(tools int) (http.Handler, error) {
		s, err := fixture.GoSDKServer(tools)
		if err != nil {
			return nil, err
		}
		get := func(*http.Request) *gosdk.Server { return s }
		mux := http.NewServeMux()
		mux.Handle("/mcp", gosdk.NewStreamableHTTPHandler(get, &gosdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
		mux.Handle("/legacy", gosdk.NewStreamableHTTPHandler(get, &gosdk.StreamableHTTPOptions{JSONResponse: true}))
		return mux, nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gosdkserver:", err)
		os.Exit(1)
	}
}
