package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/toolset"
	"github.com/warden-mcp/warden/webscan"
)

func (e *env) scanSiteCommand() *cobra.Command {
	var asJSON bool
	var htmlPath, stateDir string
	var failBelow string
	c := &cobra.Command{
		Use:   "site URL",
		Short: "Grade a public website's security configuration",
		Long: "Scan a public website the way microdefend_scan_website does: TLS, HTTPS\n" +
			"redirection and HSTS, security headers, cookies, metadata and exposed paths,\n" +
			"graded A+ to F with every cap explained. Private, internal and metadata\n" +
			"addresses are refused before any connection.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.scanSite(cmd.Context(), args[0], asJSON, htmlPath, stateDir, failBelow)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the tool's structured result as JSON")
	c.Flags().StringVar(&htmlPath, "html", "", "also write a self-contained HTML report to this file")
	c.Flags().StringVar(&failBelow, "fail-below", "", "exit 1 when the grade is below this one (A+, A, B, C, D)")
	c.Flags().StringVar(&stateDir, "state-dir", defaultStateDir(), "directory holding the fingerprint key")
	return c
}

var gradeOrder = []string{"F", "D", "C", "B", "A", "A+"}

func gradeRank(g string) int {
	g = strings.TrimRight(strings.TrimSpace(g), "-")
	for i, x := range gradeOrder {
		if x == g {
			return i
		}
	}
	if len(g) > 1 { // B+ ranks with B
		return gradeRank(g[:1])
	}
	return -1
}

func (e *env) scanSite(ctx context.Context, url string, asJSON bool, htmlPath, stateDir, failBelow string) error {
	if failBelow != "" && gradeRank(failBelow) < 0 {
		return &exitError{code: ExitError, err: fmt.Errorf("--fail-below: want one of A+, A, B, C, D")}
	}
	deps := toolset.Deps{Logger: discardLogger()}
	if key, err := loadOrCreateKey(stateDir, "fingerprint.key"); err == nil {
		deps.FingerprintKey = key
	}
	rep, err := toolset.NewSiteScanner(deps).Scan(ctx, url)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	if htmlPath != "" {
		fh, err := os.OpenFile(htmlPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return &exitError{code: ExitError, err: fmt.Errorf("--html: %w", err)}
		}
		werr := webscan.WriteHTML(fh, rep)
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return &exitError{code: ExitError, err: fmt.Errorf("--html: %w", werr)}
		}
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = webscan.WriteText(e.stdout, rep)
	}
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	if failBelow != "" && gradeRank(rep.Result.Grade) < gradeRank(failBelow) {
		return &exitError{code: ExitFindings}
	}
	return nil
}
