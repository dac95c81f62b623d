package toolset

import (
	"context"
	"sync"
	"time"

	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/tool"
)

// The warden_ family: the server's own native tools. They read the
// server's state through Native, which the wiring fills; a tool whose
// dependency is missing (a registry built only to list tools) answers
// with an *_unavailable code. One file per tool.

// Native is what the warden_ tools know of the server they run in.
type Native struct {
	// Version and Edition describe the build.
	Version, Edition string
	// Gate says why the caller may not call t (the configuration's gates
	// and the credential's entitlements), or nil when it may.
	Gate func(ctx context.Context, t *tool.Tool) *tool.Error
	// Approvals is the approval mode: elicit or client.
	Approvals string
	// TransportLimited says requests pass the per-credential rate limit.
	TransportLimited bool
	// Usage reads a caller's standing against the limits without taking
	// anything; key is Caller.LimitsKey.
	Usage func(ctx context.Context, key string) (limits.Usage, error)
	// Audit queries the audit trail.
	Audit func(ctx context.Context, f limits.AuditFilter) ([]limits.AuditRecord, error)
	// Findings stores findings.
	Findings finding.Store
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
}

// Caller is who calls.
type Caller struct {
	Credential, Tenant string
	// LimitsKey is the key the limits keep the caller's usage under
	// (issuer, tenant and credential together; policy.CallerKey). Empty:
	// Credential.
	LimitsKey string
}

// limitsKey is the key to read the caller's usage under.
func (c Caller) limitsKey() string {
	if c.LimitsKey != "" {
		return c.LimitsKey
	}
	return c.Credential
}

func (n *Native) now() time.Time {
	if n.Now != nil {
		return n.Now()
	}
	return time.Now()
}

// caller is who the call runs for, as the entitlement stage recorded it on
// the call.
func (n *Native) caller(call *tool.Call) (Caller, *tool.Error) {
	if c, ok := call.Caller(); ok && c.Credential != "" {
		return Caller{Credential: c.Credential, Tenant: c.Tenant, LimitsKey: c.Key}, nil
	}
	return Caller{}, &tool.Error{Code: "caller_unknown", Message: "this server cannot tell who calls, so it keeps nothing for the call"}
}

// findingsTenant is the tenant findings are kept under: a credential
// without a tenant shares "default" with the others without one.
func (c Caller) findingsTenant() string {
	if c.Tenant == "" {
		return "default"
	}
	return c.Tenant
}

// balanced is the privacy redactor when the wiring gives none, built on
// first use: a package variable would build KeySweep's keyword automaton
// in every command at start, before main.
var balanced = sync.OnceValue(func() *redact.Redactor {
	r, _ := redact.New(nil)
	return r
})

// privacy is the caller's privacy redactor, as the privacy stage chose it
// (its tenant's mode); balanced without the stage. The byte tools and
// http_parse read it too: a credential cut by a read window, and a form
// field named password, need context the typed field pass does not have.
func (n *Native) privacy(ctx context.Context) *redact.Redactor {
	if r, ok := redact.FromContext(ctx); ok && r != nil {
		return r
	}
	return balanced()
}

func wardenTools(deps Deps) ([]*tool.Tool, error) {
	n := deps.Native
	if n == nil {
		n = &Native{}
	}
	var out []*tool.Tool
	for _, build := range []func(*Native, *tool.Registry) (*tool.Tool, error){
		wardenStatusTool, wardenRedactPreviewTool, wardenFindingsRecordTool, wardenFindingsListTool, wardenAuditQueryTool,
	} {
		t, err := build(n, deps.registry)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// wardenCatalog is the catalog of the read-only warden_ tools.
var wardenCatalog = tool.Catalog{Category: "warden", Trust: tool.TrustAuto}
