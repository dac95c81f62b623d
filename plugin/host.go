package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/tool"
)

// Services are what the server lends plugins' host functions. Each is
// optional; a nil one makes its capability unavailable (a call to it
// answers capability_unavailable).
type Services struct {
	// View answers a read of the call's view: op is what follows
	// "view." (ViewOps lists them), req the JSON object of its
	// arguments, the answer the JSON the matching bininspect_ tool
	// returns.
	View func(ctx context.Context, call *tool.Call, op string, req json.RawMessage) (json.RawMessage, error)
	// Annotate writes to the call's view: op is what follows
	// "annotate." (AnnotateOps lists them).
	Annotate func(ctx context.Context, call *tool.Call, op string, req json.RawMessage) (json.RawMessage, error)
	// HTTP sends one request through the SSRF-safe client, within the
	// tool scope.
	HTTP func(ctx context.Context, call *tool.Call, req json.RawMessage) (json.RawMessage, error)
}

// ViewOps are the reads a plugin with the view capability may make,
// each answered by the bininspect_ tool of the same name.
var ViewOps = []string{"triage", "sections", "symbols", "imports", "exports", "functions", "function_info",
	"strings", "memory_read", "disassemble", "eval", "search_bytes", "address_info", "xrefs"}

// AnnotateOps are the writes a plugin with the annotate capability may
// make, each answered by the bininspect_ tool of the same name.
var AnnotateOps = []string{"comment_set", "comment_delete", "symbol_rename"}

// Error codes a plugin call can end with, beside the plugin's own.
const (
	CodePluginError   = "plugin_error"        // the plugin broke its contract (a bad result, an ABI misuse)
	CodeTimeout       = "plugin_timeout"      // the call ran past plugin_timeout
	CodeMemory        = "plugin_memory_limit" // the instance reached its memory ceiling
	CodeOutputTooBig  = "plugin_output_too_large"
	CodeNotGranted    = "capability_not_granted"
	CodeUnavailable   = "capability_unavailable"
	CodeBadHostCall   = "bad_host_call"
	CodeHostOutOfTurn = "host_call_out_of_turn"
)

// Per-call bounds on host functions.
const (
	maxHostRequest  = 64 << 10 // bytes of one host call's request
	maxHostResponse = 4 << 20  // bytes of one host call's answer
	maxHostCalls    = 10000    // host calls per tool call
	maxLogMessages  = 100      // log messages and warnings per call
	maxLogBytes     = 4096     // bytes of one log message
)

var codeRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// session is one tool call as the host functions see it.
type session struct {
	ctx   context.Context
	call  *tool.Call
	caps  map[string]bool // asked by the tool and granted to the plugin
	svc   *Services
	mu    sync.Mutex
	calls int
	logs  int
	done  bool
}

func newSession(ctx context.Context, call *tool.Call, asked []string, granted map[string]bool, svc *Services) *session {
	caps := map[string]bool{}
	for _, c := range asked {
		if granted[c] {
			caps[c] = true
		}
	}
	return &session{ctx: ctx, call: call, caps: caps, svc: svc}
}

// end closes the session: later host calls are out of turn.
func (s *session) end() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
}

// hostReply is what every host call answers: ok or error, never both.
type hostReply struct {
	OK    json.RawMessage `json:"ok,omitempty"`
	Error *hostError      `json:"error,omitempty"`
}

type hostError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func replyErr(code, msg string) []byte {
	b, _ := json.Marshal(hostReply{Error: &hostError{Code: code, Message: msg}})
	return b
}

func replyOK(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		return replyErr(tool.CodeInternal, "the answer could not be encoded")
	}
	b, _ := json.Marshal(hostReply{OK: raw})
	return b
}

// dispatch runs one host call and returns its reply (JSON). It never
// fails: a bad request is an error reply the plugin reads.
func (s *session) dispatch(op string, req []byte) []byte {
	if s == nil {
		return replyErr(CodeHostOutOfTurn, "host functions are available only while a tool call runs")
	}
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return replyErr(CodeHostOutOfTurn, "host functions are available only while a tool call runs")
	}
	s.calls++
	over := s.calls > maxHostCalls
	s.mu.Unlock()
	if over {
		return replyErr(CodeBadHostCall, "too many host calls in one tool call")
	}
	if len(req) > maxHostRequest {
		return replyErr(CodeBadHostCall, "host call request larger than 64 KiB")
	}
	if len(req) == 0 {
		req = []byte("{}")
	}
	if !json.Valid(req) || !strings.HasPrefix(strings.TrimSpace(string(req)), "{") {
		return replyErr(CodeBadHostCall, "host call request must be a JSON object")
	}
	switch op {
	case "cancelled":
		return replyOK(map[string]bool{"cancelled": s.ctx.Err() != nil})
	case "log":
		return s.log(req)
	case "warn":
		return s.warn(req)
	case "progress":
		return s.progress(req)
	case "http.request":
		if e := s.need(CapHTTP, s.svc.HTTP != nil); e != nil {
			return e
		}
		return s.forward(s.svc.HTTP(s.ctx, s.call, req))
	}
	if name, ok := strings.CutPrefix(op, "view."); ok && slices.Contains(ViewOps, name) {
		if e := s.need(CapView, s.svc.View != nil); e != nil {
			return e
		}
		return s.forward(s.svc.View(s.ctx, s.call, name, req))
	}
	if name, ok := strings.CutPrefix(op, "annotate."); ok && slices.Contains(AnnotateOps, name) {
		if e := s.need(CapAnnotate, s.svc.Annotate != nil); e != nil {
			return e
		}
		return s.forward(s.svc.Annotate(s.ctx, s.call, name, req))
	}
	return replyErr(CodeBadHostCall, "unknown host function "+quoteShort(op))
}

func (s *session) need(capName string, available bool) []byte {
	if !s.caps[capName] {
		return replyErr(CodeNotGranted, "this tool was not granted the "+capName+" capability (the manifest asks for it, the operator grants it)")
	}
	if !available {
		return replyErr(CodeUnavailable, "the "+capName+" capability is not available on this server")
	}
	return nil
}

func (s *session) forward(v json.RawMessage, err error) []byte {
	if err != nil {
		var e *errcode.Error
		if errors.As(err, &e) {
			return replyErr(e.Code, e.Message)
		}
		return replyErr(tool.CodeInternal, "the host function failed")
	}
	if len(v) > maxHostResponse {
		return replyErr(CodeOutputTooBig, "the answer is larger than 4 MiB; ask for less (a smaller page or range)")
	}
	b, _ := json.Marshal(hostReply{OK: v})
	return b
}

func (s *session) countLog() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logs++
	return s.logs <= maxLogMessages
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func (s *session) log(req []byte) []byte {
	if e := s.need(CapLog, true); e != nil {
		return e
	}
	var in struct {
		Level   string `json:"level"`
		Message string `json:"message"`
	}
	if json.Unmarshal(req, &in) != nil || !slices.Contains(logLevels, in.Level) {
		return replyErr(CodeBadHostCall, "log wants {level: debug|info|notice|warning|error|critical|alert|emergency, message}")
	}
	if !s.countLog() {
		return replyErr(CodeBadHostCall, "too many log messages and warnings in one call (100)")
	}
	s.call.Log(in.Level, map[string]string{"message": clip(in.Message, maxLogBytes)})
	return replyOK(struct{}{})
}

func (s *session) warn(req []byte) []byte {
	if e := s.need(CapLog, true); e != nil {
		return e
	}
	var in struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(req, &in) != nil || !codeRE.MatchString(in.Code) || in.Message == "" {
		return replyErr(CodeBadHostCall, "warn wants {code: snake_case, message}")
	}
	if !s.countLog() {
		return replyErr(CodeBadHostCall, "too many log messages and warnings in one call (100)")
	}
	s.call.Warn(in.Code, clip(in.Message, maxLogBytes))
	return replyOK(struct{}{})
}

func (s *session) progress(req []byte) []byte {
	if e := s.need(CapProgress, true); e != nil {
		return e
	}
	var in struct {
		Progress float64 `json:"progress"`
		Total    float64 `json:"total"`
		Message  string  `json:"message"`
	}
	if json.Unmarshal(req, &in) != nil || in.Progress < 0 || in.Total < 0 {
		return replyErr(CodeBadHostCall, "progress wants {progress >= 0, total >= 0, message}")
	}
	s.call.Progress(in.Progress, in.Total, clip(in.Message, 256))
	return replyOK(struct{}{})
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func quoteShort(s string) string {
	return `"` + clip(strings.ToValidUTF8(s, "?"), 64) + `"`
}
