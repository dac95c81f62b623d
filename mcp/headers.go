package mcp

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/warden-mcp/warden/internal/jsonwalk"
)

// The 2026-07-28 revision mirrors parts of the body in headers, for
// proxies and gateways to route on: Mcp-Method, Mcp-Name and Mcp-Param-*
// for tool arguments marked x-mcp-header. A header that disagrees with the
// body is refused (-32020), so that what was routed is what is served.

// headerMismatch is the -32020 error of a header that disagrees with the
// body.
func headerMismatch(msg string) *Error {
	return rpcErr(CodeHeaderMismatch, KindInvalid, "header mismatch: "+msg)
}

// checkMirrored is step 10: Mcp-Method, Mcp-Name and Mcp-Param-* must
// equal the body.
func (h *HTTPHandler) checkMirrored(r *http.Request, m *Message, p *params) *Error {
	mv := r.Header.Values("Mcp-Method")
	if len(mv) != 1 {
		return headerMismatch("Mcp-Method is required once")
	}
	if strings.TrimSpace(mv[0]) != m.Method {
		return headerMismatch("Mcp-Method does not match the body")
	}
	var want []byte
	switch m.Method {
	case "tools/call", "prompts/get":
		want = p.name
	case "resources/read":
		want = p.uri
	case "tasks/get", "tasks/update", "tasks/cancel":
		_ = eachParam(m.Params, "taskId", func(v []byte) { want = v })
		if want == nil {
			return nil // the dispatcher answers the missing taskId
		}
	default:
		return nil
	}
	bodyName, ok := nameOf(want)
	if !ok {
		return rpcErr(CodeInvalidParams, KindInvalid, "invalid params: name must be a string")
	}
	nv := r.Header.Values("Mcp-Name")
	if len(nv) != 1 {
		return headerMismatch("Mcp-Name is required once")
	}
	hn, ok := decodeHeaderValue(strings.TrimSpace(nv[0]))
	if !ok || hn != bodyName {
		return headerMismatch("Mcp-Name does not match the body")
	}
	if m.Method != "tools/call" {
		return nil
	}
	t, ok := h.s.reg.Lookup(bodyName)
	if !ok {
		return nil // the dispatcher answers unknown tools
	}
	for _, hp := range t.HeaderParams() {
		var val []byte
		_ = eachParam(p.arguments, hp.Arg, func(v []byte) { val = v })
		if val == nil || string(val) == "null" {
			continue
		}
		name := "Mcp-Param-" + hp.Header
		vals := r.Header.Values(name)
		if len(vals) != 1 {
			return headerMismatch(name + " is required once")
		}
		hv, ok := decodeHeaderValue(strings.TrimSpace(vals[0]))
		if !ok || !headerEquals(hp.Kind, hv, val) {
			return headerMismatch(name + " does not match the argument")
		}
	}
	return nil
}

// decodeHeaderValue decodes a mirrored header value. A value of the form
// =?base64?...?= is strict, padded standard Base64 of UTF-8 text; any
// other value is taken literally.
func decodeHeaderValue(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v, true
	}
	b, err := base64.StdEncoding.Strict().DecodeString(inner)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// headerEquals compares a decoded header value with a raw JSON argument:
// strings as they are, integers numerically, booleans as true/false.
func headerEquals(kind, header string, raw []byte) bool {
	switch kind {
	case "integer":
		hv, err := strconv.ParseInt(header, 10, 64)
		if err != nil {
			return false
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		return err == nil && f == float64(hv)
	case "boolean":
		return (header == "true" || header == "false") && header == string(raw)
	default:
		s, ok := jsonwalk.Unquote(raw)
		return ok && jsonwalk.Kind(raw) == "string" && s == header
	}
}
