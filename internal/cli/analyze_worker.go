package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/binview/isolate"
)

// analyzeWorkerName is the hidden subcommand a hosted server runs, once
// per file and once per stage of its code analysis, to analyse a binary
// in a child process under limits.
const analyzeWorkerName = "analyze-worker"

func (e *env) analyzeWorkerCommand() *cobra.Command {
	return &cobra.Command{
		Use:    analyzeWorkerName,
		Short:  "Analyse one binary read from stdin and write its results to stdout (internal)",
		Long:   "The child side of isolated binary analysis: a hosted server runs it once per file, and once\nper stage of its code analysis, under memory, CPU and wall-clock limits. Not for direct use;\nthe request format is private.",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := e.stdout
			// Only the results may reach the real stdout: anything a
			// library prints goes to stderr instead.
			if f, ok := out.(*os.File); ok && f == os.Stdout {
				os.Stdout = os.Stderr
				defer func() { os.Stdout = f }()
			}
			if err := isolate.Serve(cmd.Context(), e.stdin, out); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			return nil
		},
	}
}

// isolatedAnalyzer returns a runner that analyses binaries in a child
// process of this executable ("warden analyze-worker"), for hosted
// servers; limits are the isolate defaults unless given.
func isolatedAnalyzer(l isolate.Limits) (*isolate.Runner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return &isolate.Runner{Path: exe, Args: []string{analyzeWorkerName}, Limits: l}, nil
}
