package cli

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/warden-mcp/warden/internal/toolset"
	"github.com/warden-mcp/warden/safehttp"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/webscan"
)

// siteFlags are the flags of warden scan site.
type siteFlags struct {
	asJSON       bool
	htmlPath     string
	stateDir     string
	failBelow    string
	allowPrivate bool
	allowPorts   []uint
	caFile       string
	// flagSet tells which flags were given, for the Try: line of a
	// refusal. Nil: none.
	flagSet *pflag.FlagSet
}

func (e *env) scanSiteCommand() *cobra.Command {
	var f siteFlags
	c := &cobra.Command{
		Use:   "site URL",
		Short: "Grade a public website's security configuration",
		Long: "Scan a public website the way microdefend_scan_website does: TLS, HTTPS\n" +
			"redirection and HSTS, security headers, cookies, metadata and exposed paths,\n" +
			"graded A+ to F with every cap explained. Private, internal and metadata\n" +
			"addresses are refused before any connection.\n\n" +
			"To scan your own development site, say so: --allow-private lets the scan reach\n" +
			"loopback and private-network addresses and local names (localhost, *.local),\n" +
			"--allow-port 3000 a port beyond 80 and 443. Only this command has them, and\n" +
			"the report carries a warning. Cloud-metadata addresses stay refused.",
		Example: "  warden scan site https://example.com\n" +
			"  warden scan site --allow-private --allow-port 3000 http://localhost:3000\n" +
			"  warden scan site --allow-private --ca-file dev-ca.pem https://app.internal.test/",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.scanSite(cmd.Context(), args[0], f)
		},
	}
	fl := c.Flags()
	fl.BoolVar(&f.asJSON, "json", false, "print the tool's structured result as JSON")
	fl.StringVar(&f.htmlPath, "html", "", "also write a self-contained HTML report to this file")
	fl.StringVar(&f.failBelow, "fail-below", "", "exit 1 when the grade is below this one (A+, A, B, C, D)")
	fl.StringVar(&f.stateDir, "state-dir", defaultStateDir(), "directory holding the fingerprint key")
	fl.BoolVar(&f.allowPrivate, "allow-private", false, "also reach loopback and private-network addresses and local names (your own development site)")
	fl.UintSliceVar(&f.allowPorts, "allow-port", nil, "also reach this port besides 80 and 443 (repeatable)")
	fl.StringVar(&f.caFile, "ca-file", "", "also trust the CA certificates in this PEM file, for this scan only (your own private CA)")
	f.flagSet = fl
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

// fetchPolicy is the fetcher's policy for this scan: the production one
// (nil) unless the flags widen it. This command is the only place that
// widens it; TestWidenedFetchIsCommandLineOnly keeps it so.
func (f siteFlags) fetchPolicy() (*safehttp.Options, error) {
	if !f.allowPrivate && len(f.allowPorts) == 0 && f.caFile == "" {
		return nil, nil
	}
	opts := &safehttp.Options{AllowPrivate: f.allowPrivate}
	if f.caFile != "" {
		roots, err := caPool(f.caFile)
		if err != nil {
			return nil, err
		}
		opts.RootCAs = roots
	}
	for _, p := range f.allowPorts {
		if p == 0 || p > 65535 {
			return nil, fmt.Errorf("--allow-port %d: want a port from 1 to 65535", p)
		}
		opts.AllowPorts = append(opts.AllowPorts, uint16(p))
	}
	return opts, nil
}

// caPool is the system roots plus the certificates of a PEM file: the
// roots of one scan, never written anywhere else.
func caPool(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--ca-file %s: no PEM certificate in the file", path)
	}
	return pool, nil
}

func (e *env) scanSite(ctx context.Context, rawURL string, f siteFlags) error {
	if f.failBelow != "" && gradeRank(f.failBelow) < 0 {
		return &exitError{code: ExitError, err: fmt.Errorf("--fail-below: want one of A+, A, B, C, D")}
	}
	fetch, err := f.fetchPolicy()
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	// The report file is opened before the scan, so that a path that
	// cannot be written fails at once instead of after a minute of
	// scanning. An earlier report there stays intact until this one is
	// ready.
	var page *os.File
	if f.htmlPath != "" {
		_, statErr := os.Stat(f.htmlPath)
		created := errors.Is(statErr, fs.ErrNotExist)
		page, err = os.OpenFile(f.htmlPath, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return &exitError{code: ExitError, err: fmt.Errorf("--html: %w", err)}
		}
		defer func() {
			if page != nil { // the scan failed: leave nothing behind
				page.Close()
				if created {
					os.Remove(f.htmlPath)
				}
			}
		}()
	}
	deps := toolset.Deps{Logger: discardLogger(), SafeHTTP: fetch}
	if key, err := loadOrCreateKey(f.stateDir, "fingerprint.key"); err == nil {
		deps.FingerprintKey = key
	}
	rep, err := toolset.NewSiteScanner(deps).Scan(ctx, rawURL)
	if err != nil {
		return &exitError{code: ExitError, err: explainRefusal(ctx, err, rawURL, fetch, f.otherFlags())}
	}
	if page != nil {
		werr := page.Truncate(0)
		if werr == nil {
			werr = webscan.WriteHTML(page, rep)
		}
		if cerr := page.Close(); werr == nil {
			werr = cerr
		}
		page = nil
		if werr != nil {
			return &exitError{code: ExitError, err: fmt.Errorf("--html: %w", werr)}
		}
	}
	if f.asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = webscan.WriteText(e.stdout, rep)
	}
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	if f.failBelow != "" && gradeRank(rep.Result.Grade) < gradeRank(f.failBelow) {
		return &exitError{code: ExitFindings}
	}
	return nil
}

// otherFlags are the flags given other than the ones that widen the fetch
// policy, as shell words in the order of the flag set (--html report.html,
// --json), for a command line to repeat.
func (f siteFlags) otherFlags() []string {
	if f.flagSet == nil {
		return nil
	}
	var words []string
	f.flagSet.Visit(func(fl *pflag.Flag) {
		switch fl.Name {
		case "allow-private", "allow-port":
			return
		}
		if fl.Value.Type() == "bool" {
			if fl.Value.String() == "true" {
				words = append(words, "--"+fl.Name)
			} else {
				words = append(words, "--"+fl.Name+"=false")
			}
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				words = append(words, "--"+fl.Name, shellQuote(v))
			}
			return
		}
		words = append(words, "--"+fl.Name, shellQuote(fl.Value.String()))
	})
	return words
}

// explainRefusal words a refused target for the person at the keyboard:
// unlike a tool result, it may name the address a host resolved to, and
// it names every flag the URL needs, not only the first refusal's. Its
// Try: line is the whole command again: the widening flags already given
// and the ones needed, then the others given (others, as shell words).
func explainRefusal(ctx context.Context, err error, rawURL string, fetch *safehttp.Options, others []string) error {
	se, ok := safehttp.AsError(err)
	var be *safehttp.BlockedError
	if !ok || !errors.As(err, &be) {
		return publicError(err)
	}
	u, perr := url.Parse(rawURL)
	if perr != nil {
		return publicError(err)
	}
	lines := []string{se.Code + ": " + explainBlocked(safehttp.Code(se.Code), be, u.Hostname())}
	want := safehttp.Options{}
	if fetch != nil {
		want = *fetch
	}
	var flags []string
	if port := effectivePort(u); port != 80 && port != 443 && !slices.Contains(want.AllowPorts, port) {
		want.AllowPorts = append(slices.Clone(want.AllowPorts), port)
		flags = append(flags, "--allow-port "+strconv.Itoa(int(port)))
	}
	next := validateWith(ctx, want, rawURL)
	if next != nil && safehttp.Code(se.Code) == safehttp.CodeBlockedPort {
		// The port was the first refusal; say what comes after it.
		var nbe *safehttp.BlockedError
		if nse, ok := safehttp.AsError(next); ok && errors.As(next, &nbe) {
			lines = append(lines, "and then "+nse.Code+": "+explainBlocked(safehttp.Code(nse.Code), nbe, u.Hostname()))
		}
	}
	if next != nil && !want.AllowPrivate {
		want.AllowPrivate = true
		flags = append([]string{"--allow-private"}, flags...)
		next = validateWith(ctx, want, rawURL)
	}
	if next == nil && len(flags) > 0 {
		words := []string{"warden", "scan", "site"}
		if want.AllowPrivate {
			words = append(words, "--allow-private")
		}
		for _, p := range want.AllowPorts {
			words = append(words, "--allow-port", strconv.Itoa(int(p)))
		}
		words = append(words, others...)
		lines = append(lines, "Try: "+strings.Join(append(words, shellQuote(rawURL)), " "))
	}
	return errors.New(strings.Join(lines, "\n  "))
}

// explainBlocked says what a blocked_* refusal refused, why, and which
// flag would lift it.
func explainBlocked(code safehttp.Code, be *safehttp.BlockedError, host string) string {
	switch code {
	case safehttp.CodeBlockedPort:
		if be.Port == 0 {
			return "the port is not a port number; Warden scans ports 80 and 443 unless you pass --allow-port N (CLI only)"
		}
		p := strconv.Itoa(int(be.Port))
		return "port " + p + " is not scanned; Warden scans ports 80 and 443 only unless you pass --allow-port " + p + " (CLI only)"
	case safehttp.CodeBlockedHostname:
		return be.Host + " is " + be.Reason.Describe() + "; Warden never scans local host names unless you pass --allow-private (CLI only)"
	}
	what := be.Addr.String() + " is " + be.Reason.Describe()
	if lit, err := netip.ParseAddr(host); err != nil || lit.Unmap() != be.Addr {
		what = host + " resolves to " + be.Addr.String() + ", " + be.Reason.Describe()
	}
	switch {
	case be.Reason.Local():
		return what + "; Warden never scans private or loopback addresses unless you pass --allow-private (CLI only)"
	case be.Reason == safehttp.ReasonMetadata:
		return what + "; Warden never scans it, not even with --allow-private"
	}
	return what + "; Warden scans public addresses only, and no flag changes that"
}

func validateWith(ctx context.Context, opts safehttp.Options, rawURL string) error {
	_, err := safehttp.New(&opts).Validate(ctx, rawURL)
	return err
}

func effectivePort(u *url.URL) uint16 {
	if p, err := strconv.ParseUint(u.Port(), 10, 16); err == nil {
		return uint16(p)
	}
	if u.Scheme == "http" {
		return 80
	}
	return 443
}

// publicError is err as a client would read it: code and message, without
// the cause meant for logs.
func publicError(err error) error {
	var te *tool.Error
	if errors.As(err, &te) {
		return errors.New(te.Code + ": " + te.Message)
	}
	return err
}
