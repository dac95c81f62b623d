package safehttp

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// MaxRequestBodyBytes caps the body Send sends.
const MaxRequestBodyBytes = 1 << 20

// Request is one request for Send: any method, headers and a body.
type Request struct {
	// Method is an HTTP method token. CONNECT is refused (it opens a
	// tunnel, which would escape the address checks).
	Method string
	// Header is sent as given, except Host (the URL's host is sent) and
	// the framing headers the transport writes itself.
	Header http.Header
	// Body is at most MaxRequestBodyBytes.
	Body []byte
	// UserAgent replaces the client's User-Agent for this request.
	UserAgent string
	// MaxBodyBytes lowers the client's response body cap (zero keeps it).
	MaxBodyBytes int64
}

// Send makes exactly one request to a Target returned by this Client's
// Validate, dialling only its pinned addresses; it follows no redirect
// (a 3xx comes back as it is, Location and all), so that a caller can
// validate each hop itself. Unlike Get and Fetch it sends any method and
// a body: it is for tools that act on a target on a person's behalf, not
// for the read-only scanner. The body kept is capped as for Fetch, and
// Truncated says when more was there. The request is bounded by the fetch
// timeout as well as by ctx.
func (c *Client) Send(ctx context.Context, t *Target, r *Request) (*Response, error) {
	if t == nil || t.client != c {
		return nil, newError(CodeInvalidTarget, errors.New("safehttp: target not validated by this client"))
	}
	if r == nil {
		r = &Request{}
	}
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	if method == http.MethodConnect || !validMethod(method) {
		return nil, newError(CodeScanFailed, errors.New("safehttp: method not allowed: "+method))
	}
	if len(r.Body) > MaxRequestBodyBytes {
		return nil, newError(CodeScanFailed, errors.New("safehttp: request body too large"))
	}
	maxBody := c.maxBody
	if r.MaxBodyBytes > 0 && r.MaxBodyBytes < maxBody {
		maxBody = r.MaxBodyBytes
	}
	ctx, cancel := context.WithTimeout(ctx, c.fetchTO)
	defer cancel()
	start := time.Now()
	header := r.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	for _, h := range []string{"Content-Length", "Transfer-Encoding", "Connection", "Upgrade", "Te", "Trailer", "Keep-Alive", "Proxy-Connection"} {
		header.Del(h)
	}
	resp, st, tm, err := c.send(ctx, t, method, header, r.Body, r.UserAgent, false)
	if err != nil {
		return nil, err
	}
	body, truncated, rerr := readCapped(resp.Body, maxBody)
	resp.Body.Close()
	if rerr != nil {
		return nil, classifyErr(rerr)
	}
	st.mu.Lock()
	remote, connect := st.remote, st.connect
	st.mu.Unlock()
	tm.DNS, tm.Connect, tm.Total = t.dnsTime, connect, time.Since(start)
	return &Response{
		Status: resp.StatusCode, Proto: resp.Proto, Header: resp.Header,
		Body: body, Truncated: truncated, FinalURL: t.URL,
		TLS: resp.TLS, RemoteAddr: remote, Timings: tm,
	}, nil
}

// validMethod reports whether m is an RFC 9110 token of at most 32 bytes.
func validMethod(m string) bool {
	if m == "" || len(m) > 32 {
		return false
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == '(' || c == ')' || c == ',' || c == '/' || c == ':' || c == ';' ||
			c == '<' || c == '=' || c == '>' || c == '?' || c == '@' || c == '[' || c == '\\' || c == ']' || c == '{' || c == '}' {
			return false
		}
	}
	return true
}
