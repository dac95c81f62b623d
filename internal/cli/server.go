package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/console"
	"github.com/warden-mcp/warden/internal/toolset"
	"github.com/warden-mcp/warden/mcp"
)

// server is one warden serve: openServer builds it in dependency order
// (the listener, observability, the controls and their store, the keys,
// the wired tools and call path, the HTTP handler), Serve runs it until
// its context ends, and Close releases what openServer acquired, in the
// reverse order. Nothing is changed once it is open.
type server struct {
	cfg      Config
	logger   *slog.Logger
	flushLog func()
	ln       net.Listener
	ctl      *controls
	obs      *observability
	w        *wired
	h        *mcp.HTTPHandler
	console  *console.Handler // nil when the console is off
	hs       *http.Server
	closers  []func() // run by Close, last first
}

// openServer opens a server for cfg; derivedURL says the public URL comes
// from the listen address (and follows the port the system picks for
// port 0). Diagnostics go to stderr. On error, what was opened is closed.
func openServer(ctx context.Context, cfg Config, derivedURL bool, stderr io.Writer) (s *server, err error) {
	s = &server{cfg: cfg}
	defer func() {
		if err != nil {
			s.Close()
			s = nil
		}
	}()
	// A line per request: written in batches, warnings at once.
	if s.logger, s.flushLog, err = newServerLogger(stderr, cfg.LogLevel); err != nil {
		return s, err
	}
	s.closers = append(s.closers, s.flushLog)
	if s.ln, err = net.Listen("tcp", cfg.Listen); err != nil {
		return s, err
	}
	s.closers = append(s.closers, func() { s.ln.Close() })
	if _, port, _ := net.SplitHostPort(cfg.Listen); port == "0" {
		// Port 0 picked a port: a derived public URL follows the real one.
		_, real, _ := net.SplitHostPort(s.ln.Addr().String())
		host, _, _ := net.SplitHostPort(cfg.Listen)
		cfg.Listen = net.JoinHostPort(host, real)
		if derivedURL {
			cfg.PublicURL = ""
		}
		if cfg, err = cfg.withDefaults(); err != nil {
			return s, err
		}
		s.cfg = cfg
	}
	// Observability first: the controls report to it from the start.
	if s.obs, err = openObservability(ctx, cfg); err != nil {
		return s, err
	}
	s.closers = append(s.closers, func() { s.obs.close(s.logger) })
	if s.ctl, err = openControls(ctx, cfg, s.logger, false, s.obs.controlsObserver()); err != nil {
		return s, err
	}
	s.closers = append(s.closers, s.ctl.close)
	s.obs.watch(s.ctl)
	pctx, stop := context.WithCancel(ctx)
	s.closers = append(s.closers, stop)
	go s.ctl.prune(pctx, time.Hour, s.logger)
	go s.ctl.policy.Run(pctx, 0) // audit records and slot releases an outage left
	s.closers = append(s.closers, func() { s.ctl.flushRepairs(s.logger) })
	keys, err := sharedKeys(ctx, cfg, s.ctl.store, cfg.sharedStore())
	if err != nil {
		return s, err
	}
	var consoleURL string
	if cfg.consoleOn() {
		consoleURL = cfg.consoleOrigin()
	}
	if s.w, err = wire(wireOptions{logger: s.logger, stateDir: cfg.StateDir, controls: s.ctl, cfg: cfg, outer: s.obs.middleware(),
		keys: keys, state: s.ctl.store, consoleURL: consoleURL}); err != nil {
		return s, err
	}
	s.closers = append(s.closers, s.w.closePlugins)
	// Changed, new and removed plugins are loaded without a restart.
	watchCtx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	s.closers = append(s.closers, stopWatch)
	interval := time.Duration(cfg.Plugins.ReloadInterval)
	if interval <= 0 {
		interval = 2 * time.Second
	}
	go s.w.plugins.watch(watchCtx, interval)
	s.ctl.setTools(s.w)
	opts := &mcp.HTTPOptions{
		Observer:       s.obs.observer(),
		LivenessPath:   cfg.Health.LivenessPath,
		ReadinessPath:  cfg.Health.ReadinessPath,
		Path:           cfg.Path,
		MaxBodyBytes:   cfg.MaxBodyBytes,
		AllowedOrigins: cfg.AllowedOrigins,
		Logger:         s.logger,
		Wrap:           s.ctl.wrap,
		Extra:          s.ctl.documents(),
		Ready:          s.ctl.ready,
	}
	s.ctl.profile.httpCaps(opts)
	// Uploads pass the same authentication, caller binding and rate
	// limit as the protocol endpoint.
	opts.Extra[toolset.UploadPath] = s.ctl.wrap(s.w.binary.UploadHandler())
	if cfg.loopback() {
		_, opts.LoopbackPort, _ = net.SplitHostPort(cfg.Listen)
	}
	if consoleURL != "" {
		if s.console, err = s.openConsole(keys); err != nil {
			return s, fmt.Errorf("console: %w", err)
		}
		opts.Trees = map[string]http.Handler{console.Path: s.console}
	}
	s.h = mcp.NewHTTPHandler(s.w.srv, opts)
	s.obs.serve(s.h, s.logger)
	s.hs = &http.Server{
		Handler:           s.obs.handler(s.h),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	return s, nil
}

// greet logs what is served and tells the operator on stdout where, how
// clients get in and, for the local key, writes the development token.
func (s *server) greet(stdout io.Writer) error {
	cfg, ctl, w := s.cfg, s.ctl, s.w
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
	s.logger.Info("serving MCP over HTTP", slog.String("url", cfg.PublicURL), slog.Int("tools", w.reg.Len()),
		slog.String("access", access), slog.String("profile", string(ctl.profile)), slog.Any("unsafe_tools_on", w.unsafeOn()))
	logBinaryRoots(s.logger, w.binary)
	if ctl.local != nil {
		fmt.Fprintf(stdout, "Warden is listening on %s (loopback only).\n", cfg.PublicURL)
	} else {
		fmt.Fprintf(stdout, "Warden is listening on %s; clients need tokens from %s.\n", cfg.PublicURL, cfg.Auth.Issuer)
	}
	fmt.Fprintf(stdout, "Profile: %s\n", ctl.describe())
	if line := unsafeBanner(w.unsafeOn(), cfg); line != "" {
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintln(stdout)
	var token, tokenFile string
	if ctl.local != nil {
		var err error
		token, err = ctl.local.Mint(auth.TokenSpec{Audience: cfg.PublicURL, Subject: "dev", Tenant: "local",
			Entitlements: []string{"*"}, Lifetime: devTokenLifetime})
		if err != nil {
			return err
		}
		// One file per listener: a second server on another port with the
		// same state directory leaves this one's token alone.
		if tokenFile, err = devTokenFile(cfg.StateDir, cfg.Listen); err != nil {
			return err
		}
		if err := writePrivateFile(tokenFile, []byte(token+"\n")); err != nil {
			return err
		}
		pruneTokenFiles(cfg.StateDir, tokenFile, devTokenLifetime, time.Now())
	}
	printClientConfig(stdout, cfg.PublicURL, token, tokenFile, ctl.as != nil)
	if s.console != nil && ctl.profile == profileLocal {
		// The local user signs in to the console with a one-time link
		// printed here, where only they read it.
		link, err := s.console.SignInLink(console.Session{Issuer: auth.LocalIssuerID, Tenant: "local", Owner: true, Name: "local user"}, localSignInLifetime)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nConsole (approvals, findings, activity): %s/console\nSign in once with: %s\n", cfg.consoleOrigin(), link)
	}
	return nil
}

// Serve serves until ctx ends or the listener fails, then lets in-flight
// calls finish within the configured shutdown timeout.
func (s *server) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.hs.Serve(s.ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	grace := time.Duration(s.cfg.ShutdownTimeout)
	s.logger.Info("shutting down; letting in-flight calls finish", slog.Duration("deadline", grace))
	s.h.Drain()
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := s.hs.Shutdown(sctx)
	if werr := s.h.Wait(sctx); werr != nil && err == nil {
		// Legacy calls whose client left run on to keep their outcomes
		// for resumption, on any replica; past the deadline they are cut.
		err = werr
	}
	s.h.Close()
	if err != nil {
		_ = s.hs.Close()
		if !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		s.logger.Warn("shutdown deadline passed; remaining calls were cut off")
	}
	return nil
}

// Close releases what openServer acquired, last first: the audit records
// still waiting, the controls' maintenance and store, observability (so
// the controls' last reports are exported), the listener, the log.
func (s *server) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}
