package webscan

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/warden-mcp/warden/errcode"
)

// Scanner runs website security scans. It is safe for concurrent use.
type Scanner struct {
	opts Options
}

// New returns a Scanner. Every zero field of opts takes the default its
// comment describes.
func New(opts Options) *Scanner {
	return &Scanner{opts: opts.withDefaults()}
}

// Scan checks the site at rawURL and returns its report. The error is an
// *errcode.Error for an invalid target, a missing HTTP client, a canceled
// scan or a site that answered neither http nor https; the cause of a
// fetch failure (for example the SSRF client's refusal) is wrapped and
// reachable with errors.As.
func (s *Scanner) Scan(ctx context.Context, rawURL string) (*Report, error) {
	start := time.Now()
	t, err := parseTarget(rawURL)
	if err != nil {
		return nil, err
	}
	if s.opts.HTTP == nil {
		return nil, errcode.New(CodeNotConfigured, "the scanner has no HTTP client")
	}
	parent := ctx
	// Probes stop a little before the scan's deadline, so that what was
	// gathered is still analysed and reported; unanswered probes are
	// counted, never taken as passed.
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout-min(s.opts.Timeout/10, 2*time.Second))
	defer cancel()

	rep := &Report{Status: StatusCompleted, ScanID: newScanID(), Target: t.URL.String(), StartedAt: s.opts.Now().UTC(), Findings: []Finding{}}
	res := &rep.Result
	res.AlgorithmVersion = AlgorithmVersion

	// Phase 1: both fetch sessions and the TLS probes, in parallel. The TLS
	// probes keep running through phase 2.
	var (
		wg, tlsWG             sync.WaitGroup
		httpFinal, httpsFinal *response
		httpAll, httpsAll     []*response
		httpErr, httpsErr     error
		tlsRes                TLSResult
		fetchDone, tlsDur     time.Duration
	)
	res.Redirects.HTTP.Hops, res.Redirects.HTTPS.Hops = []Hop{}, []Hop{}
	// One bound for the TLS handshakes and the exposure probes together.
	sem := make(chan struct{}, s.opts.Concurrency)
	doHTTP := t.ExplicitPort == "" || t.URL.Scheme == "http"
	doHTTPS := t.ExplicitPort == "" || t.URL.Scheme == "https"
	if doHTTP {
		wg.Go(func() {
			res.Redirects.HTTP, httpFinal, httpAll, httpErr = s.fetchChain(ctx, t.withScheme("http"))
		})
	}
	if doHTTPS {
		wg.Go(func() {
			res.Redirects.HTTPS, httpsFinal, httpsAll, httpsErr = s.fetchChain(ctx, t.withScheme("https"))
		})
		tlsWG.Go(func() {
			t0 := time.Now()
			tlsRes = s.probeTLS(ctx, sem, t.tlsAddr(), t.Host)
			tlsDur = time.Since(t0)
		})
		tlsWG.Go(func() { res.CAA = lookupCAA(ctx, s.opts.CAA, t.Host) })
	} else {
		res.CAA = CAAResult{Records: []CAARecord{}, Issuers: []string{}, WildcardIssuers: []string{}, Error: "not_https"}
		tlsRes = TLSResult{Error: "not_https", Protocols: []ProtocolResult{}, CipherSuites: []CipherResult{}, Caps: []GradeReason{}, Groups: []string{}, NotTested: append([]string{}, tlsNotTested...)}
	}
	wg.Wait()
	fetchDone = time.Since(start)
	if err := parent.Err(); err != nil {
		tlsWG.Wait()
		return nil, errcode.Wrap(CodeScanCanceled, "the scan was canceled", err)
	}

	httpsOK := httpsFinal != nil && res.Redirects.HTTPS.Error == "" && strings.HasPrefix(res.Redirects.HTTPS.FinalURL, "https:")
	primary := httpsFinal
	if !httpsOK && httpFinal != nil {
		primary = httpFinal
	}
	if primary == nil {
		tlsWG.Wait()
		cause := errors.Join(httpErr, httpsErr)
		if ctx.Err() != nil {
			return nil, errcode.Wrap(CodeScanCanceled, "the scan timed out before the site answered", cause)
		}
		return nil, errcode.Wrap(CodeSiteUnreachable, "the site answered neither http nor https", cause)
	}

	// Phase 2: CORS probe, exposure and metadata on the final origin.
	origin := probeOrigin(t, primary.URL)
	var (
		cors         CORSSummary
		exposure     = ExposureResult{Baseline: []BaselineResult{}, Exposed: []ExposedPath{}}
		sec          SecurityTxt
		robots       RobotsResult
		expDur, mDur time.Duration
	)
	wg.Go(func() { cors = s.probeCORS(ctx, primary.URL) })
	if !s.opts.SkipExposure {
		wg.Go(func() {
			t0 := time.Now()
			exposure = s.probeExposure(ctx, sem, origin)
			expDur = time.Since(t0)
		})
	}
	wg.Go(func() {
		t0 := time.Now()
		sec, robots = s.collectMetadata(ctx, origin)
		mDur = time.Since(t0)
	})
	wg.Wait()
	tlsWG.Wait()
	if err := parent.Err(); err != nil {
		return nil, errcode.Wrap(CodeScanCanceled, "the scan was canceled", err)
	}
	timeLimited := ctx.Err() != nil

	// Analysis. The certificate is judged by the TLS probe when it ran: a
	// fetch that failed for another reason (a stall, a reset, a malformed
	// header) is reported as what it was, never as a certificate problem.
	certValid := httpsOK
	if c := tlsRes.Certificate; c != nil {
		certValid = c.Trusted && c.HostnameMatch && !c.Expired && !c.NotYetValid
	} else if res.Redirects.HTTPS.FailureKind == "tls" {
		certValid = false
	}
	a := analysis{
		primary: primary, httpsOK: httpsOK, certValid: certValid,
		all: append(append([]*response{}, httpAll...), httpsAll...), cors: cors,
		preload: s.opts.Preload,
	}
	res.Headers, rep.Findings = a.headers(res.Redirects)
	res.Metadata = a.metadata(sec, robots)
	res.TLS = tlsRes
	res.Exposure = exposure
	rep.Findings = append(rep.Findings, a.metadataFindings(res.Metadata)...)
	rep.Findings = append(rep.Findings, tlsFindings(tlsRes, doHTTPS)...)
	rep.Findings = append(rep.Findings, caaFindings(res.CAA)...)
	rep.Findings = append(rep.Findings, exposureFindings(exposure)...)
	if why := incompleteReasons(timeLimited, exposure.Unanswered, tlsRes.Unanswered, res.Redirects, primary, certValid); len(why) > 0 {
		rep.Findings = append(rep.Findings, incompleteFinding(why))
	}
	rep.Findings = append(rep.Findings, a.truncatedFindings()...)
	if tlsRes.Tested {
		// Caps come only from probes that ran: an untested TLS endpoint
		// neither passes nor caps (the https cap covers an unreachable one).
		res.TLS.Caps = tlsCaps(tlsRes, res.Headers.HSTS)
		res.TLS.Grade = tlsGrade(res.TLS.Caps)
	}
	res.Score = res.Headers.Score
	res.Reference = referenceResult(res.Headers.Tests)
	res.Grade, res.Reasons = overallGrade(res.Headers, res.TLS, exposure, httpsOK, doHTTPS)
	sortFindings(rep.Findings)
	res.Timings = Timings{
		TotalMS: time.Since(start).Milliseconds(), FetchMS: fetchDone.Milliseconds(),
		TLSMS: tlsDur.Milliseconds(), ExposureMS: expDur.Milliseconds(), MetadataMS: mDur.Milliseconds(),
	}
	return rep, nil
}

func newScanID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// probeOrigin picks where exposure and metadata probes go: the final
// origin when it is the same host or its www. variant, else the target.
func probeOrigin(t target, final *url.URL) *url.URL {
	o := &url.URL{Scheme: final.Scheme, Host: final.Host, Path: "/"}
	fh := strings.ToLower(final.Hostname())
	if fh == t.Host || fh == "www."+t.Host || "www."+fh == t.Host {
		return o
	}
	return &url.URL{Scheme: t.URL.Scheme, Host: t.URL.Host, Path: "/"}
}

// probeCORS sends the page request again with a foreign Origin, and a
// preflight, and records whether the site reflects it.
func (s *Scanner) probeCORS(ctx context.Context, u *url.URL) CORSSummary {
	c := CORSSummary{ProbeOrigin: "https://" + randomToken() + ".example"}
	hdr := http.Header{"Origin": {c.ProbeOrigin}}
	record := func(r *response) {
		if r == nil {
			return
		}
		acao := strings.TrimSpace(r.Header.Get("Access-Control-Allow-Origin"))
		if acao == "" {
			return
		}
		if c.AllowOrigin == "" || acao == c.ProbeOrigin {
			c.AllowOrigin = truncate(acao, 200)
		}
		if acao == c.ProbeOrigin {
			c.Reflected = true
		}
		if strings.EqualFold(strings.TrimSpace(r.Header.Get("Access-Control-Allow-Credentials")), "true") {
			c.AllowCredentials = true
		}
	}
	r, err := s.get(ctx, http.MethodGet, u, hdr, 64<<10)
	if err == nil {
		record(r)
	}
	pre := http.Header{"Origin": {c.ProbeOrigin}, "Access-Control-Request-Method": {"GET"}}
	r, err = s.get(ctx, http.MethodOptions, u, pre, 4<<10)
	if err == nil {
		record(r)
	}
	return c
}

// incompleteReasons lists what the scan could not observe: probes and
// fetches that got no (complete) answer. None of it is counted as passed.
func incompleteReasons(timeLimited bool, exposure, tls int, rd RedirectResult, primary *response, certValid bool) []string {
	var why []string
	if timeLimited {
		why = append(why, "the scan reached its time limit")
	}
	for _, c := range []struct {
		name string
		ch   Chain
	}{{"http", rd.HTTP}, {"https", rd.HTTPS}} {
		if c.ch.Error != "fetch_failed" {
			continue
		}
		hop := len(c.ch.Hops) - 1
		detail := c.ch.ErrorDetail
		if c.ch.FailureKind == "tls" && certValid {
			detail = "the TLS connection failed although the TLS probe trusted the certificate"
		}
		if hop == 0 && (c.ch.FailureKind == "refused" || c.ch.FailureKind == "blocked") {
			continue // the scheme is simply not served (or not allowed); the tests say so
		}
		why = append(why, fmt.Sprintf("the %s fetch failed at hop %d: %s", c.name, hop, detail))
	}
	if primary != nil && primary.Partial {
		why = append(why, "the page body stopped part-way (timeout or reset); only what arrived was analysed")
	}
	if exposure > 0 || tls > 0 {
		why = append(why, fmt.Sprintf("%d exposure probes and %d TLS probes got no answer (timeout or connection failure)", exposure, tls))
	}
	return why
}

// incompleteFinding says what the scan could not observe. It is not
// counted as passed: an unanswered exposure path is not reported as safe,
// an unanswered TLS probe is listed as untested, and a failed fetch is
// named with what failed.
func incompleteFinding(why []string) Finding {
	return Finding{ID: "scan_incomplete", Category: CategoryMetadata, Severity: SeverityInfo,
		Title: "Some of the scan got no complete answer", Detail: upperFirst(strings.Join(why, "; ")) + "; those checks are incomplete.",
		Recommendation: "Scan again; if the site is slow on purpose (a tarpit or a WAF), these checks cannot be trusted."}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
