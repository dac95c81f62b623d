// Command wardenserver serves the benchmark tool set (package fixture) on
// Warden's streamable HTTP handler over loopback, for loadclient: the
// 2026-07-28 revision and legacy sessions on /mcp, and the same server on
// /legacy so that scripts can use one path per era for both
// implementations.
package main

import (
	"fmt"
	"net/http"
	"os"

	"github.com/warden-mcp/warden/internal/loadtest"
	"github.com/warden-mcp/warden/internal/loadtest/fixture"
	"github.com/warden-mcp/warden/mcp"
)

func main() {
	err := loadtest.ServerMain("127.0.0.1:8701", func(tools int) (http.Handler, error) {
		s := fixture.WardenServer(tools)
		mux := http.NewServeMux()
		mux.Handle("/mcp", mcp.NewHTTPHandler(s, &mcp.HTTPOptions{Path: "/mcp"}))
		mux.Handle("/legacy", mcp.NewHTTPHandler(s, &mcp.HTTPOptions{Path: "/legacy"}))
		return mux, nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "wardenserver:", err)
		os.Exit(1)
	}
}
