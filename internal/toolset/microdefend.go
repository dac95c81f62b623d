package toolset

import (
	"context"
	"crypto/x509"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/warden-mcp/warden/safehttp"
	"github.com/warden-mcp/warden/secretscan"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/webscan"
)

// The microdefend_ family: website security scans. The contract of
// microdefend_scan_website is fixed (clients written for the hosted Binary³
// service use it unchanged): input {url}, the structured result of
// webscan.Report, and the error codes of docs/microdefend.md.

type scanSiteArgs struct {
	URL string `json:"url" minLength:"1" code:"invalid_target" desc:"The public http or https URL to scan, such as https://example.com. Private, internal and metadata addresses are refused."`
}

// SiteScanner runs website scans the way microdefend_scan_website does:
// through the SSRF-proof fetcher, with secrets in exposed files reported
// by the KeySweep engine as type and fingerprint. The CLI's warden scan
// site uses it too.
type SiteScanner struct {
	client  *safehttp.Client
	roots   *x509.CertPool // the fetcher's roots, for the TLS probes too
	secrets *secretscan.Scanner
	logger  *slog.Logger
	// warnings go on every report: the ways Deps.SafeHTTP widens the
	// production policy.
	warnings []webscan.ReportWarning
}

// NewSiteScanner builds a scanner from the shared dependencies.
func NewSiteScanner(deps Deps) *SiteScanner {
	s := &SiteScanner{
		client:  safehttp.New(deps.SafeHTTP),
		secrets: secretscan.New(&secretscan.Options{FingerprintKey: deps.FingerprintKey}),
		logger:  deps.Logger,
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if deps.SafeHTTP != nil {
		s.roots = deps.SafeHTTP.RootCAs
	}
	s.warnings = policyWarnings(deps.SafeHTTP)
	return s
}

// policyWarnings says how opts widens the production policy, for the
// report: a scan that could reach private addresses or extra ports says
// so wherever its report is read.
func policyWarnings(opts *safehttp.Options) []webscan.ReportWarning {
	if opts == nil {
		return nil
	}
	var ws []webscan.ReportWarning
	if opts.AllowPrivate {
		ws = append(ws, webscan.ReportWarning{Code: "private_addresses_allowed",
			Message: "This scan could reach loopback, private-network and link-local addresses and local host names (--allow-private). A Warden server never scans with this policy."})
	}
	if opts.RootCAs != nil {
		ws = append(ws, webscan.ReportWarning{Code: "extra_roots_trusted",
			Message: "This scan also trusted the CA certificates of a file (--ca-file), for this scan only. A Warden server never scans with this policy."})
	}
	if len(opts.AllowPorts) > 0 {
		ports := slices.Sorted(slices.Values(opts.AllowPorts))
		var list []string
		for _, p := range slices.Compact(ports) {
			list = append(list, strconv.Itoa(int(p)))
		}
		ws = append(ws, webscan.ReportWarning{Code: "extra_ports_allowed",
			Message: "This scan could reach port " + strings.Join(list, ", ") + " besides 80 and 443 (--allow-port). A Warden server never scans with this policy."})
	}
	return ws
}

// Validate checks a target before any connection is made.
func (s *SiteScanner) Validate(ctx context.Context, rawURL string) *tool.Error {
	if _, err := s.client.Validate(ctx, rawURL); err != nil {
		return siteError(err, rawURL)
	}
	return nil
}

// Scan validates and scans a site.
func (s *SiteScanner) Scan(ctx context.Context, rawURL string) (*webscan.Report, error) {
	if err := s.Validate(ctx, rawURL); err != nil {
		return nil, err
	}
	return s.scan(ctx, rawURL)
}

// scan scans a site already validated. Every connection is still checked
// by the fetcher at dial time.
func (s *SiteScanner) scan(ctx context.Context, rawURL string) (*webscan.Report, error) {
	hc := s.client.HTTPClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	sc := webscan.New(webscan.Options{
		HTTP:       hc,
		Dial:       s.client.DialContext,
		RootCAs:    s.roots,
		SecretScan: s.secretsIn,
		CAA:        s.lookupCAA,
	})
	rep, err := sc.Scan(ctx, rawURL)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.logger.LogAttrs(ctx, slog.LevelWarn, "website scan failed", slog.String("cause", err.Error()))
		return nil, siteError(err, rawURL)
	}
	rep.PolicyWarnings = append(rep.PolicyWarnings, s.warnings...)
	return rep, nil
}

// lookupCAA asks the fetcher's resolver for CAA records, so that a scan's
// DNS goes where its fetches' does.
func (s *SiteScanner) lookupCAA(ctx context.Context, name string) ([]webscan.CAARecord, error) {
	recs, err := s.client.LookupCAA(ctx, name)
	if err != nil {
		return nil, err
	}
	out := make([]webscan.CAARecord, len(recs))
	for i, r := range recs {
		out[i] = webscan.CAARecord{Critical: r.Critical, Tag: r.Tag, Value: r.Value}
	}
	return out, nil
}

func (s *SiteScanner) secretsIn(ctx context.Context, text string) []webscan.SecretFinding {
	res, err := s.secrets.Scan(ctx, text)
	if err != nil {
		return nil
	}
	out := make([]webscan.SecretFinding, 0, len(res.Detections))
	for _, d := range res.Detections {
		out = append(out, webscan.SecretFinding{Type: d.Type, Fingerprint: d.Fingerprint, Line: d.Line})
	}
	return out
}

func microdefendTools(deps Deps) ([]*tool.Tool, error) {
	sc := NewSiteScanner(deps)
	t, err := tool.New(tool.Def{
		Name:  "microdefend_scan_website",
		Title: "Grade a website's security configuration",
		Description: "Scan a public website and grade its security configuration (A+ to F): TLS versions, ciphers " +
			"and certificate; HTTPS redirection and HSTS; security headers scored like the MDN HTTP Observatory " +
			"(CSP, framing, MIME sniffing, referrer, permissions, cross-origin policies, CORS); cookies; metadata " +
			"(version banners, security.txt, robots.txt); and about 30 exposed sensitive paths such as /.git/config " +
			"and /.env, each confirmed by content. Sends requests to the site; never reaches private, internal or " +
			"cloud-metadata addresses. Returns findings with recommendations; secrets seen in exposed files are " +
			"reported by type and fingerprint only.",
		Annotations: tool.Annotations{ReadOnly: true, OpenWorld: true},
		Catalog: tool.Catalog{
			Category:      "web",
			Unsafe:        true, // it sends traffic
			TargetParam:   "url",
			Trust:         tool.TrustConfirm,
			ConsumesQuota: true,
		},
		Tasks: tool.TasksOptional,
	}, func(ctx context.Context, call *tool.Call, in scanSiteArgs) (*webscan.Report, error) {
		// Validation comes first and costs no connection: a refused
		// target is answered at once (and, on a hosted server, not
		// charged).
		if err := sc.Validate(ctx, in.URL); err != nil {
			return nil, err
		}
		ctx, err := call.Begin(ctx) // admitted and charged from here on
		if err != nil {
			return nil, err
		}
		call.Detach() // a tasks-capable client polls from here on
		call.Progress(0, 1, "scanning")
		rep, err := sc.scan(ctx, in.URL)
		if err != nil {
			return nil, err
		}
		call.Progress(1, 1, "done")
		return rep, nil
	})
	if err != nil {
		return nil, err
	}
	return []*tool.Tool{t}, nil
}
