package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/limits"
)

func (e *env) auditCommand() *cobra.Command {
	var f serveFlags
	var flt limits.AuditFilter
	var since, until string
	var asJSON bool
	c := &cobra.Command{
		Use:   "audit",
		Short: "Query the audit trail of tool calls",
		Long: "Print recorded tool calls, newest first: time, correlation id, credential,\n" +
			"tenant, tool, outcome, duration and quota charged. Arguments and results are\n" +
			"never recorded. --since and --until take RFC 3339 times or durations back\n" +
			"from now (24h).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.storeConfig()
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if flt.Since, flt.Until, err = parseWindow(since, until, time.Now()); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			st, closeStore, err := openStore(cmd.Context(), cfg)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			defer closeStore()
			lim, err := limits.New(st, nil)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			recs, err := lim.QueryAudit(cmd.Context(), flt)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if asJSON {
				type rec struct {
					Time          time.Time `json:"time"`
					CorrelationID string    `json:"correlation_id"`
					Credential    string    `json:"credential"`
					Tenant        string    `json:"tenant"`
					Tool          string    `json:"tool"`
					Outcome       string    `json:"outcome"`
					DurationMS    float64   `json:"duration_ms"`
					QuotaCharged  int64     `json:"quota_charged"`
				}
				out := make([]rec, 0, len(recs))
				for _, r := range recs {
					out = append(out, rec{r.Time, r.CorrelationID, r.Credential, r.Tenant, r.Tool, r.Outcome,
						float64(r.Duration.Microseconds()) / 1000, r.QuotaCharged})
				}
				return json.NewEncoder(e.stdout).Encode(map[string]any{"records": out})
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tCREDENTIAL\tTENANT\tTOOL\tOUTCOME\tDURATION\tCHARGED\tCORRELATION")
			for _, r := range recs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Time.Local().Format(time.DateTime), r.Credential, r.Tenant,
					r.Tool, r.Outcome, r.Duration.Round(time.Millisecond), r.QuotaCharged, r.CorrelationID)
			}
			return tw.Flush()
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.config, "config", "", "configuration file (YAML)")
	fl.StringVar(&f.stateDir, "state-dir", "", "directory of the embedded database")
	fl.StringVar(&f.store, "store", "", "store DSN: postgres://... (default: the embedded database)")
	fl.StringVar(&since, "since", "", "only calls at or after this time (RFC 3339 or a duration back, like 24h)")
	fl.StringVar(&until, "until", "", "only calls before this time")
	fl.StringVar(&flt.Credential, "credential", "", "only this credential")
	fl.StringVar(&flt.Tenant, "tenant", "", "only this tenant")
	fl.StringVar(&flt.Tool, "tool", "", "only this tool")
	fl.StringVar(&flt.Outcome, "outcome", "", "only this outcome (ok, or an error code)")
	fl.IntVar(&flt.Limit, "limit", 100, "at most this many records")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

// parseWhen reads an RFC 3339 time or a duration back from now.
// storeConfig is the configuration of a command that reads the store
// (audit, findings, credentials): the file, then --state-dir and --store.
func (f *serveFlags) storeConfig() (Config, error) {
	cfg, err := loadConfig(f.config, os.Getenv)
	if err != nil {
		return cfg, err
	}
	if f.stateDir != "" {
		cfg.StateDir = f.stateDir
	}
	if f.store != "" {
		cfg.Store.DSN = f.store
	}
	return cfg.withDefaults()
}

// parseWindow reads --since and --until (see parseWhen).
func parseWindow(since, until string, now time.Time) (from, to time.Time, err error) {
	if from, err = parseWhen(since, now); err != nil {
		return from, to, fmt.Errorf("--since: %w", err)
	}
	if to, err = parseWhen(until, now); err != nil {
		return from, to, fmt.Errorf("--until: %w", err)
	}
	return from, to, nil
}

func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time nor a duration", s)
	}
	return t, nil
}
