package toolset

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/warden-mcp/warden/errcode"
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
	secrets *secretscan.Scanner
	logger  *slog.Logger
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
	return s
}

// Validate checks a target before any connection is made.
func (s *SiteScanner) Validate(ctx context.Context, rawURL string) *tool.Error {
	if _, err := s.client.Validate(ctx, rawURL); err != nil {
		return siteError(err)
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
		SecretScan: s.secretsIn,
	})
	rep, err := sc.Scan(ctx, rawURL)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.logger.LogAttrs(ctx, slog.LevelWarn, "website scan failed", slog.String("cause", err.Error()))
		return nil, siteError(err)
	}
	return rep, nil
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
			Trust:         tool.TrustConfirm,
			ConsumesQuota: true,
			// The lean edition ships no tool that sends traffic.
			Editions: []tool.Edition{tool.EditionFull},
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

// siteError maps a fetcher or scanner failure to the tool's codes. The
// message is the fetcher's short public one; causes stay in the log.
func siteError(err error) *tool.Error {
	if se, ok := safehttp.AsError(err); ok {
		return &tool.Error{Code: se.Code, Message: se.Message}
	}
	if code := safehttp.ErrorCode(err); code != "" && code != safehttp.Code("scan_failed") {
		return &tool.Error{Code: string(code), Message: "the site could not be scanned: " + string(code)}
	}
	if we, ok := errcode.As(err); ok {
		switch we.Code {
		case webscan.CodeURLTooLong, webscan.CodeInvalidTarget, webscan.CodeInvalidScheme, webscan.CodeCredentialsInURL:
			return &tool.Error{Code: we.Code, Message: we.Message}
		}
	}
	return &tool.Error{Code: "scan_failed", Message: "the site could not be scanned"}
}
