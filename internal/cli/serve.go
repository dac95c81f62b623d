package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/warden-mcp/warden/internal/gcdefault"
	"github.com/warden-mcp/warden/internal/toolset"
)

// serveFlags are the flags of warden serve; set ones win over the
// configuration file and the environment.
type serveFlags struct {
	config   string
	listen   string
	logLevel string
	stateDir string
	store    string
	origins  []string
	roots    []string
	metrics  string
	otlp     string
	gates    gateFlags
	flagSet  *pflag.FlagSet
}

func (e *env) serveCommand() *cobra.Command {
	f := serveFlags{}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve MCP over streamable HTTP",
		Long: "Serve Warden's tools over streamable HTTP on one endpoint, in both protocol\n" +
			"eras. Every request needs a bearer token. With no configuration Warden binds\n" +
			"loopback only, keeps its state (SQLite database, keys) in the state directory,\n" +
			"signs development tokens with a local key and prints one. A configuration\n" +
			"file names an external issuer, limits, a PostgreSQL store and the bind address\n" +
			"for a hosted deployment (docs/operations.md).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.serve(cmd.Context(), f)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.config, "config", "", "configuration file (YAML)")
	fl.StringVar(&f.listen, "listen", "", "address to listen on (default 127.0.0.1:8787)")
	fl.StringVar(&f.logLevel, "log-level", "", "log level on stderr: debug, info, warn, error")
	fl.StringVar(&f.stateDir, "state-dir", "", "directory for keys and the embedded database")
	fl.StringVar(&f.store, "store", "", "store DSN: postgres://... (default: embedded SQLite in the state directory)")
	fl.StringSliceVar(&f.origins, "allowed-origin", nil, "browser Origin to accept (repeatable)")
	fl.StringArrayVar(&f.roots, "root", nil, "directory bininspect_open may read files from by path (repeatable; replaces bininspect.roots)")
	fl.StringVar(&f.metrics, "metrics-listen", "", "address of a separate listener for Prometheus /metrics and the health checks (default: off)")
	fl.StringVar(&f.otlp, "otlp-endpoint", "", "OTLP/HTTP collector URL for traces, such as http://127.0.0.1:4318 (spans go to its /v1/traces; a URL with a path is used as is; default: off)")
	f.gates.add(fl)
	f.flagSet = fl
	return c
}

// loopbackOnly reports an error for a listen address that is not loopback.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return fmt.Errorf("listen address %q is not loopback", addr)
	}
	return nil
}

// serveConfig layers the file, the environment and the flags; derivedURL
// reports that the public URL was not given and comes from the listen
// address.
func (e *env) serveConfig(f serveFlags) (cfg Config, derivedURL bool, err error) {
	cfg, err = loadConfig(f.config, os.Getenv)
	if err != nil {
		return cfg, false, err
	}
	for _, o := range []struct {
		flag string
		dst  *string
	}{{f.listen, &cfg.Listen}, {f.logLevel, &cfg.LogLevel}, {f.stateDir, &cfg.StateDir}, {f.store, &cfg.Store.DSN},
		{f.metrics, &cfg.Metrics.Listen}, {f.otlp, &cfg.Tracing.OTLPEndpoint}} {
		if o.flag != "" {
			*o.dst = o.flag
		}
	}
	if len(f.origins) > 0 {
		cfg.AllowedOrigins = f.origins
	}
	if len(f.roots) > 0 {
		cfg.Bininspect.Roots = f.roots
	}
	if f.flagSet != nil {
		f.gates.apply(f.flagSet, &cfg)
	}
	derivedURL = cfg.PublicURL == ""
	if cfg, err = cfg.withDefaults(); err != nil {
		return cfg, derivedURL, err
	}
	return cfg, derivedURL, cfg.checkServe()
}

func (e *env) serve(ctx context.Context, f serveFlags) error {
	gcdefault.Apply() // a long-running server: see the package
	cfg, derivedURL, err := e.serveConfig(f)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	s, err := openServer(ctx, cfg, derivedURL, e.stderr)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	defer s.Close()
	if err := s.greet(e.stdout); err != nil {
		return &exitError{code: ExitError, err: err}
	}
	if err := s.Serve(ctx); err != nil {
		return &exitError{code: ExitError, err: err}
	}
	return nil
}

// devTokenLifetime is the lifetime of the development token warden serve
// prints.
const devTokenLifetime = 12 * time.Hour

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// logBinaryRoots tells the operator where bininspect_open may read.
func logBinaryRoots(logger *slog.Logger, b *toolset.BinaryViews) {
	if roots := b.Roots(); len(roots) > 0 {
		logger.Info("binary views: files may be opened by path under these directories", slog.Any("roots", roots))
		return
	}
	logger.Info("binary views: no --root given, so no file is opened by path (uploads and data_base64 only)")
}
