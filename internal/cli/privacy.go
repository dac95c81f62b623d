package cli

import (
	"context"
	"crypto/rand"

	"github.com/warden-mcp/warden/redact"
)

// privacyResolver resolves a call's privacy redactor: its tenant's mode when
// the configuration names one (tenants.<t>.privacy), else the server's.
// One redactor per mode, built at start-up and shared.
type privacyResolver struct {
	server  string
	tenants map[string]string
	byMode  map[string]*redact.Redactor
}

// newPrivacyResolver builds the redactors. Strict pseudonyms are keyed by
// pseudonym.key in the state directory (made on first start), so equal
// values keep equal pseudonyms across restarts and replicas; without a
// state directory the key lives as long as the process.
func newPrivacyResolver(cfg Config, stateDir string) (*privacyResolver, error) {
	p := &privacyResolver{server: cfg.Privacy, tenants: map[string]string{}, byMode: map[string]*redact.Redactor{}}
	if p.server == "" {
		p.server = string(redact.Balanced)
	}
	var key []byte
	if stateDir != "" {
		k, err := loadOrCreateKey(stateDir, "pseudonym.key")
		if err != nil {
			return nil, err
		}
		key = k
	} else {
		key = make([]byte, 32)
		rand.Read(key)
	}
	modes := []string{p.server}
	for name, tc := range cfg.Tenants {
		if tc.Privacy != "" {
			p.tenants[name] = tc.Privacy
			modes = append(modes, tc.Privacy)
		}
	}
	for _, m := range modes {
		if p.byMode[m] != nil {
			continue
		}
		r, err := redact.New(&redact.Options{Mode: redact.Mode(m), PseudonymKey: key})
		if err != nil {
			return nil, err
		}
		p.byMode[m] = r
	}
	return p, nil
}

// forTenant is the redactor of a tenant's calls.
func (p *privacyResolver) forTenant(tenant string) *redact.Redactor {
	if m, ok := p.tenants[tenant]; ok {
		return p.byMode[m]
	}
	return p.byMode[p.server]
}

// forCall is the redactor of the call in ctx, given how to find its tenant.
func (p *privacyResolver) forCall(ctx context.Context, tenant func(context.Context) (string, bool)) *redact.Redactor {
	if tenant != nil {
		if t, ok := tenant(ctx); ok {
			return p.forTenant(t)
		}
	}
	return p.byMode[p.server]
}
