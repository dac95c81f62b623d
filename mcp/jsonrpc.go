package mcp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/warden-mcp/warden/internal/jsonwalk"
)

// JSON-RPC and MCP error codes.
const (
	CodeParseError        = -32700
	CodeInvalidRequest    = -32600
	CodeMethodNotFound    = -32601
	CodeInvalidParams     = -32602
	CodeInternalError     = -32603
	CodeHeaderMismatch    = -32020
	CodeMissingCapability = -32021
	CodeUnsupportedVer    = -32022
	CodeResourceNotFound  = -32002 // legacy sessions only
)

// Codec bounds. A message past any of them is refused before it is
// decoded further.
const (
	// MaxMessageBytes is the default cap on one message (4 MiB).
	MaxMessageBytes = 4 << 20
	// MaxDepth caps the nesting of objects and arrays.
	MaxDepth = 64
	// maxIDBytes caps a request id: strings up to 128 bytes, integers
	// that fit in 64 bits.
	maxIDBytes = 128
)

// Message is one decoded JSON-RPC 2.0 message: a request (ID and Method),
// a notification (Method only) or a response (ID and Result or Error).
type Message struct {
	ID     json.RawMessage // nil for notifications; verbatim otherwise
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *WireError
}

// IsRequest reports whether m expects a response.
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsNotification reports whether m is a notification.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

// IsResponse reports whether m answers a request.
func (m *Message) IsResponse() bool { return m.Method == "" }

// WireError is the error member of a JSON-RPC response.
type WireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error is a protocol error: a JSON-RPC error object and its kind, which
// a transport maps to its own terms (the streamable HTTP transport to a
// status, in one table: see httpStatus).
type Error struct {
	Code    int
	Message string
	Data    any
	Kind    ErrorKind
}

func (e *Error) Error() string { return e.Message }

// ErrorKind says what went wrong with a request, whatever the transport.
type ErrorKind uint8

// Error kinds. The first five come from the protocol engine; the others
// only from a transport refusing a request before it reaches the engine.
const (
	// KindAnswer: the request was well formed and served, and its answer
	// is an error (an unknown tool, a resource not found, a tool's
	// protocol error). The zero value.
	KindAnswer ErrorKind = iota
	// KindInvalid: the request cannot be served as sent: unparsable,
	// malformed envelope or params, missing or mismatched _meta or
	// headers, an unsupported version, a missing client capability.
	KindInvalid
	// KindNotFound: the method, or the session named, does not exist.
	KindNotFound
	// KindInternal: the server failed.
	KindInternal
	// KindUnavailable: a server bound is reached (requests in flight,
	// sessions, streams, subscriptions); the client may retry later.
	KindUnavailable
	// KindForbidden: the request's origin or host is refused.
	KindForbidden
	// KindMethodNotAllowed: the transport does not serve this verb.
	KindMethodNotAllowed
	// KindNotAcceptable: the client does not accept the media type the
	// answer needs.
	KindNotAcceptable
	// KindTooLarge: the request is over the transport's size cap.
	KindTooLarge
	// KindUnsupportedMediaType: the request body is not JSON.
	KindUnsupportedMediaType
	// KindTimeout: the client did not send its request in time.
	KindTimeout
	numKinds
)

func rpcErr(code int, kind ErrorKind, msg string) *Error {
	return &Error{Code: code, Message: msg, Kind: kind}
}

// ParseMessage decodes one JSON-RPC message under the codec's bounds. It
// never panics; malformed input gives a parse or invalid-request error,
// with a message carrying the request id when the id was readable, so the
// error response can echo it.
func ParseMessage(b []byte) (*Message, *Error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, rpcErr(CodeParseError, KindInvalid, "parse error: empty message")
	}
	if len(b) > MaxMessageBytes {
		return nil, rpcErr(CodeInvalidRequest, KindInvalid, "message too large")
	}
	if !utf8.Valid(b) {
		return nil, rpcErr(CodeParseError, KindInvalid, "parse error: message is not valid UTF-8")
	}
	if !json.Valid(b) {
		return nil, rpcErr(CodeParseError, KindInvalid, "parse error: message is not valid JSON")
	}
	if b[0] == '[' {
		return nil, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: batches are not supported")
	}
	if b[0] != '{' {
		return nil, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: a message must be a JSON object")
	}
	if jsonwalk.Depth(b, MaxDepth) > MaxDepth {
		return nil, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: nesting too deep")
	}
	var m Message
	var version, method, result, errRaw []byte
	var seen [6]bool
	dup := false
	_ = jsonwalk.EachMember(b, func(rawKey, val []byte) error {
		slot := -1
		switch string(memberKey(rawKey)) {
		case `"jsonrpc"`:
			slot, version = 0, val
		case `"id"`:
			slot, m.ID = 1, val
		case `"method"`:
			slot, method = 2, val
		case `"params"`:
			slot, m.Params = 3, val
		case `"result"`:
			slot, result = 4, val
		case `"error"`:
			slot, errRaw = 5, val
		}
		if slot >= 0 {
			if seen[slot] {
				dup = true
			}
			seen[slot] = true
		}
		return nil
	})
	if dup {
		return nil, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: duplicate member")
	}
	if string(version) != `"2.0"` {
		return nil, rpcErr(CodeInvalidRequest, KindInvalid, `invalid request: jsonrpc must be "2.0"`)
	}
	if m.ID != nil {
		if !validID(m.ID) {
			m.ID = nil
			return nil, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: id must be a string or an integer")
		}
		m.ID = bytes.Clone(m.ID)
	}
	if method != nil {
		s, ok := jsonwalk.Unquote(method)
		if !ok || s == "" || len(s) > 256 {
			return &m, (rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: method must be a non-empty string"))
		}
		if result != nil || errRaw != nil {
			return &m, (rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: a request cannot carry a result"))
		}
		m.Method = s
		if m.Params != nil {
			if k := jsonwalk.Kind(m.Params); k != "object" {
				if jsonwalk.IsNull(m.Params) {
					m.Params = nil
				} else {
					return &m, (rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: params must be an object"))
				}
			} else {
				m.Params = bytes.Clone(m.Params)
			}
		}
		return &m, nil
	}
	// A response.
	if m.ID == nil || (result == nil) == (errRaw == nil) {
		return nil, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: not a request, notification or response")
	}
	if result != nil {
		m.Result = bytes.Clone(result)
	} else {
		var we WireError
		if err := json.Unmarshal(errRaw, &we); err != nil {
			return nil, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: malformed error object")
		}
		m.Error = &we
	}
	return &m, nil
}

// memberKey returns a raw member name with its escapes resolved, still
// quoted, so that "m\u0065thod" or "io.modelcontextprotocol\/protocolVersion"
// (as some encoders write "/") name the same member as their plain
// spelling, and a repeat in another spelling counts as a duplicate. Plain
// names, the usual case, are returned as they are, without allocating.
func memberKey(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	s, ok := jsonwalk.Unquote(raw)
	if !ok {
		return raw
	}
	return append(append([]byte{'"'}, s...), '"')
}

// validID accepts a JSON string of at most maxIDBytes or an integer that
// fits in 64 bits. null, fractions, exponents, objects and arrays are
// refused.
func validID(id []byte) bool {
	switch jsonwalk.Kind(id) {
	case "string":
		return len(id) <= maxIDBytes+2
	case "number":
		s := string(id)
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return true
		}
		return false
	}
	return false
}

// appendResponse writes a success response with a pre-rendered result.
func appendResponse(dst []byte, id json.RawMessage, result []byte) []byte {
	dst = appendResponseHead(dst, id)
	dst = append(dst, result...)
	return append(dst, '}')
}

// appendResponseHead writes a success response up to its result; the
// result and a closing brace complete it.
func appendResponseHead(dst []byte, id json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	return append(dst, `,"result":`...)
}

func appendID(dst []byte, id json.RawMessage) []byte {
	if id == nil {
		return append(dst, "null"...)
	}
	return append(dst, id...)
}

// appendError writes an error response.
func appendError(dst []byte, id json.RawMessage, e *Error) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, `,"message":`...)
	mb, _ := json.Marshal(e.Message)
	dst = append(dst, mb...)
	if e.Data != nil {
		if db, err := json.Marshal(e.Data); err == nil {
			dst = append(dst, `,"data":`...)
			dst = append(dst, db...)
		}
	}
	return append(dst, "}}"...)
}

// appendNotification writes a notification.
func appendNotification(dst []byte, method string, params any) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":`...)
	mb, _ := json.Marshal(method)
	dst = append(dst, mb...)
	if params != nil {
		var pb []byte
		switch p := params.(type) {
		case json.RawMessage:
			pb = p
		case []byte:
			pb = p
		default:
			pb, _ = json.Marshal(params)
		}
		dst = append(dst, `,"params":`...)
		dst = append(dst, pb...)
	}
	return append(dst, '}')
}

// appendRequest writes a server-to-client request (legacy sessions only).
func appendRequest(dst []byte, id string, method string, params json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	ib, _ := json.Marshal(id)
	dst = append(dst, ib...)
	dst = append(dst, `,"method":`...)
	mb, _ := json.Marshal(method)
	dst = append(dst, mb...)
	if len(params) > 0 {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}
