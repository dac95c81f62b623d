package safehttp

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

// HTTPClient returns a standard *http.Client that applies the same policy
// as Fetch to every request and every redirect: each URL is validated from
// scratch and its answers pinned, at most MaxRedirects redirects are
// followed, no cookie jar is used, and the whole exchange is bounded by the
// fetch timeout. Reading a body past the body cap fails with
// response_too_large. Only GET, HEAD and OPTIONS are sent (others fail with
// scan_failed); the request's Host field is ignored and User-Agent is always
// the client's. Errors are *url.Error wrapping an *errcode.Error: use
// ErrorCode or AsError, and do not show err.Error() to clients (it names
// the URL).
//
// Each call returns a new *http.Client, so a caller that follows redirects
// itself may set CheckRedirect to return http.ErrUseLastResponse; every
// request it then sends is still validated from scratch. Prefer Get when a
// complete Response is enough.
func (c *Client) HTTPClient() *http.Client {
	return &http.Client{
		Transport: &guardedTransport{c: c},
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return atHop(newError(CodeTooManyRedirects, nil), len(via))
			}
			return nil
		},
		Timeout: c.fetchTO,
	}
}

type guardedTransport struct{ c *Client }

func (g *guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		return nil, newError(CodeScanFailed, errors.New("safehttp: method not allowed: "+req.Method))
	}
	t, e := g.c.validate(req.Context(), req.URL.String())
	if e != nil {
		return nil, e
	}
	st := &dialState{target: t}
	r2 := req.Clone(contextWithDialState(req.Context(), st))
	r2.URL = t.URL
	r2.Host = ""
	r2.Header.Set("User-Agent", g.c.userAgent)
	if req.Body != nil {
		r2.Body = req.Body
	}
	resp, err := g.c.transport.RoundTrip(r2)
	if err != nil {
		return nil, classifyErr(err)
	}
	resp.Body = &cappedBody{rc: resp.Body, left: g.c.maxBody}
	return resp, nil
}

// cappedBody fails with response_too_large once more than the cap is read.
type cappedBody struct {
	mu   sync.Mutex
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.left < 0 {
		return 0, newError(CodeResponseTooLarge, errors.New("safehttp: body cap exceeded"))
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		n += int(b.left) // hand back only what fits
		b.left = -1
		return n, newError(CodeResponseTooLarge, errors.New("safehttp: body cap exceeded"))
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
