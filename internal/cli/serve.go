package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/mcp"
)

// serveFlags are the settings of warden serve.
type serveFlags struct {
	listen          string
	path            string
	logLevel        string
	maxBody         int64
	origins         []string
	shutdownTimeout time.Duration
	stateDir        string
}

func (e *env) serveCommand() *cobra.Command {
	f := serveFlags{}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve MCP over streamable HTTP",
		Long: "Serve Warden's tools over streamable HTTP on one endpoint, in both protocol\n" +
			"eras. Until access control is configured, warden serve binds loopback only.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.serve(cmd.Context(), f)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8787", "address to listen on (loopback only)")
	fl.StringVar(&f.path, "path", "/mcp", "protocol endpoint path")
	fl.StringVar(&f.logLevel, "log-level", "info", "log level on stderr: debug, info, warn, error")
	fl.Int64Var(&f.maxBody, "max-body", mcp.MaxMessageBytes, "largest request body in bytes")
	fl.StringSliceVar(&f.origins, "allowed-origin", nil, "browser Origin to accept (repeatable); default: loopback origins on the listen port")
	fl.StringVar(&f.stateDir, "state-dir", defaultStateDir(), "directory for keys and the embedded database")
	fl.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 10*time.Second, "how long in-flight calls may run on after a stop signal")
	return c
}

// loopbackOnly refuses any listen address that is not a loopback one.
func loopbackOnly(addr string) (port string, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		return port, nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return "", fmt.Errorf("listen address %q is not loopback: without access control, warden serve binds 127.0.0.1, [::1] or localhost only", addr)
	}
	return port, nil
}

func (e *env) serve(ctx context.Context, f serveFlags) error {
	logger, err := newLogger(e.stderr, f.logLevel)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	if _, err := loopbackOnly(f.listen); err != nil {
		return &exitError{code: ExitError, err: err}
	}
	w, err := wire(wireOptions{logger: logger, stateDir: f.stateDir})
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	h := mcp.NewHTTPHandler(w.srv, &mcp.HTTPOptions{
		Path:           f.path,
		MaxBodyBytes:   f.maxBody,
		AllowedOrigins: f.origins,
		LoopbackPort:   port,
		Logger:         logger,
	})
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	url := fmt.Sprintf("http://%s%s", ln.Addr().String(), f.path)
	logger.Info("serving MCP over HTTP", slog.String("url", url), slog.Int("tools", w.reg.Len()),
		slog.String("access", "loopback only, no authentication"))
	printClientConfig(e.stdout, url)

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return &exitError{code: ExitError, err: err}
	case <-ctx.Done():
	}
	logger.Info("shutting down; letting in-flight calls finish", slog.Duration("deadline", f.shutdownTimeout))
	h.Drain()
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
		if !errors.Is(err, context.DeadlineExceeded) {
			return &exitError{code: ExitError, err: err}
		}
		logger.Warn("shutdown deadline passed; remaining calls were cut off")
	}
	return nil
}

// printClientConfig prints a configuration that MCP clients accept as it
// is.
func printClientConfig(w io.Writer, url string) {
	cfg := map[string]any{"mcpServers": map[string]any{"warden": map[string]any{"type": "http", "url": url}}}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	fmt.Fprintf(w, "Warden is listening on %s (loopback only).\n", url)
	fmt.Fprintf(w, "Client configuration (Claude Code: claude mcp add --transport http warden %s):\n%s\n", url, b)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
