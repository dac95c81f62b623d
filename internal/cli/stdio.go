package cli

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/internal/gcdefault"
)

func (e *env) stdioCommand() *cobra.Command {
	var configPath, logLevel, stateDir string
	var roots []string
	var gates gateFlags
	c := &cobra.Command{
		Use:   "stdio",
		Short: "Serve MCP over stdin and stdout",
		Long: "Serve Warden's tools over stdio, in both protocol eras, for a client that\n" +
			"launches warden itself. stdout carries only MCP messages; logs go to stderr.\n" +
			"The local user needs no token, but limits and the audit trail still apply,\n" +
			"under the principal \"local\".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			gcdefault.Apply() // a long-running server: see the package
			cfg, err := loadConfig(configPath, os.Getenv)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if stateDir != "" {
				cfg.StateDir = stateDir
			}
			if logLevel != "" {
				cfg.LogLevel = logLevel
			}
			gates.apply(cmd.Flags(), &cfg)
			if len(roots) > 0 {
				cfg.Bininspect.Roots = roots
			}
			if cfg, err = cfg.withDefaults(); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			logger, err := newLogger(e.stderr, cfg.LogLevel)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			ctl, err := openControls(cmd.Context(), cfg, logger, true, nil)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			defer ctl.close()
			keys, err := sharedKeys(cmd.Context(), cfg, ctl.store, cfg.sharedStore())
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			w, err := wire(wireOptions{logger: logger, stateDir: cfg.StateDir, controls: ctl, cfg: cfg, keys: keys})
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			defer w.closePlugins()
			logger.Info("serving MCP on stdio", slog.Int("tools", w.reg.Len()), slog.String("profile", ctl.describe()))
			if line := unsafeBanner(w.unsafeOn(), cfg); line != "" {
				// stdout is the protocol's: the banner goes to the log.
				logger.Warn(line, slog.Any("tools", w.unsafeOn()))
			}
			logBinaryRoots(logger, w.binary)
			pctx, stopPrune := context.WithCancel(cmd.Context())
			defer stopPrune()
			go ctl.prune(pctx, time.Hour, logger)
			rctx, stopRepair := context.WithCancel(cmd.Context())
			go ctl.policy.Run(rctx, 0)
			err = w.srv.ServeStdio(cmd.Context(), e.stdin, e.stdout, nil)
			stopRepair()
			ctl.flushRepairs(logger)
			return err
		},
	}
	c.Flags().StringVar(&configPath, "config", "", "configuration file (YAML)")
	c.Flags().StringVar(&logLevel, "log-level", "", "log level on stderr: debug, info, warn, error")
	c.Flags().StringVar(&stateDir, "state-dir", "", "directory for keys and the embedded database")
	c.Flags().StringArrayVar(&roots, "root", nil, "directory bininspect_open may read files from by path (repeatable; replaces bininspect.roots)")
	gates.add(c.Flags())
	return c
}
