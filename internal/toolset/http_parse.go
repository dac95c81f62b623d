package toolset

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"mime"
	"net/url"
	"strings"

	"github.com/warden-mcp/warden/codec"
	"github.com/warden-mcp/warden/httpparse"
	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/tool"
)

// hideCredentialFields removes from a parsed message, in place, the value
// of every form, JSON and multipart field whose name means a credential:
// from the decoded form, the compacted JSON and the body as written.
func hideCredentialFields(r *redact.Redactor, m *httpparse.Message) {
	hit := false
	for i := range m.Form {
		if redact.CredentialName(m.Form[i].Name) && m.Form[i].Value != "" {
			m.Form[i].Value, hit = redact.CredentialMarker, true
		}
	}
	if hit {
		m.Body = hideFormFields(m.Body)
	}
	if len(m.JSON) > 0 {
		m.JSON = r.CredentialMembers(m.JSON)
		m.Body = r.CredentialMembers(m.Body)
	}
	for _, p := range m.Multipart {
		if redact.CredentialName(p.Name) {
			m.Body = hideParts(m.Body, m.ContentType)
			break
		}
	}
}

// hideFormFields rewrites an application/x-www-form-urlencoded body with
// the value of every credential field replaced, every other byte kept.
func hideFormFields(body []byte) []byte {
	segs := bytes.Split(body, []byte("&"))
	for i, seg := range segs {
		name, _, ok := bytes.Cut(seg, []byte("="))
		if !ok {
			continue
		}
		n, err := url.QueryUnescape(string(name))
		if err != nil {
			n = string(name)
		}
		if redact.CredentialName(n) {
			trail := seg[len(bytes.TrimRight(seg, "\r\n")):] // a line end after the last field stays
			segs[i] = append(append(append([]byte{}, name...), '='), append([]byte(redact.CredentialMarker), trail...)...)
		}
	}
	return bytes.Join(segs, []byte("&"))
}

// hideParts rewrites a multipart body with the content of every part
// whose name means a credential replaced, every other byte kept. A body
// whose parts cannot be found again is replaced whole (fail closed).
func hideParts(body []byte, contentType string) []byte {
	_, params, err := mime.ParseMediaType(contentType)
	boundary := params["boundary"]
	if err != nil || boundary == "" {
		return []byte(redact.CredentialMarker)
	}
	delim := []byte("--" + boundary)
	var out []byte
	rest := body
	for {
		i := bytes.Index(rest, delim)
		if i < 0 {
			return append(out, rest...)
		}
		out = append(out, rest[:i+len(delim)]...)
		rest = rest[i+len(delim):]
		next := bytes.Index(rest, delim)
		if next < 0 {
			return append(out, rest...)
		}
		part := rest[:next]
		hdrEnd := bytes.Index(part, []byte("\r\n\r\n"))
		sepLen := 4
		if hdrEnd < 0 {
			hdrEnd, sepLen = bytes.Index(part, []byte("\n\n")), 2
		}
		if hdrEnd >= 0 && credentialPart(part[:hdrEnd]) {
			content := part[hdrEnd+sepLen:]
			trail := content[len(bytes.TrimRight(content, "\r\n")):]
			part = append(append(append([]byte{}, part[:hdrEnd+sepLen]...), redact.CredentialMarker...), trail...)
		}
		out = append(out, part...)
		rest = rest[next:]
	}
}

// credentialPart reports whether a part's headers name it as a
// credential field.
func credentialPart(headers []byte) bool {
	for _, line := range strings.Split(string(headers), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "Content-Disposition") {
			continue
		}
		if _, params, err := mime.ParseMediaType(strings.TrimSpace(v)); err == nil {
			return redact.CredentialName(params["name"])
		}
	}
	return false
}

type httpParseArgs struct {
	Raw string `json:"raw" minLength:"1" maxLength:"1048576" code:"invalid_http_message" maxLengthCode:"input_too_large" desc:"A raw HTTP/1.1 request or response as text, headers and body, as copied from a proxy or a terminal. At most 1 MiB."`
}

// HTTPParseResult is http_parse's result. Header values follow the header
// policy of the privacy mode (Authorization keeps its scheme, cookies keep
// their names), cookie values and credentials are removed, and query
// values, which the URL policy removes from the target, are removed from
// the decoded query too. In balanced and strict, the value of every form,
// JSON and multipart field whose name means a credential
// (redact.CredentialName: password, api_key, token...) is removed from
// form, json and body alike.
type HTTPParseResult struct {
	Kind        string              `json:"kind" privacy:"plain" desc:"request or response."`
	Method      string              `json:"method,omitempty" privacy:"plain"`
	Target      string              `json:"target,omitempty" privacy:"url" desc:"The request target as written."`
	Path        string              `json:"path,omitempty" privacy:"plain"`
	Query       map[string][]string `json:"query,omitempty" privacy:"secret" desc:"Query parameters, decoded, by name. Values are removed by balanced and strict privacy, as the URL policy removes them from target."`
	QueryOrder  []string            `json:"query_order,omitempty" privacy:"plain" desc:"Query parameter names in order, repeats included."`
	Status      int                 `json:"status,omitempty"`
	Reason      string              `json:"reason,omitempty" privacy:"plain"`
	Proto       string              `json:"proto,omitempty" privacy:"plain"`
	Headers     map[string][]string `json:"headers" privacy:"header" desc:"Header values by name as written."`
	HeaderOrder []string            `json:"header_order" privacy:"plain" desc:"Header names in order, repeats included."`
	Cookies     map[string][]string `json:"cookies,omitempty" privacy:"cookie" desc:"Cookie header values by cookie name."`
	SetCookies  []HTTPSetCookie     `json:"set_cookies,omitempty"`
	Auth        []HTTPAuth          `json:"auth,omitempty" desc:"Authorization and Proxy-Authorization, decoded."`
	Body        string              `json:"body" privacy:"plain" desc:"The body after de-chunking: text, or base64 when binary (body_format). In balanced and strict privacy the values of form, JSON and multipart fields whose names mean a credential (password, api_key, token...) are [REDACTED:credential]."`
	BodyFormat  string              `json:"body_format" privacy:"plain" desc:"text or base64."`
	BodyBytes   int                 `json:"body_bytes"`
	ContentType string              `json:"content_type,omitempty" privacy:"plain"`
	Chunked     bool                `json:"chunked,omitempty"`
	JSON        json.RawMessage     `json:"json,omitempty" privacy:"plain" desc:"A JSON body, parsed and compacted."`
	Form        map[string][]string `json:"form,omitempty" privacy:"plain" desc:"A form body's fields, decoded; a field whose name means a credential is [REDACTED:credential] in balanced and strict privacy."`
	Multipart   []HTTPPart          `json:"multipart,omitempty" desc:"A multipart body's parts, without their content."`
	Warnings    []HTTPParseWarning  `json:"parse_warnings" desc:"Leniencies and ambiguities: bare LF, Content-Length and Transfer-Encoding together, a Content-Length that does not match, folded headers..."`
}

// HTTPSetCookie is one Set-Cookie header.
type HTTPSetCookie struct {
	Name        string `json:"name" privacy:"plain"`
	Value       string `json:"value" privacy:"cookie"`
	Domain      string `json:"domain,omitempty" privacy:"host"`
	Path        string `json:"path,omitempty" privacy:"plain"`
	Expires     string `json:"expires,omitempty" privacy:"plain"`
	MaxAge      string `json:"max_age,omitempty" privacy:"plain"`
	SameSite    string `json:"same_site,omitempty" privacy:"plain"`
	Secure      bool   `json:"secure"`
	HTTPOnly    bool   `json:"http_only"`
	Partitioned bool   `json:"partitioned,omitempty"`
}

// HTTPAuth is one credentials header, decoded.
type HTTPAuth struct {
	Header   string            `json:"header" privacy:"plain"`
	Scheme   string            `json:"scheme" privacy:"plain"`
	Username string            `json:"username,omitempty" privacy:"credential"`
	Password string            `json:"password,omitempty" privacy:"secret"`
	Token    string            `json:"token,omitempty" privacy:"secret"`
	Params   map[string]string `json:"params,omitempty" privacy:"secret" desc:"Digest-style parameters by name."`
}

// HTTPPart is one multipart part.
type HTTPPart struct {
	Name        string `json:"name" privacy:"plain"`
	Filename    string `json:"filename,omitempty" privacy:"path"`
	ContentType string `json:"content_type,omitempty" privacy:"plain"`
	Bytes       int    `json:"bytes"`
}

// HTTPParseWarning is one leniency.
type HTTPParseWarning struct {
	Code    string `json:"code" privacy:"plain"`
	Message string `json:"message" privacy:"plain"`
}

func httpParseTools(deps Deps) ([]*tool.Tool, error) {
	n := deps.Native
	if n == nil {
		n = &Native{}
	}
	t, err := tool.New(tool.Def{
		Name:  "http_parse",
		Title: "Parse a raw HTTP request or response",
		Description: "Parse a raw HTTP/1.1 request or response into method, target and query parameters (or status), " +
			"headers in order, cookies and Set-Cookie attributes, decoded Authorization credentials, and the body " +
			"(de-chunked; JSON, form and multipart decoded). Warns where servers disagree (Content-Length with " +
			"Transfer-Encoding, mismatched lengths, folded headers, bare LF): the raw material of request smuggling. " +
			"Offline: sends nothing. Cookies and credentials are redacted by the privacy mode.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     tool.Catalog{Category: "http", Trust: tool.TrustAuto},
	}, func(ctx context.Context, call *tool.Call, in httpParseArgs) (HTTPParseResult, error) {
		m, err := httpparse.Parse(in.Raw)
		if err != nil {
			return HTTPParseResult{}, err
		}
		if r := n.privacy(ctx); r.Mode() != redact.Off {
			hideCredentialFields(r, m)
		}
		return httpParseResult(m), nil
	})
	if err != nil {
		return nil, err
	}
	return []*tool.Tool{t}, nil
}

func httpParseResult(m *httpparse.Message) HTTPParseResult {
	out := HTTPParseResult{
		Kind: m.Kind, Method: m.Method, Target: m.Target, Path: m.Path, Status: m.Status, Reason: m.Reason, Proto: m.Proto,
		Headers: map[string][]string{}, HeaderOrder: []string{}, ContentType: m.ContentType, Chunked: m.Chunked,
		JSON: m.JSON, BodyBytes: len(m.Body), Warnings: []HTTPParseWarning{},
	}
	for _, h := range m.Headers {
		out.Headers[h.Name] = append(out.Headers[h.Name], h.Value)
		out.HeaderOrder = append(out.HeaderOrder, h.Name)
	}
	if len(m.Query) > 0 {
		out.Query = map[string][]string{}
		for _, p := range m.Query {
			out.Query[p.Name] = append(out.Query[p.Name], p.Value)
			out.QueryOrder = append(out.QueryOrder, p.Name)
		}
	}
	if len(m.Cookies) > 0 {
		out.Cookies = map[string][]string{}
		for _, c := range m.Cookies {
			out.Cookies[c.Name] = append(out.Cookies[c.Name], c.Value)
		}
	}
	for _, c := range m.SetCookies {
		out.SetCookies = append(out.SetCookies, HTTPSetCookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
			Expires: c.Expires, MaxAge: c.MaxAge, SameSite: c.SameSite, Secure: c.Secure, HTTPOnly: c.HTTPOnly, Partitioned: c.Partitioned})
	}
	for _, a := range m.Auth {
		ha := HTTPAuth{Header: a.Header, Scheme: a.Scheme, Username: a.Username, Password: a.Password, Token: a.Token}
		if len(a.Params) > 0 {
			ha.Params = map[string]string{}
			for _, p := range a.Params {
				ha.Params[p.Name] = p.Value
			}
		}
		out.Auth = append(out.Auth, ha)
	}
	if codec.IsText(m.Body) {
		out.Body, out.BodyFormat = string(m.Body), "text"
	} else {
		out.Body, out.BodyFormat = base64.StdEncoding.EncodeToString(m.Body), "base64"
	}
	if len(m.Form) > 0 {
		out.Form = map[string][]string{}
		for _, p := range m.Form {
			out.Form[p.Name] = append(out.Form[p.Name], p.Value)
		}
	}
	for _, p := range m.Multipart {
		out.Multipart = append(out.Multipart, HTTPPart{Name: p.Name, Filename: p.Filename, ContentType: p.ContentType, Bytes: p.Bytes})
	}
	for _, w := range m.Warnings {
		out.Warnings = append(out.Warnings, HTTPParseWarning{Code: w.Code, Message: w.Message})
	}
	return out
}
