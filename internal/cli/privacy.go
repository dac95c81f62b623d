package cli

import (
	"context"
	"crypto/rand"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/tool"
)

// privacy applies the configured privacy mode to every result: the server's
// mode, or the caller's tenant's when the configuration overrides it.
type tenantPrivacy struct {
	byMode  map[redact.Mode]*redact.Redactor
	server  redact.Mode
	tenants map[string]redact.Mode
	// questions hides credentials in approval questions whatever the
	// mode: a question never repeats a secret.
	questions *redact.Redactor
	// tenantOf finds a call's tenant (the policy's caller, the local user
	// on stdio); nil reads the verified principal only.
	tenantOf func(ctx context.Context) (string, bool)
}

// newPrivacy builds one redactor per mode the configuration uses. key
// keys strict mode's pseudonyms; nil makes one for this process only.
func newPrivacy(cfg Config, key []byte) (*tenantPrivacy, error) {
	if key == nil {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	p := &tenantPrivacy{byMode: map[redact.Mode]*redact.Redactor{}, tenants: map[string]redact.Mode{}}
	mode := func(s string) (redact.Mode, error) {
		m, err := redact.ParseMode(s)
		if err != nil {
			return "", err
		}
		if p.byMode[m] == nil {
			r, err := redact.New(&redact.Options{Mode: m, PseudonymKey: key})
			if err != nil {
				return "", err
			}
			p.byMode[m] = r
		}
		return m, nil
	}
	var err error
	if p.server, err = mode(cfg.Privacy); err != nil {
		return nil, err
	}
	for tenant, tc := range cfg.Tenants {
		if tc.Privacy == "" {
			continue
		}
		if p.tenants[tenant], err = mode(tc.Privacy); err != nil {
			return nil, err
		}
	}
	if _, err := mode(string(redact.Balanced)); err != nil {
		return nil, err
	}
	p.questions = p.byMode[redact.Balanced]
	return p, nil
}

// forCall returns the redactor of the caller's tenant (the local user on
// stdio).
func (p *tenantPrivacy) forCall(ctx context.Context) *redact.Redactor {
	tenant, ok := "", false
	if p.tenantOf != nil {
		tenant, ok = p.tenantOf(ctx)
	} else if pr, found := auth.PrincipalFrom(ctx); found {
		tenant, ok = pr.Tenant, true
	}
	if m, found := p.tenants[tenant]; ok && found {
		return p.byMode[m]
	}
	return p.byMode[p.server]
}

// forTenant returns the redactor of a tenant's mode: its own, or the
// server's.
func (p *tenantPrivacy) forTenant(tenant string) *redact.Redactor {
	if m, ok := p.tenants[tenant]; ok {
		return p.byMode[m]
	}
	return p.byMode[p.server]
}

// field is the typed pass (mcp.Options.Redactor): nil when the mode is off.
func (p *tenantPrivacy) field(ctx context.Context) tool.Redactor {
	r := p.forCall(ctx)
	if r.Mode() == redact.Off {
		return nil
	}
	return r.Field
}

// result is the text pass over everything a tool returned
// (policy.Controls.Redact).
func (p *tenantPrivacy) result(ctx context.Context, _ *tool.Tool, res *tool.Result) (*tool.Result, error) {
	return p.forCall(ctx).Result(res)
}

// hide replaces credentials in one string (policy.Controls.HideSecrets),
// those glued to a word before them too.
func (p *tenantPrivacy) hide(s string) string {
	return p.questions.Hide(s)
}
