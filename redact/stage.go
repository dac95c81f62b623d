package redact

import (
	"context"
	"crypto/rand"
	"log/slog"

	"github.com/warden-mcp/warden/tool"
)

// CodeRedactionFailed is the error code of a result the privacy stage
// withheld because it could not be checked for secrets.
const CodeRedactionFailed = "redaction_failed"

// StageOptions configure a Stage. The zero value is Balanced for everyone
// with pseudonyms keyed for this process only.
type StageOptions struct {
	// Mode is the server's privacy mode. Zero: Balanced.
	Mode Mode
	// Tenants gives tenants a mode of their own, in place of Mode for
	// their callers. Nil: none.
	Tenants map[string]Mode
	// PseudonymKey keys Strict's pseudonyms, so that they hold across
	// restarts and replicas that share it. Nil: a random key for this
	// process.
	PseudonymKey []byte
	// Logger receives the cause of a withheld result. Nil discards.
	Logger *slog.Logger
}

// Stage is the privacy stage of the call path: it picks the caller's mode
// (its tenant's, or the server's), hands the SDK's typed pass that mode's
// Field for every string a tool's output type tags with a privacy kind,
// and runs the text pass (Result) over whatever the tool returned. It is
// the innermost stage, next to the handler, so every other stage sees the
// redacted result. Build one at start-up and share it.
type Stage struct {
	byMode  map[Mode]*Redactor
	server  Mode
	tenants map[string]Mode
	log     *slog.Logger
}

// NewStage builds one Redactor per mode the options use.
func NewStage(o *StageOptions) (*Stage, error) {
	if o == nil {
		o = &StageOptions{}
	}
	key := o.PseudonymKey
	if key == nil {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	s := &Stage{byMode: map[Mode]*Redactor{}, server: o.Mode, tenants: map[string]Mode{}, log: o.Logger}
	if s.server == "" {
		s.server = Balanced
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	add := func(m Mode) error {
		if s.byMode[m] != nil {
			return nil
		}
		r, err := New(&Options{Mode: m, PseudonymKey: key})
		if err != nil {
			return err
		}
		s.byMode[m] = r
		return nil
	}
	// Balanced is always built: approval questions hide credentials
	// whatever the mode (Questions).
	if err := add(Balanced); err != nil {
		return nil, err
	}
	if err := add(s.server); err != nil {
		return nil, err
	}
	for tenant, m := range o.Tenants {
		if err := add(m); err != nil {
			return nil, err
		}
		s.tenants[tenant] = m
	}
	return s, nil
}

// ForTenant returns the redactor of a tenant's mode: its own, or the
// server's.
func (s *Stage) ForTenant(tenant string) *Redactor {
	if m, ok := s.tenants[tenant]; ok {
		return s.byMode[m]
	}
	return s.byMode[s.server]
}

// ForCall returns the redactor of the call's caller (Call.Caller, set by
// the entitlement stage), or the server's when the caller is not known.
func (s *Stage) ForCall(c *tool.Call) *Redactor {
	if who, ok := c.Caller(); ok {
		return s.ForTenant(who.Tenant)
	}
	return s.byMode[s.server]
}

// Questions is the Balanced redactor, whatever the modes: an approval
// question never repeats a credential.
func (s *Stage) Questions() *Redactor { return s.byMode[Balanced] }

type stageKey struct{}

// FromContext returns the redactor the privacy stage chose for the call in
// progress, for tools that redact what the typed pass cannot see (bytes
// cut by a read window, a form field named password).
func FromContext(ctx context.Context) (*Redactor, bool) {
	r, ok := ctx.Value(stageKey{}).(*Redactor)
	return r, ok
}

// Middleware is the stage as a tool.Middleware. A result the text pass
// cannot check (too large, malformed structured content) is withheld with
// CodeRedactionFailed: fail closed.
func (s *Stage) Middleware() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, c *tool.Call) tool.Outcome {
			r := s.ForCall(c)
			if r.Mode() != Off {
				c.SetRedactor(r.Field)
			}
			out := next(context.WithValue(ctx, stageKey{}, r), c)
			if out.Result == nil {
				return out
			}
			res, err := r.Result(out.Result)
			if err != nil {
				s.log.LogAttrs(ctx, slog.LevelError, "result not redacted; refused",
					slog.String("tool", c.ToolName()), slog.String("cause", err.Error()))
				return tool.Outcome{Result: tool.ErrorResult(c.Tool(),
					&tool.Error{Code: CodeRedactionFailed, Message: "the result could not be checked for secrets, so it is withheld"})}
			}
			out.Result = res
			return out
		}
	}
}
