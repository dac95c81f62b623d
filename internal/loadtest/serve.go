package loadtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/warden-mcp/warden/internal/gcdefault"
)

// ServerMain is the body of a benchmark server command: it reads the
// -addr, -tools and -cpuprofile flags, applies the collector default that
// warden serve applies (so that every benchmarked server runs alike),
// builds the handler for that many tools, and serves it until SIGINT or
// SIGTERM.
func ServerMain(defaultAddr string, handler func(tools int) (http.Handler, error)) error {
	addr := flag.String("addr", defaultAddr, "loopback `address` to listen on")
	tools := flag.Int("tools", 50, "number of echo tools")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to `file`")
	flag.Parse()
	gcdefault.Apply()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *cpuprofile != "" {
		finish, err := StartCPUProfile(*cpuprofile)
		if err != nil {
			return err
		}
		defer finish()
	}
	h, err := handler(*tools)
	if err != nil {
		return err
	}
	return Serve(ctx, *addr, h, os.Stdout)
}

// Serve serves h on addr, which must be a loopback address, until ctx
// ends. It writes "listening on <addr>" to out once the socket is bound.
func Serve(ctx context.Context, addr string, h http.Handler, out io.Writer) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("loadtest: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("loadtest: address %q is not a loopback IP", addr)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintf(out, "listening on %s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
