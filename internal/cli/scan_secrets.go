package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/secretscan"
)

func (e *env) scanCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "scan",
		Short: "Run a scanner from the command line",
	}
	c.AddCommand(e.scanSecretsCommand(), e.scanSiteCommand())
	return c
}

type scanSecretsFlags struct {
	asJSON, asSARIF bool
	failOn          string
	maxFileSize     byteSize
	includeIgnored  bool
	includeBinary   bool
	baseline        string
	writeBaseline   string
	stateDir        string
	noProgress      bool
	noIdentifiers   bool
	explainFilters  bool
	verbose         bool
	failOnSkip      bool
	git, staged     bool
	since, rng      string
	maxCommits      int
	exclude         []string
	config          string
	archives        bool
}

func (e *env) scanSecretsCommand() *cobra.Command {
	var f scanSecretsFlags
	c := &cobra.Command{
		Use:   "secrets [PATH|-]...",
		Short: "Find exposed secrets in files, directories or stdin",
		Long: "Scan files and directories (skipping what .gitignore ignores, binary files and\n" +
			"files over --max-file-size) or stdin (-) for exposed credentials. Secret values\n" +
			"are never printed: each finding has a type, severity, confidence and a keyed\n" +
			"fingerprint. Exit status 1 when a finding is at or above --fail-on.\n\n" +
			"Identifiers that are not credentials (AWS ARNs and account IDs, bucket and store\n" +
			"host names, usernames: family \"identifier\", severity low) are reported for review\n" +
			"but never trip --fail-on; --no-identifiers leaves them out.\n\n" +
			"With --git, scan a repository's history instead: every line any commit added,\n" +
			"on all refs (or --range A..B, --since DATE, --max-commits N); --staged scans\n" +
			"what the next commit would add, for a pre-commit hook.\n\n" +
			"Silence a known finding with a \"keysweep:allow\" (or \"gitleaks:allow\") comment on\n" +
			"its line, or list its fingerprint in a baseline file (--baseline; write one\n" +
			"with --write-baseline).",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			return e.scanSecrets(cmd.Context(), args, f)
		},
	}
	fl := c.Flags()
	fl.BoolVar(&f.asJSON, "json", false, "print results as JSON")
	fl.BoolVar(&f.asSARIF, "sarif", false, "print results as SARIF 2.1.0 (GitHub code scanning)")
	fl.StringVar(&f.failOn, "fail-on", "low", "exit 1 when a finding is at or above this severity: low, medium, high, critical, or none")
	f.maxFileSize = secretscan.DefaultMaxFileSize
	fl.Var(&f.maxFileSize, "max-file-size", "skip files larger than this: bytes, or with a unit (10MB, 512KiB; KB/MB/GB are powers of 1000, KiB/MiB/GiB of 1024); stdin has no cap")
	fl.BoolVar(&f.includeIgnored, "include-ignored", false, "also scan what .gitignore files ignore")
	fl.BoolVar(&f.includeBinary, "include-binary", false, "also scan files that look binary")
	fl.StringVar(&f.baseline, "baseline", "", "baseline file of accepted fingerprints to silence (as --write-baseline writes it)")
	fl.StringVar(&f.writeBaseline, "write-baseline", "", "write the fingerprints of every finding to this file")
	fl.StringVar(&f.stateDir, "state-dir", scanStateDir(), "directory holding the fingerprint key (empty: a key for this run only)")
	fl.BoolVar(&f.noProgress, "no-progress", false, "never show the progress line on stderr")
	fl.BoolVar(&f.noIdentifiers, "no-identifiers", false, "leave out identifiers that are not credentials (ARNs, account IDs, bucket names)")
	fl.BoolVar(&f.git, "git", false, "scan the history of the git repository at PATH (default .): every line a commit added, on all refs")
	fl.BoolVar(&f.staged, "staged", false, "scan the changes staged in the git index (a pre-commit hook)")
	fl.StringVar(&f.since, "since", "", "with --git: only commits more recent than this date (any form git log --since reads)")
	fl.StringVar(&f.rng, "range", "", "with --git: only the commits of this revision range, A..B")
	fl.IntVar(&f.maxCommits, "max-commits", 0, "with --git: only the N most recent commits")
	fl.StringVar(&f.config, "config", "", "repository configuration (default: .keysweep.yaml in the scanned directory, if any): exclusions, disabled rules, allowed values, custom rules")
	fl.StringArrayVar(&f.exclude, "exclude", nil, "skip paths matching this glob, in .gitignore syntax (*.min.js, vendor/, /build); repeatable")
	fl.BoolVar(&f.archives, "archives", false, "also scan inside zip, jar, tar, tar.gz and gzip files (nested up to 3 deep; at most 10,000 entries and 256 MiB expanded per archive, 64 MiB per archive file; entries are named archive.zip!path)")
	fl.BoolVar(&f.verbose, "verbose", false, "print to stderr each skipped file and directory with its reason")
	fl.BoolVar(&f.failOnSkip, "fail-on-skip", false, "exit 2 when a file could not be scanned: unreadable, or larger than --max-file-size")
	fl.BoolVar(&f.explainFilters, "explain-filters", false, "print to stderr each candidate a filter turned down: where, rule, type, length and the filter's name (never the value)")
	return c
}

// secretsReport is the --json output. Its fields only ever grow.
type secretsReport struct {
	Files   []fileFindings       `json:"files"`
	Summary secretscan.Summary   `json:"summary"`
	Stats   secretscan.WalkStats `json:"stats"`
	// Baseline says how the baseline (--baseline, or the configuration's)
	// was used; absent without one.
	Baseline *baselineUse `json:"baseline,omitempty"`
}

// baselineUse is how many of a baseline's entries suppressed a finding.
type baselineUse struct {
	Entries   int  `json:"entries"`
	Matched   int  `json:"matched"`
	Unmatched int  `json:"unmatched"`
	Portable  bool `json:"portable"`
}

func baselineSummary(b *secretscan.Baseline) *baselineUse {
	if b == nil {
		return nil
	}
	return &baselineUse{Entries: b.Len(), Matched: b.Matched(), Unmatched: b.Len() - b.Matched(), Portable: b.Portable()}
}

// warnBaseline says on stderr when baseline entries matched nothing (the
// secret was removed, or the baseline is another scan's), and when a
// version 1 baseline will not work on another machine.
func warnBaseline(w io.Writer, b *secretscan.Baseline) {
	u := baselineSummary(b)
	if u == nil {
		return
	}
	if u.Unmatched > 0 {
		fmt.Fprintf(w, "warning: %d of %d baseline entries matched no finding (fixed, or from another scan); --write-baseline writes a current one\n", u.Unmatched, u.Entries)
	}
	if !u.Portable && u.Entries > 0 {
		fmt.Fprintf(w, "warning: the baseline is version 1, keyed to one machine; --write-baseline writes a portable one\n")
	}
}

func suppressedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d suppressed by allow comments, allowed values or the baseline)", n)
}

type fileFindings struct {
	Path       string                 `json:"path"`
	Detections []secretscan.Detection `json:"detections"`
}

func (e *env) scanSecrets(ctx context.Context, paths []string, f scanSecretsFlags) error {
	if f.asJSON && f.asSARIF {
		return &exitError{code: ExitError, err: fmt.Errorf("--json and --sarif are exclusive")}
	}
	failOn := secretscan.SeverityNone
	if f.failOn != "none" {
		sev, err := secretscan.ParseSeverity(f.failOn)
		if err != nil || sev == secretscan.SeverityNone {
			return &exitError{code: ExitError, err: fmt.Errorf("--fail-on: want low, medium, high, critical or none")}
		}
		failOn = sev
	}
	opts := &secretscan.Options{SkipIdentifiers: f.noIdentifiers, ExplainFilters: f.explainFilters}
	root := ""
	if fi, err := os.Stat(paths[0]); err == nil && fi.IsDir() && paths[0] != "-" {
		root = paths[0]
	}
	cfg, cfgPath, err := loadKeysweepConfig(f.config, root)
	if err != nil {
		return &exitError{code: ExitError, err: fmt.Errorf("configuration: %w", err)}
	}
	globs := slices.Clone(f.exclude)
	if cfg != nil {
		if err := cfg.apply(cfgPath, opts, &globs); err != nil {
			return &exitError{code: ExitError, err: err}
		}
		if f.config == "" {
			// The configuration holds its rules' examples: it is not
			// scanned, as gitleaks does not scan its own.
			globs = append(globs, "/"+keysweepConfigName)
		}
		if f.baseline == "" && cfg.Baseline != "" {
			f.baseline = filepath.Join(filepath.Dir(cfgPath), cfg.Baseline)
		}
	}
	exclude, err := secretscan.NewPathFilter(globs...)
	if err != nil {
		return &exitError{code: ExitError, err: fmt.Errorf("--exclude: %w", err)}
	}
	trees := paths
	if f.git || f.staged {
		trees = nil // history comes from git, not from files under the paths
	}
	opts.FingerprintKey = e.scanKey(f.stateDir, trees)
	if f.baseline != "" {
		fh, err := os.Open(f.baseline)
		if err != nil {
			return &exitError{code: ExitError, err: fmt.Errorf("--baseline: %w", err)}
		}
		b, err := secretscan.ReadBaseline(fh)
		fh.Close()
		if err != nil {
			return &exitError{code: ExitError, err: fmt.Errorf("--baseline: %w", err)}
		}
		opts.Baseline = b
	}
	sc, err := secretscan.Build(opts)
	if err != nil {
		where := "--config"
		if cfgPath != "" {
			where = cfgPath
		}
		return &exitError{code: ExitError, err: fmt.Errorf("%s: %w", where, err)}
	}
	if f.git || f.staged {
		return e.scanSecretsGit(ctx, sc, opts.Baseline, paths, f, failOn, exclude)
	}
	if f.since != "" || f.rng != "" || f.maxCommits != 0 {
		return &exitError{code: ExitError, err: fmt.Errorf("--since, --range and --max-commits need --git")}
	}
	prog := newProgress(e.stderr, !f.noProgress && !f.asJSON && !f.asSARIF && !f.explainFilters)
	defer prog.done()

	var files []secretscan.FileResult
	stats := secretscan.WalkStats{Skipped: map[string]int{}}
	collect := func(fr secretscan.FileResult) error {
		prog.add(fr.Path)
		writeRejections(e.stderr, fr)
		if len(fr.Result.Detections) > 0 {
			files = append(files, fr)
		}
		return nil
	}
	for _, p := range paths {
		if p == "-" {
			res, n, err := sc.ScanStream(ctx, e.stdin)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			stats.Files++
			stats.Bytes += n
			_ = collect(secretscan.FileResult{Path: "-", Result: res})
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return &exitError{code: ExitError, err: fmt.Errorf("%s: %w", p, err)}
		}
		if !fi.IsDir() && exclude.Excluded(filepath.ToSlash(p), false) {
			stats.Skipped[secretscan.SkipExcluded]++
			if f.verbose {
				fmt.Fprintf(e.stderr, "skipped %s: %s\n", filepath.ToSlash(p), skipReason(secretscan.SkipExcluded, 0))
			}
			continue
		}
		var archives *secretscan.ArchiveOptions
		if f.archives {
			archives = &secretscan.ArchiveOptions{}
		}
		onSkip := func(root string) func(rel, reason string) {
			return func(rel, reason string) {
				if f.verbose {
					fmt.Fprintf(e.stderr, "skipped %s: %s\n", filepath.ToSlash(filepath.Join(root, rel)), skipReason(reason, int64(f.maxFileSize)))
				}
			}
		}
		if !fi.IsDir() && f.archives {
			st, ok, err := sc.ScanArchiveFile(ctx, p, int64(f.maxFileSize), archives, f.includeBinary, collect, onSkip(""))
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if ok {
				addStats(&stats, st)
				continue
			}
		}
		if !fi.IsDir() {
			res, err := sc.ScanFile(ctx, p, int64(f.maxFileSize))
			if errors.Is(err, secretscan.ErrTooLarge) {
				err = fmt.Errorf("%s: larger than --max-file-size (%s)", p, humanBytes(int64(f.maxFileSize)))
			}
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			stats.Files++
			stats.Bytes += fi.Size()
			_ = collect(secretscan.FileResult{Path: filepath.ToSlash(p), Result: res})
			continue
		}
		root := p
		st, err := sc.ScanDir(ctx, p, &secretscan.WalkOptions{
			MaxFileSize: int64(f.maxFileSize), IncludeIgnored: f.includeIgnored, IncludeBinary: f.includeBinary,
			Exclude: exclude, Archives: archives, OnSkip: onSkip(root),
		}, func(fr secretscan.FileResult) error {
			fr.Path = filepath.ToSlash(filepath.Join(p, fr.Path))
			return collect(fr)
		})
		if err != nil {
			return &exitError{code: ExitError, err: err}
		}
		addStats(&stats, st)
	}
	prog.done()

	var all secretscan.Result
	worst := secretscan.SeverityNone
	for _, fr := range files {
		all.Suppressed += fr.Result.Suppressed
		all.Detections = append(all.Detections, fr.Result.Detections...)
		for _, d := range fr.Result.Detections {
			if d.Severity > worst && d.Family != secretscan.FamilyIdentifier {
				worst = d.Severity
			}
		}
	}
	if f.writeBaseline != "" {
		if err := writeBaselineFile(f.writeBaseline, all.Detections); err != nil {
			return &exitError{code: ExitError, err: err}
		}
	}
	switch {
	case f.asSARIF:
		err = secretscan.WriteSARIF(e.stdout, files, &secretscan.SARIFOptions{ToolVersion: Version(), InformationURI: "https://github.com/warden-mcp/warden"})
	case f.asJSON:
		rep := secretsReport{Files: make([]fileFindings, 0, len(files)), Summary: all.Summarize(), Stats: stats, Baseline: baselineSummary(opts.Baseline)}
		for _, fr := range files {
			rep.Files = append(rep.Files, fileFindings{Path: fr.Path, Detections: fr.Result.Detections})
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	default:
		err = writeSecretsText(e.stdout, files)
		fmt.Fprintf(e.stderr, "scanned %d files (%s); %d findings%s%s\n", stats.Files, humanBytes(stats.Bytes), len(all.Detections), suppressedNote(all.Suppressed), skippedNote(stats.Skipped))
	}
	warnBaseline(e.stderr, opts.Baseline)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	if failOn != secretscan.SeverityNone && worst >= failOn {
		return &exitError{code: ExitFindings}
	}
	if n := stats.Skipped[secretscan.SkipUnreadable] + stats.Skipped[secretscan.SkipTooLarge]; f.failOnSkip && n > 0 {
		return &exitError{code: ExitError, err: fmt.Errorf("%d files could not be scanned (--fail-on-skip; --verbose names them)", n)}
	}
	return nil
}

// skipReason explains a walk's skip reason for --verbose, naming the
// flag that changes it.
func skipReason(reason string, maxSize int64) string {
	switch reason {
	case secretscan.SkipTooLarge:
		return fmt.Sprintf("too_large (over --max-file-size %s)", humanBytes(maxSize))
	case secretscan.SkipBinary:
		return "binary (--include-binary scans it)"
	case secretscan.SkipIgnored:
		return "ignored by .gitignore (--include-ignored scans it)"
	case secretscan.SkipExcluded:
		return "excluded by --exclude"
	case secretscan.SkipSymlink:
		return "symlink (never followed)"
	case secretscan.SkipSpecial:
		return "special file (device, pipe or socket)"
	case secretscan.SkipUnreadable:
		return "unreadable (permission denied or read error)"
	case secretscan.SkipArchiveLimit:
		return "archive_limit (the archive's entries, expanded size or nesting ran past the bounds of --archives)"
	case secretscan.SkipArchiveCorrupt:
		return "archive_corrupt (the archive, or the rest of it, could not be read)"
	}
	return reason
}

func addStats(to *secretscan.WalkStats, st secretscan.WalkStats) {
	to.Files += st.Files
	to.Bytes += st.Bytes
	for k, v := range st.Skipped {
		to.Skipped[k] += v
	}
}

func writeBaselineFile(path string, ds []secretscan.Detection) error {
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("--write-baseline: %w", err)
	}
	if err := secretscan.WriteBaseline(fh, ds); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

func writeSecretsText(w io.Writer, files []secretscan.FileResult) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(files) > 0 {
		fmt.Fprintln(tw, "LOCATION\tTYPE\tSEVERITY\tCONFIDENCE\tFINGERPRINT")
	}
	for _, fr := range files {
		ds := append([]secretscan.Detection(nil), fr.Result.Detections...)
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].Line < ds[j].Line })
		for _, d := range ds {
			fmt.Fprintf(tw, "%s:%d:%d%s\t%s\t%s\t%.2f\t%s\n", fr.Path, d.Line, d.Column, partsNote(d), d.Type, d.Severity, d.Confidence, d.Fingerprint)
		}
	}
	return tw.Flush()
}

// writeRejections prints, one a line, the candidates the filters turned
// down in one file (--explain-filters): position, filter, rule, type and
// length, never the value.
func writeRejections(w io.Writer, fr secretscan.FileResult) {
	for _, r := range fr.Result.Rejected {
		enc := ""
		if r.Encoding != "" {
			enc = ", in " + r.Encoding
		}
		fmt.Fprintf(w, "%s:%d:%d: rejected by %s: %s (%s, %d characters%s)\n", fr.Path, r.Line, r.Column, r.Filter, r.RuleID, r.Type, r.ValueLength, enc)
	}
}

func skippedNote(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return "; skipped " + strings.Join(parts, ", ")
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// progress is a one-line progress report on a terminal's stderr, redrawn
// at most every 100 ms, for long scans. It stays silent when stderr is not
// a terminal.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	files int
	start time.Time
	last  time.Time
	shown bool
}

func newProgress(w io.Writer, want bool) *progress {
	p := &progress{w: w, start: time.Now()}
	if fh, ok := w.(*os.File); ok && want {
		p.on = isatty.IsTerminal(fh.Fd())
	}
	return p
}

func (p *progress) add(path string) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files++
	now := time.Now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	if len(path) > 50 {
		path = "…" + path[len(path)-49:]
	}
	fmt.Fprintf(p.w, "\r\033[Kscanning: %d files, %s", p.files, path)
	p.shown = true
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
	p.on = false
}

// scanKey returns the fingerprint key kept in stateDir, or nil (the
// scanner then draws a key for this run only) when there is no state
// directory, or when creating one would put it inside a tree being
// scanned.
func (e *env) scanKey(stateDir string, paths []string) []byte {
	const note = "warden: fingerprints hold for this run only: "
	if stateDir == "" {
		fmt.Fprintln(e.stderr, note+"no state directory (set --state-dir or WARDEN_STATE_DIR)")
		return nil
	}
	if _, err := os.Stat(stateDir); err != nil {
		for _, p := range paths {
			if p != "-" && within(stateDir, p) {
				fmt.Fprintln(e.stderr, note+"the state directory would be created inside a scanned tree (set --state-dir elsewhere)")
				return nil
			}
		}
	}
	key, err := loadOrCreateKey(stateDir, "fingerprint.key")
	if err != nil {
		fmt.Fprintln(e.stderr, note+"no fingerprint key:", err)
		return nil
	}
	return key
}

// within reports whether path lies inside (or is) dir, both taken from
// the working directory.
func within(path, dir string) bool {
	ap, err1 := filepath.Abs(path)
	ad, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return true // cannot tell: stay on the safe side
	}
	rel, err := filepath.Rel(ad, ap)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// partsNote locates the other parts of a credential found as several
// values (an AWS key pair's key ID), for the text table.
func partsNote(d secretscan.Detection) string {
	var b strings.Builder
	for _, p := range d.Parts {
		if p.Offset != d.Offset {
			fmt.Fprintf(&b, " (%s at %d:%d)", strings.ReplaceAll(p.Name, "_", " "), p.Line, p.Column)
		}
	}
	return b.String()
}
