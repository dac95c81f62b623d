package safehttp

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"time"

	"github.com/warden-mcp/warden/errcode"
)

// FetchOptions tunes one Get or Fetch. A nil *FetchOptions is a plain GET
// that follows up to MaxRedirects redirects.
type FetchOptions struct {
	// Method is GET (when empty), HEAD or OPTIONS. Others are refused:
	// the fetcher reads sites, it does not change them.
	Method string
	// Header is added to each request. User-Agent and Host are ignored;
	// Authorization, Cookie and Proxy-Authorization are dropped when a
	// redirect leaves the original host.
	Header http.Header
	// NoRedirects returns the first response as is, even a 3xx.
	NoRedirects bool
	// MaxBodyBytes lowers the client's body cap for this fetch (zero keeps
	// it; it can never be raised).
	MaxBodyBytes int64
	// InsecureSkipVerify accepts any server certificate, so that a site
	// with a bad certificate can still be graded. The response's TLS field
	// then says what was presented. Address checks are unaffected.
	InsecureSkipVerify bool
}

// Response is a complete, already-read response. The body is capped, never
// an open stream, so a caller cannot forget to close or bound it.
type Response struct {
	Status    int         // final status code
	Proto     string      // e.g. "HTTP/1.1"
	Header    http.Header // final response headers
	Body      []byte      // at most the body cap, after content decoding
	Truncated bool        // the body was longer than the cap
	FinalURL  *url.URL    // canonical URL of the final request
	// Redirects lists the hops followed, in order; empty without redirects.
	Redirects []Hop
	// TLS is the final connection's state; nil over plain http.
	TLS *tls.ConnectionState
	// RemoteAddr is the address the final request was sent to.
	RemoteAddr netip.AddrPort
	Timings    Timings
}

// Hop is one redirect response.
type Hop struct {
	URL      string      // canonical URL that answered with a redirect
	Status   int         // its status code (301, 302, 303, 307 or 308)
	Location string      // the Location header as sent
	Header   http.Header // that response's headers (for HSTS on the http hop, etc.)
}

// Timings of the final request (DNS is that of its validation).
type Timings struct {
	DNS       time.Duration
	Connect   time.Duration
	TLS       time.Duration
	FirstByte time.Duration // from sending the request to the first response byte
	Total     time.Duration // the whole fetch, redirects included
}

// Get validates rawURL and fetches it; see Fetch.
func (c *Client) Get(ctx context.Context, rawURL string, opts *FetchOptions) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.fetchTO)
	defer cancel()
	t, e := c.validate(ctx, rawURL)
	if e != nil {
		return nil, e
	}
	return c.fetch(ctx, t, opts)
}

// Fetch requests a Target returned by this Client's Validate, dialling only
// its pinned addresses. Each redirect is validated from scratch (a fresh DNS
// lookup, fresh pins); at most MaxRedirects are followed. The whole fetch is
// bounded by the fetch timeout as well as by ctx. Errors are *errcode.Error;
// ErrorHop says at which redirect the failure happened.
func (c *Client) Fetch(ctx context.Context, t *Target, opts *FetchOptions) (*Response, error) {
	if t == nil || t.client != c {
		return nil, newError(CodeInvalidTarget, errors.New("safehttp: target not validated by this client"))
	}
	ctx, cancel := context.WithTimeout(ctx, c.fetchTO)
	defer cancel()
	return c.fetch(ctx, t, opts)
}

func (c *Client) fetch(ctx context.Context, t *Target, opts *FetchOptions) (*Response, error) {
	if opts == nil {
		opts = &FetchOptions{}
	}
	method := opts.Method
	switch method {
	case "":
		method = http.MethodGet
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		return nil, newError(CodeScanFailed, errors.New("safehttp: method not allowed: "+method))
	}
	maxBody := c.maxBody
	if opts.MaxBodyBytes > 0 && opts.MaxBodyBytes < maxBody {
		maxBody = opts.MaxBodyBytes
	}
	header := opts.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	origin := t.URL.Host
	start := time.Now()
	var hops []Hop
	for hop := 0; ; hop++ {
		resp, st, tm, err := c.send(ctx, t, method, header, nil, "", opts.InsecureSkipVerify)
		if err != nil {
			return nil, atHop(err, hop)
		}
		loc := resp.Header.Get("Location")
		if opts.NoRedirects || !isRedirect(resp.StatusCode) || loc == "" {
			body, truncated, rerr := readCapped(resp.Body, maxBody)
			resp.Body.Close()
			if rerr != nil {
				return nil, atHop(classifyErr(rerr), hop)
			}
			st.mu.Lock()
			remote, connect := st.remote, st.connect
			st.mu.Unlock()
			tm.DNS, tm.Connect, tm.Total = t.dnsTime, connect, time.Since(start)
			return &Response{
				Status: resp.StatusCode, Proto: resp.Proto, Header: resp.Header,
				Body: body, Truncated: truncated, FinalURL: t.URL, Redirects: hops,
				TLS: resp.TLS, RemoteAddr: remote, Timings: tm,
			}, nil
		}
		// A redirect: drain a little so the server is not cut mid-write, then
		// validate the next URL from scratch.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		hops = append(hops, Hop{URL: t.URL.String(), Status: resp.StatusCode, Location: loc, Header: resp.Header})
		if hop == MaxRedirects {
			return nil, atHop(newError(CodeTooManyRedirects, nil), hop+1)
		}
		if len(loc) > MaxURLLength {
			return nil, atHop(newError(CodeURLTooLong, nil), hop+1)
		}
		next, perr := t.URL.Parse(loc)
		if perr != nil {
			return nil, atHop(newError(CodeInvalidTarget, perr), hop+1)
		}
		nt, e := c.validate(ctx, next.String())
		if e != nil {
			return nil, atHop(e, hop+1)
		}
		if resp.StatusCode == http.StatusSeeOther && method != http.MethodHead {
			method = http.MethodGet
		}
		if nt.URL.Host != origin {
			header.Del("Authorization")
			header.Del("Cookie")
			header.Del("Proxy-Authorization")
		}
		t = nt
	}
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// send makes one request to a validated target, without following
// redirects. The caller closes the body.
func (c *Client) send(ctx context.Context, t *Target, method string, header http.Header, body []byte, ua string, insecure bool) (*http.Response, *dialState, Timings, *errcode.Error) {
	st := &dialState{target: t}
	var tm Timings
	var tlsStart, wrote time.Time
	trace := &httptrace.ClientTrace{
		TLSHandshakeStart:    func() { tlsStart = time.Now() },
		TLSHandshakeDone:     func(tls.ConnectionState, error) { tm.TLS = time.Since(tlsStart) },
		WroteRequest:         func(httptrace.WroteRequestInfo) { wrote = time.Now() },
		GotFirstResponseByte: func() { tm.FirstByte = time.Since(wrote) },
	}
	rctx := httptrace.WithClientTrace(contextWithDialState(ctx, st), trace)
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(rctx, method, t.URL.String(), rd)
	if err != nil {
		return nil, nil, tm, newError(CodeInvalidTarget, err)
	}
	for k, v := range header {
		switch http.CanonicalHeaderKey(k) {
		case "User-Agent", "Host":
			continue
		}
		req.Header[k] = append([]string(nil), v...)
	}
	if ua == "" {
		ua = c.userAgent
	}
	req.Header.Set("User-Agent", ua)
	tr := c.transport
	if insecure {
		tr = c.insecure
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return nil, nil, tm, classifyErr(err)
	}
	return resp, st, tm, nil
}

// readCapped reads at most limit bytes and reports whether more were there.
func readCapped(r io.Reader, limit int64) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > limit {
		return b[:limit], true, nil
	}
	return b, false, nil
}
