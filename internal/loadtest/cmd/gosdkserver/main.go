// Command gosdkserver serves the benchmark tool set (package fixture) on
// the official Go SDK's streamable HTTP handler over loopback, for
// loadclient: stateless JSON responses on /mcp (the 2026-07-28 revision)
// and a stateful handler with JSON responses on /legacy (initialize-based
// sessions).
package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/warden-mcp/warden/internal/gcdefault"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-mcp/warden/internal/loadtest"
	"github.com/warden-mcp/warden/internal/loadtest/fixture"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gosdkserver:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:8702", "loopback `address` to listen on")
	tools := flag.Int("tools", 50, "number of echo tools")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to `file`")
	flag.Parse()
	// As warden serve does, for both servers alike.
	gcdefault.Apply()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *cpuprofile != "" {
		finish, err := loadtest.StartCPUProfile(*cpuprofile)
		if err != nil {
			return err
		}
		defer finish()
	}

	s, err := fixture.GoSDKServer(*tools)
	if err != nil {
		return err
	}
	get := func(*http.Request) *gosdk.Server { return s }
	mux := http.NewServeMux()
	mux.Handle("/mcp", gosdk.NewStreamableHTTPHandler(get, &gosdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	mux.Handle("/legacy", gosdk.NewStreamableHTTPHandler(get, &gosdk.StreamableHTTPOptions{JSONResponse: true}))
	return loadtest.Serve(ctx, *addr, mux, os.Stdout)
}
