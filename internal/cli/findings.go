package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/privacy"
)

func (e *env) findingsCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "findings",
		Short: "Work with the findings agents recorded (warden_findings_record)",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(e.findingsExportCommand())
	return c
}

func (e *env) findingsExportCommand() *cobra.Command {
	var f serveFlags
	var asJSON, asSARIF, asHTML bool
	var tenant, since, until, minSeverity, output string
	c := &cobra.Command{
		Use:   "export",
		Short: "Export a tenant's findings as JSON, SARIF 2.1.0 or a self-contained HTML page",
		Long: "Print a tenant's recorded findings, newest first, in one of three forms:\n" +
			"--json (fields only ever grow), --sarif (SARIF 2.1.0, for code-scanning\n" +
			"dashboards) or --html (one page, no script, every value escaped). Every form\n" +
			"applies the tenant's privacy mode from the configuration, as\n" +
			"warden_findings_list does: credentials and the target's query values go in\n" +
			"balanced and strict, strict replaces hosts, addresses, e-mail addresses and\n" +
			"paths by their pseudonyms, off shows what was stored. --since and --until\n" +
			"take RFC 3339 times or durations back from now (24h).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			n := 0
			for _, b := range []bool{asJSON, asSARIF, asHTML} {
				if b {
					n++
				}
			}
			if n != 1 {
				return &exitError{code: ExitError, err: errors.New("choose one of --json, --sarif and --html")}
			}
			cfg, err := f.storeConfig()
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			flt := finding.Filter{Tenant: tenant, MinSeverity: minSeverity, Limit: finding.MaxListLimit}
			now := time.Now()
			if flt.Since, flt.Until, err = parseWindow(since, until, now); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			st, closeStore, err := openStore(cmd.Context(), cfg)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			defer closeStore()
			var all []finding.Finding
			for len(all) < finding.MaxPerTenant+finding.MaxListLimit {
				page, err := finding.List(cmd.Context(), st, flt)
				if err != nil {
					return &exitError{code: ExitError, err: err}
				}
				all = append(all, page...)
				if len(page) < flt.Limit {
					break
				}
				last := page[len(page)-1]
				flt.After = finding.Cursor{Created: last.Created, ID: last.ID}
			}
			if all, err = privateFindings(cmd.Context(), cfg, st, all); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			var w io.Writer = e.stdout
			if output != "" {
				fh, err := os.OpenFile(output, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
				if err != nil {
					return &exitError{code: ExitError, err: err}
				}
				defer fh.Close()
				w = fh
			}
			switch {
			case asJSON:
				err = finding.WriteJSON(w, all)
			case asSARIF:
				err = finding.WriteSARIF(w, all, Version())
			default:
				err = finding.WriteHTML(w, all, now)
			}
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			fmt.Fprintf(e.stderr, "%d findings of tenant %s\n", len(all), tenant)
			return nil
		},
	}
	fl := c.Flags()
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	fl.BoolVar(&asSARIF, "sarif", false, "print SARIF 2.1.0")
	fl.BoolVar(&asHTML, "html", false, "print a self-contained HTML page")
	fl.StringVar(&tenant, "tenant", "local", "the tenant whose findings to export (warden stdio's local user is tenant local)")
	fl.StringVar(&since, "since", "", "only findings recorded at or after this time (RFC 3339 or a duration back, like 24h)")
	fl.StringVar(&until, "until", "", "only findings recorded before this time")
	fl.StringVar(&minSeverity, "min-severity", "", "only findings at or above this severity (critical, high, medium, low, info)")
	fl.StringVarP(&output, "output", "o", "", "write to this file (mode 0600) instead of stdout")
	fl.StringVar(&f.config, "config", "", "configuration file (YAML)")
	fl.StringVar(&f.stateDir, "state-dir", "", "directory of the embedded database")
	fl.StringVar(&f.store, "store", "", "store DSN: postgres://... (default: the embedded database)")
	return c
}

// privateFindings applies each finding's tenant's privacy mode, as
// warden_findings_list applies it: the target gets the URL policy, and
// every string the credential pass (and strict's pseudonyms, under the
// server's pseudonym key, so that they match what the tools show).
func privateFindings(ctx context.Context, cfg Config, st limitsStore, fs []finding.Finding) ([]finding.Finding, error) {
	keys, err := sharedKeys(ctx, cfg, st, cfg.sharedStore())
	if err != nil {
		return nil, err
	}
	key, err := keys.key(keys.pseudonym, cfg.StateDir, pseudonymKeyName)
	if err != nil {
		return nil, err
	}
	priv, err := newPrivacy(cfg, key, nil)
	if err != nil {
		return nil, err
	}
	out := make([]finding.Finding, len(fs))
	for i, f := range fs {
		r := priv.ForTenant(f.Tenant)
		text := func(s string) string { t, _ := r.Text(s); return t }
		f.Title, f.Evidence, f.Credential = text(f.Title), text(f.Evidence), text(f.Credential)
		f.Target = text(r.Field(privacy.URL, "target", f.Target))
		out[i] = f
	}
	return out, nil
}
