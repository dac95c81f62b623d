package httpparse

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
	"strconv"
	"strings"

	"github.com/warden-mcp/warden/errcode"
)

// Bounds.
const (
	MaxInput   = 1 << 20
	MaxHeaders = 256
	MaxParams  = 1000
	MaxParts   = 100
)

// Error codes.
const (
	CodeInvalidMessage = "invalid_http_message"
	CodeInputTooLarge  = "input_too_large"
)

// Header is one header line, the name as written.
type Header struct{ Name, Value string }

// Param is one query, form or cookie parameter, decoded.
type Param struct{ Name, Value string }

// SetCookie is one Set-Cookie header.
type SetCookie struct {
	Name, Value string
	Domain      string
	Path        string
	Expires     string
	MaxAge      string
	SameSite    string
	Secure      bool
	HTTPOnly    bool
	Partitioned bool
}

// Auth is the Authorization (or Proxy-Authorization) header.
type Auth struct {
	Header string // which header
	Scheme string
	// Username and Password of Basic; Token of Bearer and other
	// single-token schemes; Params of Digest and the like (a=b pairs).
	Username, Password, Token string
	Params                    []Param
}

// Part is one part of a multipart body, without its content.
type Part struct {
	Name, Filename, ContentType string
	Bytes                       int
}

// Message is a parsed request or response.
type Message struct {
	// Kind is "request" or "response".
	Kind string
	// Request line.
	Method, Target, Path string
	Query                []Param
	// Status line.
	Status int
	Reason string
	Proto  string

	Headers    []Header
	Cookies    []Param
	SetCookies []SetCookie
	Auth       []Auth

	// Body is the body after de-chunking.
	Body        []byte
	ContentType string
	Chunked     bool
	// JSON is a JSON body, compacted; Form a form body's fields;
	// Multipart a multipart body's parts.
	JSON      json.RawMessage
	Form      []Param
	Multipart []Part

	// Warnings are codes of leniencies and ambiguities, each with a
	// message.
	Warnings []Warning
}

// Warning is one leniency or ambiguity.
type Warning struct{ Code, Message string }

func (m *Message) warn(code, msg string) {
	for _, w := range m.Warnings {
		if w.Code == code {
			return
		}
	}
	m.Warnings = append(m.Warnings, Warning{code, msg})
}

func invalid(msg string) *errcode.Error { return errcode.New(CodeInvalidMessage, msg) }

// Parse reads one message.
func Parse(raw string) (m *Message, err error) {
	defer func() {
		if p := recover(); p != nil { // hostile input must never take the server down
			m, err = nil, errcode.Wrap(CodeInvalidMessage, "the message could not be read", fmt.Errorf("panic: %v", p))
		}
	}()
	if len(raw) > MaxInput {
		return nil, errcode.New(CodeInputTooLarge, "the message is larger than 1 MiB")
	}
	raw = strings.TrimLeft(raw, "\r\n")
	if raw == "" {
		return nil, invalid("the message is empty")
	}
	m = &Message{}
	head, body, sep, crlf := splitHead(raw)
	if !sep {
		m.warn("no_blank_line", "no blank line ends the headers; the whole text was read as the head")
	}
	lines := strings.Split(head, "\n")
	bareLF := false
	for i, l := range lines {
		if strings.HasSuffix(l, "\r") {
			lines[i] = l[:len(l)-1]
		} else if i < len(lines)-1 || sep && !crlf {
			bareLF = true
		}
	}
	if bareLF {
		m.warn("bare_lf", "lines end in LF rather than CRLF; servers differ in whether they accept that")
	}
	if err := m.startLine(lines[0]); err != nil {
		return nil, err
	}
	if err := m.headers(lines[1:]); err != nil {
		return nil, err
	}
	m.body(body)
	return m, nil
}

// splitHead splits at the first empty line (CRLF CRLF, or LF LF); crlf
// says the head's last line ended in CRLF.
func splitHead(raw string) (head, body string, ok, crlf bool) {
	i := strings.Index(raw, "\r\n\r\n")
	j := strings.Index(raw, "\n\n")
	switch {
	case i >= 0 && (j < 0 || i < j):
		return raw[:i], raw[i+4:], true, true
	case j >= 0:
		h := raw[:j]
		return strings.TrimSuffix(h, "\r"), raw[j+2:], true, strings.HasSuffix(h, "\r")
	}
	return strings.TrimRight(raw, "\r\n"), "", false, false
}

func (m *Message) startLine(l string) error {
	if strings.HasPrefix(l, "HTTP/") {
		m.Kind = "response"
		proto, rest, _ := strings.Cut(l, " ")
		code, reason, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
		n, err := strconv.Atoi(code)
		if err != nil || len(code) != 3 || n < 100 {
			return invalid("the status line has no three-digit status code")
		}
		m.Proto, m.Status, m.Reason = proto, n, reason
		return nil
	}
	m.Kind = "request"
	f := strings.Fields(l)
	switch len(f) {
	case 3:
		m.Method, m.Target, m.Proto = f[0], f[1], f[2]
	case 2:
		m.Method, m.Target = f[0], f[1]
		m.warn("no_version", "the request line has no HTTP version")
	default:
		return invalid("the first line is neither a request line (METHOD target HTTP/1.1) nor a status line (HTTP/1.1 200 OK)")
	}
	if !token(m.Method) {
		return invalid("the method is not an HTTP token")
	}
	if len(f) == 3 && !strings.HasPrefix(m.Proto, "HTTP/") {
		return invalid("the request line's version is not HTTP/x.y")
	}
	if l != strings.Join(f, " ") {
		m.warn("request_line_spacing", "the request line has extra white space; servers split it differently")
	}
	m.target()
	return nil
}

// target splits the request target into path and query parameters.
func (m *Message) target() {
	t := m.Target
	if strings.Contains(t, "://") {
		if u, err := url.Parse(t); err == nil {
			t = u.RequestURI()
		}
	}
	path, q, hasQ := strings.Cut(t, "?")
	if i := strings.IndexByte(q, '#'); i >= 0 {
		q = q[:i]
	}
	m.Path = path
	if hasQ {
		m.Query = m.params(q, "&", true)
	}
}

// params splits a=b pairs on sep, decoding them as a form does.
func (m *Message) params(s, sep string, form bool) []Param {
	var out []Param
	for _, kv := range strings.Split(s, sep) {
		if kv == "" {
			continue
		}
		if len(out) == MaxParams {
			m.warn("too_many_params", "more than 1000 parameters; the rest were not listed")
			break
		}
		k, v, _ := strings.Cut(kv, "=")
		if form {
			k, v = unescape(k), unescape(v)
		} else {
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		}
		out = append(out, Param{k, v})
	}
	return out
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

func (m *Message) headers(lines []string) error {
	for _, l := range lines {
		if l == "" {
			continue
		}
		if l[0] == ' ' || l[0] == '\t' {
			if len(m.Headers) == 0 {
				return invalid("the headers start with a continuation line")
			}
			m.warn("obs_fold", "a header is folded over lines (obsolete line folding); servers differ in whether they accept it")
			m.Headers[len(m.Headers)-1].Value += " " + strings.TrimSpace(l)
			continue
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok || !token(name) {
			if strings.TrimSpace(name) != name && token(strings.TrimSpace(name)) {
				m.warn("space_before_colon", "a header name has white space before its colon; RFC 9112 requires servers to refuse that")
				name = strings.TrimSpace(name)
			} else {
				m.warn("malformed_header_line", "a header line is not Name: value; it was skipped")
				continue
			}
		}
		if len(m.Headers) == MaxHeaders {
			return invalid("the message has more than 256 headers")
		}
		m.Headers = append(m.Headers, Header{Name: name, Value: strings.Trim(value, " \t")})
	}
	for _, h := range m.Headers {
		switch strings.ToLower(h.Name) {
		case "cookie":
			m.Cookies = append(m.Cookies, m.params(h.Value, ";", false)...)
		case "set-cookie":
			m.SetCookies = append(m.SetCookies, setCookie(h.Value))
		case "authorization", "proxy-authorization":
			m.Auth = append(m.Auth, auth(h.Name, h.Value))
		case "content-type":
			m.ContentType = h.Value
		}
	}
	return nil
}

func setCookie(v string) SetCookie {
	parts := strings.Split(v, ";")
	name, value, _ := strings.Cut(parts[0], "=")
	c := SetCookie{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)}
	for _, p := range parts[1:] {
		k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
		val = strings.TrimSpace(val)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "domain":
			c.Domain = val
		case "path":
			c.Path = val
		case "expires":
			c.Expires = val
		case "max-age":
			c.MaxAge = val
		case "samesite":
			c.SameSite = val
		case "secure":
			c.Secure = true
		case "httponly":
			c.HTTPOnly = true
		case "partitioned":
			c.Partitioned = true
		}
	}
	return c
}

func auth(header, v string) Auth {
	scheme, cred, _ := strings.Cut(strings.TrimSpace(v), " ")
	cred = strings.TrimSpace(cred)
	a := Auth{Header: header, Scheme: scheme}
	switch strings.ToLower(scheme) {
	case "basic":
		if b, err := base64.StdEncoding.DecodeString(cred); err == nil {
			a.Username, a.Password, _ = strings.Cut(string(b), ":")
		} else {
			a.Token = cred
		}
	case "bearer", "token", "dpop", "negotiate", "ntlm":
		a.Token = cred
	default:
		if strings.Contains(cred, "=") {
			for _, kv := range strings.Split(cred, ",") {
				k, val, _ := strings.Cut(strings.TrimSpace(kv), "=")
				a.Params = append(a.Params, Param{k, strings.Trim(val, `"`)})
			}
		} else {
			a.Token = cred
		}
	}
	return a
}

func (m *Message) header(name string) []string {
	var out []string
	for _, h := range m.Headers {
		if strings.EqualFold(h.Name, name) {
			out = append(out, h.Value)
		}
	}
	return out
}

func (m *Message) body(body string) {
	te := strings.ToLower(strings.Join(m.header("Transfer-Encoding"), ","))
	cls := m.header("Content-Length")
	if te != "" && len(cls) > 0 {
		m.warn("cl_te_conflict", "both Content-Length and Transfer-Encoding are present: front and back servers that pick different ones let requests be smuggled")
	}
	for _, cl := range cls[min(1, len(cls)):] {
		if strings.TrimSpace(cl) != strings.TrimSpace(cls[0]) {
			m.warn("duplicate_content_length", "two different Content-Length values: a request-smuggling signal")
		}
	}
	if strings.Contains(te, "chunked") {
		if !strings.HasSuffix(strings.TrimSpace(te), "chunked") {
			m.warn("chunked_not_last", "chunked is not the last transfer coding")
		}
		dec, ok := dechunk(body)
		if ok {
			m.Chunked = true
			m.Body = dec
		} else {
			m.warn("malformed_chunks", "the chunked body is malformed; it is shown as sent")
			m.Body = []byte(body)
		}
	} else {
		m.Body = []byte(body)
		if len(cls) > 0 {
			n, err := strconv.Atoi(strings.TrimSpace(cls[0]))
			switch {
			case err != nil || n < 0:
				m.warn("invalid_content_length", "Content-Length is not a non-negative number")
			case n != len(body) && !(n == len(body)-2 && strings.HasSuffix(body, "\r\n")) && !(n == len(body)-1 && strings.HasSuffix(body, "\n")):
				m.warn("content_length_mismatch", fmt.Sprintf("Content-Length says %d bytes but the body has %d", n, len(body)))
			}
		}
	}
	m.decodeBody()
}

// dechunk decodes a chunked body; ok is false when it is malformed.
func dechunk(s string) ([]byte, bool) {
	var out []byte
	for {
		line, rest, found := strings.Cut(s, "\n")
		if !found {
			return nil, false
		}
		size, _, _ := strings.Cut(strings.TrimRight(line, "\r"), ";")
		n, err := strconv.ParseUint(strings.TrimSpace(size), 16, 31)
		if err != nil {
			return nil, false
		}
		if n == 0 {
			return out, true
		}
		if uint64(len(rest)) < n {
			return nil, false
		}
		out = append(out, rest[:n]...)
		s = strings.TrimPrefix(strings.TrimPrefix(rest[n:], "\r"), "\n")
	}
}

func (m *Message) decodeBody() {
	if len(m.Body) == 0 {
		return
	}
	mt, params, _ := mime.ParseMediaType(m.ContentType)
	trimmed := bytes.TrimSpace(m.Body)
	switch {
	case strings.Contains(mt, "json") || mt == "" && len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
		var c bytes.Buffer
		if json.Compact(&c, trimmed) == nil {
			m.JSON = c.Bytes()
		} else if strings.Contains(mt, "json") {
			m.warn("invalid_json_body", "the body is declared JSON but is not valid JSON")
		}
	case mt == "application/x-www-form-urlencoded":
		m.Form = m.params(strings.TrimRight(string(m.Body), "\r\n"), "&", true)
	case strings.HasPrefix(mt, "multipart/") && params["boundary"] != "":
		r := multipart.NewReader(bytes.NewReader(m.Body), params["boundary"])
		for len(m.Multipart) < MaxParts {
			p, err := r.NextRawPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				m.warn("malformed_multipart", "the multipart body is malformed after part "+strconv.Itoa(len(m.Multipart)))
				break
			}
			n, _ := io.Copy(io.Discard, io.LimitReader(p, MaxInput))
			m.Multipart = append(m.Multipart, Part{Name: p.FormName(), Filename: p.FileName(), ContentType: p.Header.Get("Content-Type"), Bytes: int(n)})
		}
	}
}
