package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/internal/gcdefault"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/toolset"
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
	// A line per request: written in batches, warnings at once.
	logger, flushLog, err := newServerLogger(e.stderr, cfg.LogLevel)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	defer flushLog()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	defer ln.Close()
	if _, port, _ := net.SplitHostPort(cfg.Listen); port == "0" {
		// Port 0 picked a port: a derived public URL follows the real one.
		_, real, _ := net.SplitHostPort(ln.Addr().String())
		host, _, _ := net.SplitHostPort(cfg.Listen)
		cfg.Listen = net.JoinHostPort(host, real)
		if derivedURL {
			cfg.PublicURL = ""
		}
		if cfg, err = cfg.withDefaults(); err != nil {
			return &exitError{code: ExitError, err: err}
		}
	}
	ctl, err := openControls(ctx, cfg, logger, false)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	defer ctl.close()
	pctx, stopPrune := context.WithCancel(ctx)
	defer stopPrune()
	go ctl.prune(pctx, time.Hour, logger)
	go ctl.policy.Run(pctx, 0) // audit records and slot releases an outage left
	defer ctl.flushRepairs(logger)
	obs, err := openObservability(ctx, cfg, ctl)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	defer obs.close(logger)
	keys, err := sharedKeys(ctx, cfg, ctl.store, cfg.sharedStore())
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	w, err := wire(wireOptions{logger: logger, stateDir: cfg.StateDir, controls: ctl, cfg: cfg, outer: obs.middleware(),
		keys: keys, state: ctl.store})
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	ctl.setTools(w)
	opts := &mcp.HTTPOptions{
		Observer:       obs.observer(),
		LivenessPath:   cfg.Health.LivenessPath,
		ReadinessPath:  cfg.Health.ReadinessPath,
		Path:           cfg.Path,
		MaxBodyBytes:   cfg.MaxBodyBytes,
		AllowedOrigins: cfg.AllowedOrigins,
		Logger:         logger,
		Wrap:           ctl.wrap,
		Extra:          ctl.documents(),
		Ready:          ctl.ready,
	}
	ctl.profile.httpCaps(opts)
	// Uploads pass the same authentication, caller binding and rate
	// limit as the protocol endpoint.
	opts.Extra[toolset.UploadPath] = ctl.wrap(w.binary.UploadHandler())
	if cfg.loopback() {
		_, opts.LoopbackPort, _ = net.SplitHostPort(cfg.Listen)
	}
	h := mcp.NewHTTPHandler(w.srv, opts)
	obs.serve(h, logger)
	hs := &http.Server{
		Handler:           obs.handler(h),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	access := "bearer tokens from " + cfg.Auth.Issuer
	if ctl.local != nil {
		access = "bearer tokens signed by the local development key"
	}
	if ctl.as != nil {
		access += ", from its own OAuth authorization server or pasted"
	}
	if cfg.loopback() {
		access += "; loopback only"
	}
	logger.Info("serving MCP over HTTP", slog.String("url", cfg.PublicURL), slog.Int("tools", w.reg.Len()),
		slog.String("access", access), slog.String("profile", string(ctl.profile)), slog.Any("unsafe_tools_on", w.unsafeOn()))
	logBinaryRoots(logger, w.binary)
	if ctl.local != nil {
		fmt.Fprintf(e.stdout, "Warden is listening on %s (loopback only).\n", cfg.PublicURL)
	} else {
		fmt.Fprintf(e.stdout, "Warden is listening on %s; clients need tokens from %s.\n", cfg.PublicURL, cfg.Auth.Issuer)
	}
	fmt.Fprintf(e.stdout, "Profile: %s\n", ctl.describe())
	if line := unsafeBanner(w.unsafeOn(), cfg); line != "" {
		fmt.Fprintln(e.stdout, line)
	}
	fmt.Fprintln(e.stdout)
	var token, tokenFile string
	if ctl.local != nil {
		token, err = ctl.local.Mint(auth.TokenSpec{Audience: cfg.PublicURL, Subject: "dev", Tenant: "local",
			Entitlements: []string{"*"}, Lifetime: devTokenLifetime})
		if err != nil {
			return &exitError{code: ExitError, err: err}
		}
		// One file per listener: a second server on another port with the
		// same state directory leaves this one's token alone.
		if tokenFile, err = devTokenFile(cfg.StateDir, cfg.Listen); err != nil {
			return &exitError{code: ExitError, err: err}
		}
		if err := writePrivateFile(tokenFile, []byte(token+"\n")); err != nil {
			return &exitError{code: ExitError, err: err}
		}
		pruneTokenFiles(cfg.StateDir, tokenFile, devTokenLifetime, time.Now())
	}
	printClientConfig(e.stdout, cfg.PublicURL, token, tokenFile, ctl.as != nil)

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return &exitError{code: ExitError, err: err}
	case <-ctx.Done():
	}
	grace := time.Duration(cfg.ShutdownTimeout)
	logger.Info("shutting down; letting in-flight calls finish", slog.Duration("deadline", grace))
	h.Drain()
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err = hs.Shutdown(sctx)
	if werr := h.Wait(sctx); werr != nil && err == nil {
		// Legacy calls whose client left run on to keep their outcomes
		// for resumption, on any replica; past the deadline they are cut.
		err = werr
	}
	h.Close()
	if err != nil {
		_ = hs.Close()
		if !errors.Is(err, context.DeadlineExceeded) {
			return &exitError{code: ExitError, err: err}
		}
		logger.Warn("shutdown deadline passed; remaining calls were cut off")
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
