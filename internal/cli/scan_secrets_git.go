package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/warden-mcp/warden/secretscan"
	"github.com/warden-mcp/warden/secretscan/gitscan"
)

// gitReport is the --json output of a history scan (--git, --staged). Its
// fields only ever grow.
type gitReport struct {
	Findings []gitscan.Finding  `json:"findings"`
	Summary  secretscan.Summary `json:"summary"`
	Stats    gitStats           `json:"stats"`
	Baseline *baselineUse       `json:"baseline,omitempty"`
}

// gitStats counts what a history scan read.
type gitStats struct {
	Commits    int   `json:"commits"`
	Files      int   `json:"files"` // file changes with added lines
	Bytes      int64 `json:"bytes"` // added lines scanned
	Suppressed int   `json:"suppressed"`
	Truncated  bool  `json:"truncated,omitempty"`
}

func (e *env) scanSecretsGit(ctx context.Context, sc *secretscan.Scanner, baseline *secretscan.Baseline, paths []string, f scanSecretsFlags, failOn secretscan.Severity, exclude *secretscan.PathFilter) error {
	if len(paths) > 1 {
		return &exitError{code: ExitError, err: fmt.Errorf("--git and --staged scan one repository; got %d paths", len(paths))}
	}
	if paths[0] == "-" {
		return &exitError{code: ExitError, err: fmt.Errorf("--git and --staged scan a repository, not stdin")}
	}
	res, err := gitscan.Scan(ctx, sc, &gitscan.Options{Repo: paths[0], Since: f.since, Range: f.rng,
		Staged: f.staged, MaxCommits: f.maxCommits, Exclude: exclude})
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	all := secretscan.Result{Suppressed: res.Suppressed}
	worst := secretscan.SeverityNone
	for _, fd := range res.Findings {
		all.Detections = append(all.Detections, fd.Detection)
		if fd.Severity > worst && fd.Family != secretscan.FamilyIdentifier {
			worst = fd.Severity
		}
	}
	if f.writeBaseline != "" {
		if err := writeBaselineFile(f.writeBaseline, all.Detections); err != nil {
			return &exitError{code: ExitError, err: err}
		}
	}
	switch {
	case f.asSARIF:
		files := make([]secretscan.FileResult, 0, len(res.Findings))
		for _, fd := range res.Findings {
			files = append(files, secretscan.FileResult{Path: fd.Path,
				Result: secretscan.Result{Detections: []secretscan.Detection{fd.Detection}},
				Commit: &secretscan.Commit{Hash: fd.Commit, Author: fd.Author, Date: fd.Date, Count: fd.Count}})
		}
		err = secretscan.WriteSARIF(e.stdout, files, &secretscan.SARIFOptions{ToolVersion: Version(), InformationURI: "https://github.com/warden-mcp/warden"})
	case f.asJSON:
		rep := gitReport{Findings: res.Findings, Summary: all.Summarize(),
			Stats:    gitStats{Commits: res.Commits, Files: res.Files, Bytes: res.Bytes, Suppressed: res.Suppressed, Truncated: res.Truncated},
			Baseline: baselineSummary(baseline)}
		if rep.Findings == nil {
			rep.Findings = []gitscan.Finding{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	default:
		err = writeGitText(e.stdout, res.Findings)
		what := fmt.Sprintf("%d commits", res.Commits)
		if f.staged {
			what = "the staged changes"
		}
		fmt.Fprintf(e.stderr, "scanned %s (%s added in %d file changes); %d findings%s\n", what, humanBytes(res.Bytes), res.Files, len(res.Findings), suppressedNote(res.Suppressed))
	}
	warnBaseline(e.stderr, baseline)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	if failOn != secretscan.SeverityNone && worst >= failOn {
		return &exitError{code: ExitFindings}
	}
	return nil
}

func writeGitText(w io.Writer, fs []gitscan.Finding) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(fs) > 0 {
		fmt.Fprintln(tw, "LOCATION\tCOMMIT\tDATE\tAUTHOR\tTYPE\tSEVERITY\tCONFIDENCE\tCOUNT\tFINGERPRINT")
	}
	for _, f := range fs {
		commit, date := "(staged)", ""
		if f.Commit != "" {
			commit = f.Commit[:min(12, len(f.Commit))]
			date = f.Date[:min(10, len(f.Date))]
		}
		fmt.Fprintf(tw, "%s:%d:%d%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%d\t%s\n", printable(f.Path), f.Line, f.Column, partsNote(f.Detection), commit, date, printable(f.Author),
			f.Type, f.Severity, f.Confidence, f.Count, f.Fingerprint)
	}
	return tw.Flush()
}

// printable replaces control characters (a tab or an escape sequence in
// a committed file name or an author's name) so that they cannot upset
// the table or the terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}
