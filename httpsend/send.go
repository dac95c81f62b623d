// Package httpsend sends one HTTP request on a person's behalf, within a
// scope: every URL, the first and each redirect hop, is checked against
// the caller's scope before any DNS look-up, then validated and pinned by
// package safehttp (so every SSRF rule applies), then sent. Redirects are
// followed as the request asks: not at all, within the origin only, or
// across origins up to a bound. A hop that leaves the scope or that
// safehttp refuses stops the chain; the last response is returned with
// the reason, so a tester sees the redirect without Warden following it.
//
// It knows nothing of MCP: package toolset binds it to http_request.
package httpsend

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/safehttp"
)

// Redirect policies.
const (
	RedirectNone       = "none"
	RedirectSameOrigin = "same-origin"
	RedirectFollow     = "follow"
)

// MaxRedirects bounds the hops a request may follow.
const MaxRedirects = 10

// Error codes of this package (safehttp's pass through as they are).
const (
	CodeTargetOutOfScope = "target_out_of_scope"
	CodeInvalidRequest   = "invalid_request"
)

// Options configure a Sender.
type Options struct {
	// Client sends every request. Required.
	Client *safehttp.Client
	// InScope reports whether a host (lower-case, no port) may be
	// reached. Nil: every host the client's SSRF rules allow.
	InScope func(host string) bool
	// UserAgent is sent unless the request names its own.
	UserAgent string
}

// Sender sends requests. It is safe for concurrent use.
type Sender struct{ o Options }

// New returns a Sender.
func New(o Options) *Sender { return &Sender{o: o} }

// Request is one request.
type Request struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
	// Redirects is RedirectNone (the zero value), RedirectSameOrigin or
	// RedirectFollow.
	Redirects string
	// MaxRedirects bounds the hops followed (at most MaxRedirects).
	MaxRedirects int
	// MaxBodyBytes caps the response body kept.
	MaxBodyBytes int64
}

// Hop is one redirect response in the chain.
type Hop struct {
	URL      string
	Status   int
	Location string
}

// Stop says why a redirect was not followed.
type Stop struct {
	Code    string
	Message string
}

// Exchange is the final response and how it was reached.
type Exchange struct {
	*safehttp.Response
	// Chain lists the redirects followed, in order.
	Chain []Hop
	// Stopped is set when the last response is a redirect the policy, the
	// scope or the SSRF rules did not let the request follow.
	Stopped *Stop
	// Total is the time of the whole exchange, redirects included.
	Total time.Duration
}

// Check runs the checks Do runs on the first URL before any connection:
// the URL, the scope, the port, and the addresses its host resolves to.
// A tool asks a person's approval after it, so nobody approves a request
// that would be refused. Do checks again, and the dial checks the address
// it connects to.
func (s *Sender) Check(ctx context.Context, req Request) error {
	cur, err := url.Parse(req.URL)
	if err != nil || cur.Host == "" {
		return errcode.New(string(safehttp.CodeInvalidTarget), "the URL cannot be read")
	}
	if err := s.scope(cur); err != nil {
		return err
	}
	_, err = s.o.Client.Validate(ctx, cur.String())
	return err
}

// Do sends req. An error is an *errcode.Error: target_out_of_scope for a
// first URL outside the scope, or a safehttp code.
func (s *Sender) Do(ctx context.Context, req Request) (*Exchange, error) {
	start := time.Now()
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	max := min(req.MaxRedirects, MaxRedirects)
	header := req.Header.Clone()
	ua := header.Get("User-Agent")
	header.Del("User-Agent")
	if ua == "" {
		ua = s.o.UserAgent
	}
	body := req.Body
	cur, err := url.Parse(req.URL)
	if err != nil || cur.Host == "" {
		return nil, errcode.New(string(safehttp.CodeInvalidTarget), "the URL cannot be read")
	}
	origin := originOf(cur)
	if err := s.scope(cur); err != nil {
		return nil, err
	}
	ex := &Exchange{}
	for hop := 0; ; hop++ {
		t, err := s.o.Client.Validate(ctx, cur.String())
		if err != nil {
			if hop == 0 {
				return nil, err
			}
			ex.stop(errcode.CodeOf(err), "the redirect was not followed: "+publicMessage(err))
			break
		}
		resp, err := s.o.Client.Send(ctx, t, &safehttp.Request{Method: method, Header: header, Body: body, UserAgent: ua, MaxBodyBytes: req.MaxBodyBytes})
		if err != nil {
			return nil, err
		}
		ex.Response = resp
		loc := resp.Header.Get("Location")
		if !isRedirect(resp.Status) || loc == "" {
			break
		}
		next, perr := resp.FinalURL.Parse(loc)
		switch {
		case req.Redirects != RedirectSameOrigin && req.Redirects != RedirectFollow:
			ex.stop("redirect_not_followed", "the redirect was not followed (redirects: none)")
		case perr != nil || next.Host == "" || (next.Scheme != "http" && next.Scheme != "https"):
			ex.stop(string(safehttp.CodeInvalidTarget), "the redirect's Location is not an http or https URL")
		case req.Redirects == RedirectSameOrigin && originOf(next) != origin:
			ex.stop("redirect_cross_origin", "the redirect leaves the origin (redirects: same-origin)")
		case hop >= max:
			ex.stop(string(safehttp.CodeTooManyRedirects), "the redirect was not followed: the limit of hops was reached")
		default:
			if err := s.scope(next); err != nil {
				ex.stop(CodeTargetOutOfScope, "the redirect was not followed: its host is outside this server's scope")
				break
			}
			ex.Chain = append(ex.Chain, Hop{URL: resp.FinalURL.String(), Status: resp.Status, Location: loc})
			if originOf(next) != origin {
				// Credentials meant for one origin never travel to another.
				header.Del("Authorization")
				header.Del("Cookie")
				header.Del("Proxy-Authorization")
			}
			if resp.Status == http.StatusSeeOther || (resp.Status == http.StatusMovedPermanently || resp.Status == http.StatusFound) && method == http.MethodPost {
				if method != http.MethodHead {
					method = http.MethodGet
				}
				body = nil
				header.Del("Content-Type")
			}
			cur = next
			continue
		}
		break
	}
	ex.Total = time.Since(start)
	return ex, nil
}

func (ex *Exchange) stop(code, msg string) { ex.Stopped = &Stop{Code: code, Message: msg} }

// scope checks u's host before any look-up.
func (s *Sender) scope(u *url.URL) error {
	if s.o.InScope == nil {
		return nil
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if !s.o.InScope(host) {
		return errcode.New(CodeTargetOutOfScope, "the target "+host+" is outside this server's scope (tools.scope)")
	}
	return nil
}

func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")) + ":" + port
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

func publicMessage(err error) string {
	if e, ok := errcode.As(err); ok {
		return e.Message
	}
	return "it was refused"
}
