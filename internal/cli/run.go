// Package cli implements the warden command: its subcommands, flags and
// configuration, and the wiring that decides which tools are served with
// which controls. main only turns signals into a cancelled context and
// calls Run.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/warden-mcp/warden/errcode"
)

// Exit codes.
const (
	ExitOK       = 0
	ExitFindings = 1 // a scan found something at or above --fail-on
	ExitError    = 2 // bad usage or a failure
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// env is what every subcommand may use.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// Run runs the warden command line and returns the process exit code.
// Results go to stdout, diagnostics to stderr.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "warden",
		Short: "An MCP server and SDK for security work",
		Long: "Warden serves security tools to AI agents over the Model Context Protocol\n" +
			"(stdio and streamable HTTP) and runs the same scanners from the command line.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(
		e.serveCommand(),
		e.stdioCommand(),
		e.toolsCommand(),
		e.pluginCommand(),
		e.scanCommand(),
		e.inspectCommand(),
		e.uploadCommand(),
		e.tokenCommand(),
		e.credentialsCommand(),
		e.auditCommand(),
		e.findingsCommand(),
		e.versionCommand(),
		e.analyzeWorkerCommand(),
	)
	rejectUnknownSubcommands(root)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "warden:", describe(ee.err))
		}
		return ee.code
	}
	if errors.Is(err, context.Canceled) {
		return ExitOK
	}
	fmt.Fprintln(stderr, "warden:", describe(err))
	return ExitError
}

// describe is err's text for the person at the terminal. An engine error
// shows only its code and public message; its cause (a path, a parse
// error) is for logs, and the CLI's stderr is the operator's log.
func describe(err error) string {
	s := err.Error()
	if e, ok := errcode.As(err); ok && e.Cause != nil {
		s += " (" + e.Cause.Error() + ")"
	}
	return s
}

// rejectUnknownSubcommands makes every command that only groups
// subcommands ("warden scan") fail with ExitError on an argument that
// names none of them ("warden scan secret ."), instead of printing its
// help and exiting 0. Alone, such a command still prints its help.
func rejectUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		rejectUnknownSubcommands(sub)
	}
	if !c.HasSubCommands() || c.Runnable() || !c.HasParent() {
		return // the root already rejects unknown commands
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += fmt.Sprintf(" (did you mean %q?)", s[0])
		}
		return &exitError{code: ExitError, err: errors.New(msg)}
	}
}
