package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/warden-mcp/warden/internal/jsonwalk"
	"github.com/warden-mcp/warden/tool"
)

func (s *Server) promptsList(x *exchange, p *params) ([]byte, *Error) {
	all := s.features.sortedPrompts()
	start, end, next, err := s.page(p.cursor, len(all))
	if err != nil {
		return nil, err
	}
	return s.listBody(x, "prompts", all[start:end], next)
}

func (s *Server) resourcesList(x *exchange, p *params) ([]byte, *Error) {
	all := s.features.sortedResources()
	start, end, next, err := s.page(p.cursor, len(all))
	if err != nil {
		return nil, err
	}
	return s.listBody(x, "resources", all[start:end], next)
}

func (s *Server) templatesList(x *exchange, p *params) ([]byte, *Error) {
	all := s.features.sortedTemplates()
	start, end, next, err := s.page(p.cursor, len(all))
	if err != nil {
		return nil, err
	}
	return s.listBody(x, "resourceTemplates", all[start:end], next)
}

func (s *Server) listBody(x *exchange, key string, items any, next string) ([]byte, *Error) {
	ib, err := json.Marshal(items)
	if err != nil {
		return nil, rpcErr(CodeInternalError, KindInternal, "internal error")
	}
	b := make([]byte, 0, len(ib)+64)
	b = append(b, `{"`+key+`":`...)
	b = append(b, ib...)
	b = appendNext(b, next)
	b = append(b, '}')
	return s.finish(x, b, true), nil
}

// guard runs a feature handler, turning a panic into an internal error.
func (s *Server) guard(ctx context.Context, what string, fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.LogAttrs(ctx, slog.LevelError, "handler panicked", slog.String("what", what),
				slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			err = errors.New("panic")
		}
	}()
	return fn()
}

// featureError maps what a prompt or resource handler returned.
func (s *Server) featureError(ctx context.Context, x *exchange, r *rounds, it *tool.Interrupt, err error, uri string) ([]byte, *Error) {
	if it != nil {
		return s.interrupted(x, r, it)
	}
	if errors.Is(err, ErrResourceNotFound) {
		return nil, resourceNotFound(x, uri)
	}
	var te *tool.Error
	if errors.As(err, &te) {
		e := rpcErr(CodeInvalidParams, KindAnswer, te.Code+": "+te.Message)
		return nil, e
	}
	s.log.LogAttrs(ctx, slog.LevelError, "handler failed", slog.String("error", err.Error()))
	return nil, rpcErr(CodeInternalError, KindInternal, "internal error")
}

func resourceNotFound(x *exchange, uri string) *Error {
	code := CodeInvalidParams
	if !x.modern {
		code = CodeResourceNotFound
	}
	e := rpcErr(code, KindAnswer, "resource not found")
	e.Data = map[string]string{"uri": uri}
	return e
}

func (s *Server) promptsGet(ctx context.Context, x *exchange, m *Message, p *params) ([]byte, *Error) {
	name, ok := nameOf(p.name)
	if !ok {
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: name must be a string")
	}
	pr, ok := s.features.prompt(name)
	if !ok {
		return nil, rpcErr(CodeInvalidParams, KindAnswer, "unknown prompt: "+quoteName(name))
	}
	args := map[string]string{}
	if len(p.arguments) > 0 && !jsonwalk.IsNull(p.arguments) {
		if err := json.Unmarshal(p.arguments, &args); err != nil {
			return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: prompt arguments must be an object of strings")
		}
	}
	for _, a := range pr.Arguments {
		if _, given := args[a.Name]; a.Required && !given {
			return nil, rpcErr(CodeInvalidParams, KindAnswer, "missing required argument "+quoteName(a.Name))
		}
	}
	var r *rounds
	if x.modern {
		var err *Error
		if r, err = s.beginRounds(ctx, "prompts/get", name, p.arguments, p); err != nil {
			return nil, err
		}
	}
	var res *PromptResult
	it, err := tool.Serve(ctx, name, s.callEnv(ctx, x, r), func(ctx context.Context, call *tool.Call) error {
		return s.guard(ctx, "prompt "+name, func() error {
			var err error
			res, err = pr.Get(ctx, call, args)
			return err
		})
	})
	if it != nil || err != nil {
		return s.featureError(ctx, x, r, it, err, "")
	}
	if res == nil {
		return nil, rpcErr(CodeInternalError, KindInternal, "internal error")
	}
	if res.Messages == nil {
		res.Messages = []PromptMessage{}
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		return nil, rpcErr(CodeInternalError, KindInternal, "internal error")
	}
	return s.finish(x, b, false), nil
}

func (s *Server) resourcesRead(ctx context.Context, x *exchange, p *params) ([]byte, *Error) {
	uri, ok := nameOf(p.uri)
	if !ok || uri == "" {
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: uri must be a string")
	}
	res, tmpl, vars := s.features.findResource(uri)
	if res == nil && tmpl == nil {
		return nil, resourceNotFound(x, uri)
	}
	var r *rounds
	if x.modern {
		var err *Error
		if r, err = s.beginRounds(ctx, "resources/read", uri, nil, p); err != nil {
			return nil, err
		}
	}
	var contents []tool.ResourceContents
	it, err := tool.Serve(ctx, uri, s.callEnv(ctx, x, r), func(ctx context.Context, call *tool.Call) error {
		return s.guard(ctx, "resource", func() error {
			var err error
			if res != nil {
				contents, err = res.Read(ctx, call, uri)
			} else {
				contents, err = tmpl.Read(ctx, call, uri, vars)
			}
			return err
		})
	})
	if it != nil || err != nil {
		return s.featureError(ctx, x, r, it, err, uri)
	}
	if len(contents) == 0 {
		return nil, resourceNotFound(x, uri)
	}
	b, merr := json.Marshal(struct {
		Contents []tool.ResourceContents `json:"contents"`
	}{contents})
	if merr != nil {
		return nil, rpcErr(CodeInternalError, KindInternal, "internal error")
	}
	return s.finish(x, b, true), nil
}

func (s *Server) complete(x *exchange, m *Message) ([]byte, *Error) {
	var req struct {
		Ref struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
		Context struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	if err := json.Unmarshal(m.Params, &req); err != nil {
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: malformed completion request")
	}
	var values []string
	switch req.Ref.Type {
	case "ref/prompt":
		pr, ok := s.features.prompt(req.Ref.Name)
		if !ok {
			return nil, rpcErr(CodeInvalidParams, KindAnswer, "unknown prompt: "+quoteName(req.Ref.Name))
		}
		for _, a := range pr.Arguments {
			if a.Name == req.Argument.Name && a.Complete != nil {
				values = a.Complete(req.Argument.Value, req.Context.Arguments)
			}
		}
	case "ref/resource":
		for _, t := range s.features.sortedTemplates() {
			if t.URITemplate == req.Ref.URI && t.Complete != nil {
				values = t.Complete(req.Argument.Name, req.Argument.Value)
			}
		}
	default:
		return nil, rpcErr(CodeInvalidParams, KindInvalid, "invalid params: ref.type must be ref/prompt or ref/resource")
	}
	sort.Strings(values)
	total := len(values)
	hasMore := false
	if len(values) > 100 {
		values, hasMore = values[:100], true
	}
	if values == nil {
		values = []string{}
	}
	b, _ := json.Marshal(map[string]any{"completion": map[string]any{"values": values, "total": total, "hasMore": hasMore}})
	return s.finish(x, b, false), nil
}

// PrefixCompleter suggests the values that start with the prefix.
func PrefixCompleter(values ...string) func(prefix string, _ map[string]string) []string {
	return func(prefix string, _ map[string]string) []string {
		var out []string
		for _, v := range values {
			if strings.HasPrefix(v, prefix) {
				out = append(out, v)
			}
		}
		return out
	}
}
