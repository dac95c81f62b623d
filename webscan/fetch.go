package webscan

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// response is one fetched HTTP response with its body read (bounded).
type response struct {
	URL        *url.URL
	StatusCode int
	Header     http.Header
	Body       []byte
	Truncated  bool
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
	if err != nil && len(body) == 0 && method != http.MethodHead {
		return nil, err
	}
	r := &response{URL: u, StatusCode: resp.StatusCode, Header: resp.Header, Body: body}
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
// (nil when no response was received) and every response received.
func (s *Scanner) fetchChain(ctx context.Context, start *url.URL) (Chain, *response, []*response, error) {
	ch := Chain{Tested: true, Hops: []Hop{}}
	var all []*response
	u := start
	for i := 0; ; i++ {
		r, err := s.get(ctx, http.MethodGet, u, nil, s.opts.MaxBodyBytes)
		if err != nil {
			ch.Hops = append(ch.Hops, Hop{URL: u.String()})
			ch.Error, ch.ErrorDetail = "fetch_failed", publicFetchError(err)
			var last *response
			if len(all) > 0 {
				last = all[len(all)-1]
			}
			return ch, last, all, err
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
// no addresses, bodies or other detail from the cause.
func publicFetchError(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "the request timed out"
	case errors.Is(err, context.Canceled):
		return "the scan was canceled"
	}
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "certificate") || strings.Contains(msg, "x509"):
		return "the TLS certificate was rejected"
	case strings.Contains(msg, "tls") || strings.Contains(msg, "handshake"):
		return "the TLS handshake failed"
	case strings.Contains(msg, "refused"):
		return "the connection was refused"
	case strings.Contains(msg, "block") || strings.Contains(msg, "not allowed") || strings.Contains(msg, "denied"):
		return "the request was blocked by policy"
	}
	return "the request failed"
}
