package webscan

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/warden-mcp/warden/errcode"
)

// response is one fetched HTTP response with its body read (bounded).
type response struct {
	URL        *url.URL
	StatusCode int
	Header     http.Header
	Body       []byte
	// Truncated is set when the body was longer than the read limit (or
	// the client's body cap): Body holds only its beginning.
	Truncated bool
	// Partial is set when reading the body failed part-way (a timeout or
	// a reset): Body holds what arrived, and the rest is unknown.
	Partial bool
}

// get sends one request through the injected client, without following
// redirects, and reads at most limit bytes of the body.
func (s *Scanner) get(ctx context.Context, method string, u *url.URL, hdr http.Header, limit int64) (*response, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", s.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := s.opts.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	r := &response{URL: u, StatusCode: resp.StatusCode, Header: resp.Header, Body: body}
	if err != nil {
		switch {
		case errcode.CodeOf(err) == "response_too_large":
			// The client's own body cap: what was read is the beginning.
			r.Truncated = true
		case len(body) == 0 && method != http.MethodHead:
			return nil, err
		default:
			r.Partial = true
		}
	}
	if int64(len(body)) > limit {
		r.Body, r.Truncated = body[:limit], true
	}
	return r, nil
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// fetchChain fetches start and follows at most MaxRedirects redirects,
// each one sent back through the injected client so that its policy
// re-validates the new address. It returns the chain, the final response
// (nil when the chain did not end in a response: no answer, or a hop that
// failed part-way) and every response received.
func (s *Scanner) fetchChain(ctx context.Context, start *url.URL) (Chain, *response, []*response, error) {
	ch := Chain{Tested: true, Hops: []Hop{}}
	var all []*response
	u := start
	for i := 0; ; i++ {
		r, err := s.get(ctx, http.MethodGet, u, nil, s.opts.MaxBodyBytes)
		if err != nil {
			ch.Hops = append(ch.Hops, Hop{URL: u.String()})
			ch.Error, ch.ErrorDetail = "fetch_failed", publicFetchError(err)
			ch.FailureKind = fetchFailureKind(err)
			// A hop that failed part-way leaves no final response: the
			// headers of an intermediate redirect are not scored as if they
			// were the site's. The exception is a certificate the client
			// refused: the site is then graded F by the TLS caps, and its
			// last response (an http redirect to the bad https) is all there
			// is to read headers from.
			if ch.FailureKind == "tls" && len(all) > 0 {
				return ch, all[len(all)-1], all, err
			}
			return ch, nil, all, err
		}
		all = append(all, r)
		hop := Hop{URL: u.String(), StatusCode: r.StatusCode}
		ch.FinalURL = u.String()
		loc := r.Header.Get("Location")
		if !isRedirect(r.StatusCode) || loc == "" {
			ch.Hops = append(ch.Hops, hop)
			return ch, r, all, nil
		}
		next, err := u.Parse(loc)
		hop.Location = truncate(loc, 512)
		ch.Hops = append(ch.Hops, hop)
		if err != nil || (next.Scheme != "http" && next.Scheme != "https") || next.User != nil {
			ch.Error, ch.ErrorDetail = "invalid_redirect", "the site redirects to an invalid or non-web URL"
			return ch, r, all, nil
		}
		if i >= s.opts.MaxRedirects {
			ch.Error, ch.ErrorDetail = "redirect_limit", "the site redirects more than the limit allows"
			return ch, r, all, nil
		}
		next.Fragment, next.RawFragment = "", ""
		u = next
	}
}

// publicFetchError maps a client error to a short sentence that carries
// no addresses, bodies or other detail from the cause. It names what
// failed; whether a certificate was to blame is decided by the caller,
// which knows whether the TLS probe trusted it.
func publicFetchError(err error) string {
	switch fetchFailureKind(err) {
	case "timeout":
		return "the request timed out"
	case "canceled":
		return "the scan was canceled"
	case "tls":
		return "the TLS connection failed"
	case "refused":
		return "the connection was refused"
	case "blocked":
		return "the request was blocked by policy"
	case "too_large":
		return "the response was larger than the scan reads"
	}
	return "the request failed (connection reset or malformed response)"
}

// fetchFailureKind classifies a fetch error: timeout, canceled, tls,
// refused, blocked, too_large or failed.
func fetchFailureKind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	switch errcode.CodeOf(err) {
	case "timeout":
		return "timeout"
	case "tls_failed":
		return "tls"
	case "blocked_ip", "blocked_port", "blocked_hostname":
		return "blocked"
	case "response_too_large":
		return "too_large"
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "certificate") || strings.Contains(msg, "x509") || strings.Contains(msg, "tls") || strings.Contains(msg, "handshake"):
		return "tls"
	case strings.Contains(msg, "refused"):
		return "refused"
	case strings.Contains(msg, "block") || strings.Contains(msg, "not allowed") || strings.Contains(msg, "denied"):
		return "blocked"
	}
	return "failed"
}
