// Command wardenserver serves the benchmark tool set (package fixture) on
// Warden's streamable HTTP handler over loopback, for loadclient: the
// 2026-07-28 revision and legacy sessions on /mcp, and the same server on
// /legacy so that scripts can use one path per era for both
// implementations.
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

	"github.com/warden-mcp/warden/internal/loadtest"
	"github.com/warden-mcp/warden/internal/loadtest/fixture"
	"github.com/warden-mcp/warden/mcp"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "wardenserver:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:8701", "loopback `address` to listen on")
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

	s := fixture.WardenServer(*tools)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHTTPHandler(s, &mcp.HTTPOptions{Path: "/mcp"}))
	mux.Handle("/legacy", mcp.NewHTTPHandler(s, &mcp.HTTPOptions{Path: "/legacy"}))
	return loadtest.Serve(ctx, *addr, mux, os.Stdout)
}
