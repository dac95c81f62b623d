package mcp

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/warden-mcp/warden/internal/httplimit"
)

// readBody reads at most max bytes; a longer body, announced or chunked,
// is refused without being buffered whole.
func readBody(declared int64, body io.Reader, max int64) ([]byte, bool, error) {
	if declared > max {
		return nil, true, nil
	}
	b, err := io.ReadAll(io.LimitReader(body, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > max {
		return nil, true, nil
	}
	return b, false, nil
}

// isJSONMediaType reports whether a Content-Type names application/json.
// The common exact spelling is recognised without mime.ParseMediaType,
// which allocates a parameter map on every call.
func isJSONMediaType(ct string) bool {
	if ct == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// mediaType returns the media type of one Accept element, lower-cased and
// without parameters; ok is false when the element does not parse.
func mediaType(part string) (mt string, ok bool) {
	switch part {
	case "application/json", "text/event-stream", "*/*", "application/*":
		return part, true // the common spellings, without allocating
	}
	mt, _, err := mime.ParseMediaType(part)
	return mt, err == nil
}

func acceptsJSON(r *http.Request) (json, sse bool) {
	acc := r.Header.Values("Accept")
	if len(acc) == 0 {
		return true, false
	}
	for _, a := range acc {
		for part := range strings.SplitSeq(a, ",") {
			mt, ok := mediaType(strings.TrimSpace(part))
			if !ok {
				continue
			}
			switch mt {
			case "application/json":
				json = true
			case "text/event-stream":
				sse = true
			case "*/*", "application/*":
				json = true
			}
		}
	}
	return json, sse
}

// checkPostHeaders checks a POST's media types before its body is read;
// it answers the request and reports false when they are refused, and
// reports whether the client accepts SSE.
func checkPostHeaders(w http.ResponseWriter, r *http.Request) (okSSE, ok bool) {
	if !isJSONMediaType(r.Header.Get("Content-Type")) {
		writeJSONError(w, nil, &Error{Code: CodeInvalidRequest, Kind: KindUnsupportedMediaType, Message: "content type must be application/json", Data: map[string]string{"code": "unsupported_media_type"}})
		return false, false
	}
	okJSON, okSSE := acceptsJSON(r)
	if !okJSON && !okSSE {
		writeJSONError(w, nil, &Error{Code: CodeInvalidRequest, Kind: KindNotAcceptable, Message: "Accept must include application/json or text/event-stream", Data: map[string]string{"code": "not_acceptable"}})
		return false, false
	}
	return okSSE, true
}

// readPostBody reads the body, bounded in size and in time: a client
// that does not send it within BodyReadTimeout is answered 408. It
// answers the request and reports false when the body is refused.
func (h *HTTPHandler) readPostBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := h.opts.BodyReadTimeout
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 {
		// The server's own read timeout, set when the request began,
		// may be the shorter bound; the deadline replaces it.
		limit = min(limit, srv.ReadTimeout)
	}
	body := httplimit.PaceBody(w, r, httplimit.BodyPace{Timeout: limit})
	b, tooLarge, err := readBody(r.ContentLength, body, h.opts.MaxBodyBytes)
	if err == nil && !tooLarge {
		body.Done()
	}
	if tooLarge {
		writeJSONError(w, nil, &Error{Code: CodeInvalidRequest, Kind: KindTooLarge, Message: "request body too large",
			Data: map[string]any{"code": "request_too_large", "limitBytes": h.opts.MaxBodyBytes}})
		return nil, false
	}
	if httplimit.IsBodyTimeout(err) {
		w.Header().Set("Connection", "close")
		writeJSONError(w, nil, &Error{Code: CodeInvalidRequest, Kind: KindTimeout, Message: "the request body was not sent in time",
			Data: map[string]any{"code": "request_timeout", "limitSeconds": h.opts.BodyReadTimeout.Seconds()}})
		return nil, false
	}
	if err != nil {
		writeJSONError(w, nil, rpcErr(CodeParseError, KindInvalid, "parse error: the body could not be read"))
		return nil, false
	}
	return b, true
}

// post parses a POST body, then hands the message to the era it belongs
// to: legacy when it names a session, or carries neither modern _meta
// nor a modern MCP-Protocol-Version header.
func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request, body []byte, okSSE bool) {
	m, perr := ParseMessage(body)
	if perr != nil {
		var id json.RawMessage
		if m != nil {
			id = m.ID
		}
		writeJSONError(w, id, perr)
		return
	}
	p, splitErr := splitParams(m.Params)
	if splitErr != nil {
		writeJSONError(w, m.ID, splitErr)
		return
	}
	sid := r.Header.Values("Mcp-Session-Id")
	hv := r.Header.Values("Mcp-Protocol-Version")
	legacyHeader := len(hv) == 0 || isLegacyVersion(hv[0])
	if len(sid) > 0 || (!p.hasMeta && legacyHeader) {
		noteRequest(r.Context(), m.Method, "legacy")
		h.postLegacy(w, r, m, &p, sid, okSSE)
		return
	}
	noteRequest(r.Context(), m.Method, "modern")
	h.postModern(w, r, m, &p, hv, okSSE)
}

// postModern applies the validation order of the 2026-07-28 revision.
func (h *HTTPHandler) postModern(w http.ResponseWriter, r *http.Request, m *Message, p *params, hv []string, okSSE bool) {
	if m.IsResponse() {
		writeJSONError(w, m.ID, rpcErr(CodeInvalidRequest, KindInvalid, "invalid request: the server sent no request to answer"))
		return
	}
	if m.IsNotification() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	fail := func(e *Error) { writeJSONError(w, m.ID, e) }
	if len(hv) == 0 {
		fail(headerMismatch("MCP-Protocol-Version is required"))
		return
	}
	if len(hv) > 1 {
		fail(headerMismatch("MCP-Protocol-Version given more than once"))
		return
	}
	if e := checkModernMeta(p); e != nil {
		fail(e)
		return
	}
	if hv[0] != p.meta.version {
		fail(headerMismatch("MCP-Protocol-Version does not match _meta"))
		return
	}
	if e := checkVersion(p.meta.version); e != nil {
		fail(e)
		return
	}
	if e := h.checkMirrored(r, m, p); e != nil {
		fail(e)
		return
	}
	sink := newSink(w, okSSE, h.opts.KeepAlive)
	if m.Method == "subscriptions/listen" {
		releaseSlot(r.Context())
		if !okSSE {
			fail(rpcErr(CodeInvalidRequest, KindNotAcceptable, "subscriptions/listen needs an Accept of text/event-stream"))
			return
		}
		sink.long = true
	}
	res, rerr := h.s.serveModern(r.Context(), m, p, sink)
	sink.finish(m.ID, res, rerr)
}
