package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/warden-mcp/warden/internal/jsonwalk"
	"github.com/warden-mcp/warden/tool"
)

// Sink receives the messages related to one request before its response:
// progress and log notifications, and on legacy sessions the server's own
// requests to the client. Send may be called from several goroutines.
type Sink interface {
	Send(msg []byte) error
}

// discardSink drops everything.
type discardSink struct{}

func (discardSink) Send([]byte) error { return nil }

// exchange is one request being served: its era, what the client declared
// and where related messages go.
type exchange struct {
	modern        bool
	caps          clientCaps
	client        string // the client's self-declared name
	logLevel      string
	logOn         bool
	progressToken json.RawMessage
	sink          Sink
	sess          *Session
}

func (x *exchange) send(method string, params any) {
	_ = x.sink.Send(appendNotification(nil, method, params))
}

func (x *exchange) progress(p, total float64, message string) {
	if x.progressToken == nil {
		return
	}
	body := struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    float64         `json:"total,omitempty"`
		Message  string          `json:"message,omitempty"`
	}{x.progressToken, p, total, message}
	x.send("notifications/progress", body)
}

func (x *exchange) logf(level, logger string, data any) {
	if !x.logOn || logLevelRank(level) < logLevelRank(x.logLevel) || logLevelRank(level) < 0 {
		return
	}
	body := struct {
		Level  string `json:"level"`
		Logger string `json:"logger,omitempty"`
		Data   any    `json:"data"`
	}{level, logger, data}
	x.send("notifications/message", body)
}

// serveModern serves a modern request whose envelope and _meta have been
// checked (and, on HTTP, its headers).
func (s *Server) serveModern(ctx context.Context, m *Message, p *params, sink Sink) ([]byte, *Error) {
	if err := checkLogLevel(&p.meta); err != nil {
		return nil, err
	}
	x := &exchange{
		modern: true, caps: p.meta.caps, client: p.meta.client,
		logOn: p.meta.hasLogLevel, logLevel: p.meta.logLevel,
		progressToken: p.meta.progressToken, sink: sink,
	}
	return s.dispatch(ctx, x, m, p)
}

func methodNotFound() *Error {
	return rpcErr(CodeMethodNotFound, KindNotFound, "method not found")
}

// dispatch routes one request of either era. It returns the result object
// as JSON, or a protocol error.
func (s *Server) dispatch(ctx context.Context, x *exchange, m *Message, p *params) ([]byte, *Error) {
	switch m.Method {
	case "server/discover":
		if !x.modern {
			return nil, methodNotFound()
		}
		return s.discover(), nil
	case "tools/list":
		return s.toolsList(ctx, x, p)
	case "tools/call":
		return s.toolsCall(ctx, x, p)
	case "prompts/list":
		if !s.features.hasPrompts() {
			return nil, methodNotFound()
		}
		return s.promptsList(x, p)
	case "prompts/get":
		if !s.features.hasPrompts() {
			return nil, methodNotFound()
		}
		return s.promptsGet(ctx, x, m, p)
	case "resources/list":
		if !s.features.hasResources() {
			return nil, methodNotFound()
		}
		return s.resourcesList(x, p)
	case "resources/templates/list":
		if !s.features.hasResources() {
			return nil, methodNotFound()
		}
		return s.templatesList(x, p)
	case "resources/read":
		if !s.features.hasResources() {
			return nil, methodNotFound()
		}
		return s.resourcesRead(ctx, x, p)
	case "completion/complete":
		s.features.mu.RLock()
		ok := s.features.completions()
		s.features.mu.RUnlock()
		if !ok {
			return nil, methodNotFound()
		}
		return s.complete(x, m)
	case "subscriptions/listen":
		if !x.modern {
			return nil, methodNotFound()
		}
		return s.listen(ctx, x, m)
	}
	if x.modern && s.tasks && strings.HasPrefix(m.Method, "tasks/") {
		return s.taskMethod(ctx, x, m, p)
	}
	if !x.modern {
		return x.sess.legacyMethod(ctx, x, m, p)
	}
	return nil, methodNotFound()
}

// finish completes a result object: on the modern revision it adds
// resultType, the cache hints of list results, and serverInfo.
func (s *Server) finish(x *exchange, body []byte, cacheable bool) []byte {
	if !x.modern {
		return body
	}
	out := make([]byte, 0, len(body)+len(s.resultMeta)+64)
	out = append(out, body[:len(body)-1]...)
	if len(body) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"resultType":"complete"`...)
	if cacheable {
		out = append(out, `,"ttlMs":`...)
		out = strconv.AppendInt(out, s.ttlMs(), 10)
		out = append(out, `,"cacheScope":"`...)
		out = append(out, s.cacheScope()...)
		out = append(out, '"')
	}
	out = append(out, s.resultMeta...)
	return append(out, '}')
}

// discover renders the server/discover result. It depends only on the
// options and on which features are served, so each rendering is kept
// and shared; callers copy it into the response and never write to it.
func (s *Server) discover() []byte {
	flags := s.featureFlags()
	if b := s.discovered[flags].Load(); b != nil {
		return *b
	}
	body := map[string]any{
		"supportedVersions": modernVersions,
		"capabilities":      s.capabilitiesFor(flags, false),
		"resultType":        "complete",
		"ttlMs":             s.ttlMs(),
		"cacheScope":        "public",
		"_meta":             map[string]json.RawMessage{metaServerInfo: s.serverInfo},
	}
	if s.opts.Instructions != "" {
		body["instructions"] = s.opts.Instructions
	}
	b, _ := json.Marshal(body)
	s.discovered[flags].Store(&b)
	return b
}

// page applies an opaque cursor to n items.
func (s *Server) page(cursor json.RawMessage, n int) (start, end int, next string, err *Error) {
	if len(cursor) > 0 && !jsonwalk.IsNull(cursor) {
		c, ok := jsonwalk.Unquote(cursor)
		raw, derr := base64.RawURLEncoding.DecodeString(c)
		off, aerr := strconv.Atoi(strings.TrimPrefix(string(raw), "o:"))
		if !ok || derr != nil || aerr != nil || !strings.HasPrefix(string(raw), "o:") || off < 0 || off > n {
			return 0, 0, "", rpcErr(CodeInvalidParams, KindInvalid, "invalid params: invalid cursor")
		}
		start = off
	}
	end = start + s.opts.PageSize
	if end < n {
		next = base64.RawURLEncoding.EncodeToString([]byte("o:" + strconv.Itoa(end)))
	} else {
		end = n
	}
	return start, end, next, nil
}

func appendNext(b []byte, next string) []byte {
	if next == "" {
		return b
	}
	b = append(b, `,"nextCursor":"`...)
	b = append(b, next...)
	return append(b, '"')
}

// listPage is a rendered tools/list result: the page starting at cursor
// of the registry at version.
type listPage struct {
	version uint64
	cursor  string
	body    []byte
}

// toolsList serves a page of tools. Without a Visible filter every caller
// gets the same bytes, so the last page rendered for each era is kept and
// served again until the registry changes. The returned slice is shared:
// callers copy it into the response and never write to it.
func (s *Server) toolsList(ctx context.Context, x *exchange, p *params) ([]byte, *Error) {
	all, version := s.reg.Tools()
	shared, era := s.opts.Visible == nil && !needsClient(all), 0
	if x.modern {
		era = 1
	}
	if shared {
		if c := s.lists[era].Load(); c != nil && c.version == version && c.cursor == string(p.cursor) {
			return c.body, nil
		}
	}
	tools := all
	if !shared {
		tools = make([]*tool.Tool, 0, len(all))
		for _, t := range all {
			if s.visible(ctx, t) && x.caps.meets(t.ClientNeeds) {
				tools = append(tools, t)
			}
		}
	}
	start, end, next, err := s.page(p.cursor, len(tools))
	if err != nil {
		return nil, err
	}
	list := tool.ListJSON(tools[start:end])
	b := make([]byte, 0, len(list)+64)
	b = append(b, `{"tools":`...)
	b = append(b, list...)
	b = appendNext(b, next)
	b = append(b, '}')
	body := s.finish(x, b, true)
	if shared {
		s.lists[era].Store(&listPage{version: version, cursor: string(p.cursor), body: body})
	}
	return body, nil
}

// callEnv builds the handler's view of the call.
func (s *Server) callEnv(ctx context.Context, x *exchange, r *rounds) tool.CallEnv {
	env := tool.CallEnv{
		Session:       sessionKey(x.sess),
		Modern:        x.modern,
		Client:        x.client,
		CorrelationID: CorrelationID(ctx),
		Logger:        s.log,
		Supports:      x.caps.supports,
		Log:           x.logf,
	}
	if x.progressToken != nil {
		env.Progress = x.progress
	}
	if x.modern {
		env.Input = r.input
		env.State = r.state
	} else {
		env.Input = x.sess.input(x)
		if cs, ok := x.sink.(interface{ closeStream() bool }); ok {
			env.CloseStream = cs.closeStream
		}
	}
	return env
}

func (s *Server) toolsCall(ctx context.Context, x *exchange, p *params) ([]byte, *Error) {
	name, ok := nameOf(p.name)
	if !ok {
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: name must be a string")
	}
	t, ok := s.reg.Lookup(name)
	if !ok {
		return nil, rpcErr(CodeInvalidParams, KindAnswer, "unknown tool: "+quoteName(name))
	}
	args := p.arguments
	if len(args) > 0 && !jsonwalk.IsNull(args) && jsonwalk.Kind(args) != "object" {
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: arguments must be an object")
	}
	var r *rounds
	if x.modern {
		var err *Error
		if r, err = s.beginRounds(ctx, "tools/call", name, args, p); err != nil {
			return nil, err
		}
	}
	if x.modern && s.tasks && t.Tasks != tool.TasksNone {
		if x.caps.tasks {
			return s.callAsTask(ctx, x, t, args, r)
		}
		if t.Tasks == tool.TasksRequired {
			return nil, missingTasksCapability()
		}
	}
	out := s.runTool(ctx, t, args, s.callEnv(ctx, x, r))
	if out.Interrupt != nil {
		return s.interrupted(x, r, out.Interrupt)
	}
	return s.toolResult(x, out.Result)
}

// sessionKey is the key tools and resolvers know a legacy session by.
func sessionKey(sess *Session) string {
	if sess == nil {
		return ""
	}
	return sess.key
}

// runTool parses the call once and runs it down the middleware chain to
// the tool. When the chain has stages, they may hold an admission's
// release until the transport has delivered the outcome (Call.Settle) and
// ask whether the call failed through the server (Call.Fault).
func (s *Server) runTool(ctx context.Context, t *tool.Tool, args json.RawMessage, env tool.CallEnv) tool.Outcome {
	if len(s.opts.Middleware) > 0 {
		env.Settle = func(release func()) bool { return holdRelease(ctx, release) }
		env.Fault = func() error { return CallFault(ctx) }
	}
	return s.call(ctx, tool.NewCall(t, args, env))
}

func (s *Server) interrupted(x *exchange, r *rounds, it *tool.Interrupt) ([]byte, *Error) {
	var mc *tool.MissingCapabilityError
	if errors.As(it.Err, &mc) {
		return nil, missingCapability(mc.Capability)
	}
	var pe *tool.ProtocolError
	if errors.As(it.Err, &pe) {
		return nil, rpcErr(pe.Code, KindAnswer, pe.Message)
	}
	if !x.modern || r == nil {
		return nil, rpcErr(CodeInternalError, KindInternal, "internal error")
	}
	return r.inputRequired(it.Pending, it.State)
}

func (s *Server) toolResult(x *exchange, res *tool.Result) ([]byte, *Error) {
	b, err := res.MarshalJSON()
	if err != nil {
		s.log.Error("tool result cannot be serialized", "error", err)
		return nil, rpcErr(CodeInternalError, KindInternal, "internal error")
	}
	return s.finish(x, b, false), nil
}

func quoteName(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.Quote(s)
}

// needsClient reports whether a tool is listed only to clients with some
// capability (Def.ClientNeeds), so that listings differ between clients.
func needsClient(tools []*tool.Tool) bool {
	for _, t := range tools {
		if len(t.ClientNeeds) > 0 {
			return true
		}
	}
	return false
}
