package toolset

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/warden-mcp/warden/codec"
	"github.com/warden-mcp/warden/httpsend"
	"github.com/warden-mcp/warden/safehttp"
	"github.com/warden-mcp/warden/tool"
)

// Bounds of http_request's own arguments (safehttp bounds the rest).
const (
	maxRequestHeaders     = 64
	maxRequestHeaderValue = 8 << 10
)

type httpRequestArgs struct {
	Method           string            `json:"method" default:"GET" minLength:"1" maxLength:"32" desc:"The HTTP method: any token (GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD, TRACE, or your own); CONNECT is refused."`
	URL              string            `json:"url" minLength:"1" maxLength:"2048" code:"invalid_target" maxLengthCode:"url_too_long" desc:"The http or https URL. It must be inside the server's scope (tools.scope); private, internal and cloud-metadata addresses, and ports other than 80 and 443, are refused."`
	Headers          map[string]string `json:"headers,omitempty" privacy:"secret" desc:"Request headers by name (at most 64, each value at most 8 KiB). Host and the framing headers (Content-Length, Transfer-Encoding, Connection...) are set by Warden and refused here. Their values are never echoed."`
	Body             string            `json:"body,omitempty" privacy:"secret" maxLength:"1398104" desc:"The request body, at most 1 MiB: text, or base64 (body_format). Never echoed."`
	BodyFormat       string            `json:"body_format" default:"text" enum:"text,base64" desc:"How body is given."`
	Redirects        string            `json:"redirects" default:"none" enum:"none,same-origin,follow" desc:"none returns a redirect as it is; same-origin follows redirects that stay on the URL's scheme, host and port; follow follows any, each hop checked against the scope and the SSRF rules first. Credentials (Authorization, Cookie) are dropped when a redirect leaves the origin."`
	MaxRedirects     int               `json:"max_redirects" default:"5" min:"0" max:"10" desc:"The most redirects to follow."`
	MaxResponseBytes int               `json:"max_response_bytes" default:"262144" min:"1" max:"2097152" desc:"The most response body bytes to return; the rest is cut and the cut stated."`
}

// HTTPRequestResult is http_request's result. Response header values
// follow the privacy mode's header policy (Set-Cookie values,
// credentials and tokens go); nothing of the request's headers or body
// is returned but their names and size.
type HTTPRequestResult struct {
	Request       HTTPSentRequest     `json:"request"`
	Status        int                 `json:"status"`
	Proto         string              `json:"proto" privacy:"plain"`
	Headers       map[string][]string `json:"headers" privacy:"header" desc:"Response headers by name."`
	Body          string              `json:"body" privacy:"plain" desc:"The response body, decoded from gzip when the server sent it so: text, or base64 when binary (body_format)."`
	BodyFormat    string              `json:"body_format" privacy:"plain" desc:"text or base64."`
	BodyBytes     int                 `json:"body_bytes" desc:"Bytes of body returned."`
	BodyTruncated bool                `json:"body_truncated" desc:"The body was longer than max_response_bytes and was cut there."`
	ContentLength int64               `json:"content_length" desc:"The length the server declared, -1 when it declared none."`
	FinalURL      string              `json:"final_url" privacy:"url"`
	Redirects     []HTTPHop           `json:"redirects" desc:"The redirects followed, in order."`
	Stopped       *HTTPStop           `json:"redirect_stopped,omitempty" desc:"Why the last response, a redirect, was not followed."`
	Timing        HTTPTiming          `json:"timing"`
	TLS           *HTTPTLS            `json:"tls,omitempty"`
	RemoteIP      string              `json:"remote_ip,omitempty" privacy:"ip"`
}

// HTTPSentRequest says what was sent, without header values or body.
type HTTPSentRequest struct {
	Method      string   `json:"method" privacy:"plain"`
	URL         string   `json:"url" privacy:"url"`
	HeaderNames []string `json:"header_names" privacy:"plain"`
	BodyBytes   int      `json:"body_bytes"`
}

// HTTPHop is one redirect followed.
type HTTPHop struct {
	URL      string `json:"url" privacy:"url"`
	Status   int    `json:"status"`
	Location string `json:"location" privacy:"url"`
}

// HTTPStop is a redirect not followed.
type HTTPStop struct {
	Code    string `json:"code" privacy:"plain" desc:"redirect_not_followed, redirect_cross_origin, target_out_of_scope, too_many_redirects, or the SSRF refusal (blocked_ip, blocked_port...)."`
	Message string `json:"message" privacy:"plain"`
}

// HTTPTiming is the final request's timing, in milliseconds.
type HTTPTiming struct {
	DNSMS       float64 `json:"dns_ms"`
	ConnectMS   float64 `json:"connect_ms"`
	TLSMS       float64 `json:"tls_ms"`
	FirstByteMS float64 `json:"first_byte_ms"`
	TotalMS     float64 `json:"total_ms" desc:"The whole exchange, redirects included."`
}

// HTTPTLS is the final connection's TLS.
type HTTPTLS struct {
	Version     string `json:"version" privacy:"plain"`
	CipherSuite string `json:"cipher_suite" privacy:"plain"`
	ALPN        string `json:"alpn,omitempty" privacy:"plain"`
}

// refusedRequestHeaders are set by Warden or the transport.
var refusedRequestHeaders = map[string]bool{"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true,
	"Upgrade": true, "Te": true, "Trailer": true, "Keep-Alive": true, "Proxy-Connection": true}

func httpRequestTools(deps Deps) ([]*tool.Tool, error) {
	opts := safehttp.Options{}
	if deps.SafeHTTP != nil {
		opts = *deps.SafeHTTP
	}
	opts.UserAgent = "Warden-http_request/0.1 (+https://github.com/warden-mcp/warden)"
	sender := httpsend.New(httpsend.Options{Client: safehttp.New(&opts), InScope: deps.InScope})
	t, err := tool.New(tool.Def{
		Name:  "http_request",
		Title: "Send an HTTP request to an in-scope target",
		Description: "Send one HTTP request (any method, headers and body) to an http or https URL inside the server's " +
			"scope, and return the status, headers, timing, the body (text or base64, cut at max_response_bytes with the " +
			"cut stated) and the redirect chain. Every hop is checked against the scope before any DNS look-up and " +
			"against the SSRF rules (no private, internal or metadata addresses; ports 80 and 443). It sends traffic " +
			"that may change the target's state: a person approves every call. Response cookies and credentials are " +
			"redacted by the privacy mode; the request's header values and body are never echoed.",
		// Any method may be sent: DELETE and PUT can destroy.
		Annotations: tool.Annotations{OpenWorld: true, Destructive: true},
		Catalog: tool.Catalog{
			Category:    "http",
			Unsafe:      true,
			TargetParam: "url",
			Trust:       tool.TrustConfirmEach,
			// The person is asked after the arguments, the scope, the
			// port and the addresses are checked: never for a call
			// these refuse.
			ApproveAtBegin: true,
		},
	}, func(ctx context.Context, call *tool.Call, in httpRequestArgs) (*HTTPRequestResult, error) {
		req, err := buildRequest(in)
		if err != nil {
			return nil, err
		}
		if err := sender.Check(ctx, req); err != nil {
			return nil, requestError(err)
		}
		ctx, err = call.Begin(ctx)
		if err != nil {
			return nil, err
		}
		ex, err := sender.Do(ctx, req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, requestError(err)
		}
		return httpRequestResult(in, req, ex), nil
	})
	if err != nil {
		return nil, err
	}
	return []*tool.Tool{t}, nil
}

// buildRequest checks the arguments safehttp does not.
func buildRequest(in httpRequestArgs) (httpsend.Request, error) {
	method := in.Method
	if strings.EqualFold(method, http.MethodConnect) {
		return httpsend.Request{}, &tool.Error{Code: "invalid_params", Message: "CONNECT is refused: a tunnel would escape the address checks"}
	}
	for i := 0; i < len(method); i++ {
		if c := method[i]; c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return httpsend.Request{}, &tool.Error{Code: "invalid_params", Message: "parameter \"method\" must be an HTTP token"}
		}
	}
	if len(in.Headers) > maxRequestHeaders {
		return httpsend.Request{}, &tool.Error{Code: "invalid_params", Message: "at most 64 headers"}
	}
	h := http.Header{}
	for name, v := range in.Headers {
		cn := http.CanonicalHeaderKey(name)
		switch {
		case !httpToken(name):
			return httpsend.Request{}, &tool.Error{Code: "invalid_params", Message: "a header name is not an HTTP token"}
		case refusedRequestHeaders[cn]:
			return httpsend.Request{}, &tool.Error{Code: "invalid_params", Message: cn + " is set by Warden; it cannot be given"}
		case len(v) > maxRequestHeaderValue || strings.ContainsAny(v, "\r\n\x00"):
			return httpsend.Request{}, &tool.Error{Code: "invalid_params", Message: "the value of header " + cn + " is longer than 8 KiB or holds a line break"}
		}
		h[cn] = append(h[cn], v)
	}
	var body []byte
	if in.Body != "" {
		var err error
		if body, err = codec.ReadInput(in.Body, in.BodyFormat); err != nil {
			return httpsend.Request{}, &tool.Error{Code: "invalid_params", Message: "parameter \"body\" is not valid " + in.BodyFormat + " or is larger than 1 MiB"}
		}
	}
	return httpsend.Request{Method: method, URL: in.URL, Header: h, Body: body, Redirects: in.Redirects,
		MaxRedirects: in.MaxRedirects, MaxBodyBytes: int64(in.MaxResponseBytes)}, nil
}

func httpToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

// requestError words a refusal; the scanner's wording speaks of scans.
func requestError(err error) *tool.Error {
	te := siteError(err, "")
	switch te.Code {
	case string(safehttp.CodeBlockedPort):
		te.Message = "Warden's http_request reaches ports 80 and 443 only"
	case "scan_failed":
		te.Code, te.Message = "request_failed", "the request failed (connection refused or reset, or a malformed response)"
	}
	if strings.Contains(te.Message, "website scans") {
		te.Message = strings.ReplaceAll(te.Message, "Warden's website scans", "Warden's http_request")
	}
	return te
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func httpRequestResult(in httpRequestArgs, req httpsend.Request, ex *httpsend.Exchange) *HTTPRequestResult {
	r := ex.Response
	out := &HTTPRequestResult{
		Request:       HTTPSentRequest{Method: req.Method, URL: in.URL, HeaderNames: []string{}, BodyBytes: len(req.Body)},
		Status:        r.Status,
		Proto:         r.Proto,
		Headers:       map[string][]string(r.Header.Clone()),
		BodyBytes:     len(r.Body),
		BodyTruncated: r.Truncated,
		ContentLength: -1,
		FinalURL:      r.FinalURL.String(),
		Redirects:     []HTTPHop{},
		Timing: HTTPTiming{DNSMS: ms(r.Timings.DNS), ConnectMS: ms(r.Timings.Connect), TLSMS: ms(r.Timings.TLS),
			FirstByteMS: ms(r.Timings.FirstByte), TotalMS: ms(ex.Total)},
	}
	if out.Headers == nil {
		out.Headers = map[string][]string{}
	}
	for name := range req.Header {
		out.Request.HeaderNames = append(out.Request.HeaderNames, name)
	}
	if cl := r.Header.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil {
			out.ContentLength = n
		}
	}
	if codec.IsText(r.Body) {
		out.Body, out.BodyFormat = string(r.Body), "text"
	} else {
		out.Body, out.BodyFormat = base64.StdEncoding.EncodeToString(r.Body), "base64"
	}
	for _, h := range ex.Chain {
		out.Redirects = append(out.Redirects, HTTPHop{URL: h.URL, Status: h.Status, Location: h.Location})
	}
	if ex.Stopped != nil {
		out.Stopped = &HTTPStop{Code: ex.Stopped.Code, Message: ex.Stopped.Message}
	}
	if r.TLS != nil {
		out.TLS = &HTTPTLS{Version: tls.VersionName(r.TLS.Version), CipherSuite: tls.CipherSuiteName(r.TLS.CipherSuite), ALPN: r.TLS.NegotiatedProtocol}
	}
	if r.RemoteAddr.IsValid() {
		out.RemoteIP = r.RemoteAddr.Addr().String()
	}
	return out
}
