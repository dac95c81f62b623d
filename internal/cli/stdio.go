package cli

import (
	"log/slog"

	"github.com/spf13/cobra"
)

func (e *env) stdioCommand() *cobra.Command {
	var logLevel, stateDir string
	c := &cobra.Command{
		Use:   "stdio",
		Short: "Serve MCP over stdin and stdout",
		Long: "Serve Warden's tools over stdio, in both protocol eras, for a client that\n" +
			"launches warden itself. stdout carries only MCP messages; logs go to stderr.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, err := newLogger(e.stderr, logLevel)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			w, err := wire(wireOptions{logger: logger, stateDir: stateDir})
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			logger.Info("serving MCP on stdio", slog.Int("tools", w.reg.Len()))
			return w.srv.ServeStdio(cmd.Context(), e.stdin, e.stdout, nil)
		},
	}
	c.Flags().StringVar(&logLevel, "log-level", "info", "log level on stderr: debug, info, warn, error")
	c.Flags().StringVar(&stateDir, "state-dir", defaultStateDir(), "directory for keys and the embedded database")
	return c
}
