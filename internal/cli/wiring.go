package cli

import (
	"context"
	"log/slog"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/policy"
	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/toolset"
)

// This file is the one place that decides what Warden serves: which tool
// families are registered, in which edition, and with which controls
// around every call. stdio and HTTP share it; hosted.go builds the
// controls.

const instructions = "Warden offers security tools. Secret-scanning tools never echo a secret: " +
	"findings carry a type, a severity and a fingerprint only. Website scans reach public " +
	"addresses only. Tool errors carry a stable code before the colon."

// wired is a ready server and what it was built from.
type wired struct {
	reg   *tool.Registry
	srv   *mcp.Server
	gates *policy.Gates
}

// wireOptions are the choices a command makes about the server.
type wireOptions struct {
	logger *slog.Logger
	// stateDir holds the keys made on first start; "" keeps nothing
	// (fingerprints then hold for this process only).
	stateDir string
	// controls are the entitlement, limit and audit hooks; nil serves
	// without them (listing tools, tests).
	controls *controls
	// cfg carries the tools block, privacy and approvals; its zero value
	// is the safe default (unsafe tools off, balanced, elicit).
	cfg Config
}

func wire(o wireOptions) (*wired, error) {
	reg := tool.NewRegistry()
	// The gates are built from the registry, after registration; tools
	// that check hops against the scope reach them through this, and
	// refuse every host until they exist.
	var gates *policy.Gates
	native := &toolset.Native{Version: Version(), Edition: string(edition), CorrelationID: mcp.CorrelationID}
	deps := toolset.Deps{Logger: o.logger, Native: native, InScope: func(host string) bool { return gates != nil && gates.InScope(host) }}
	if o.stateDir != "" {
		key, err := loadOrCreateKey(o.stateDir, "fingerprint.key")
		if err != nil {
			return nil, err
		}
		deps.FingerprintKey = key
	}
	if err := toolset.Register(reg, deps, toolset.Selection{Edition: edition}); err != nil {
		return nil, err
	}
	var stateKey []byte
	if o.stateDir != "" {
		// Input rounds are sealed with this key; replicas that share it
		// (a shared state directory, or the same file copied) can finish
		// each other's rounds.
		key, err := loadOrCreateKey(o.stateDir, "request-state.key")
		if err != nil {
			return nil, err
		}
		stateKey = key
	}
	opts := &mcp.Options{
		StateKey:     stateKey,
		Name:         "warden",
		Title:        "Warden",
		Version:      Version(),
		Instructions: instructions,
		Logger:       o.logger,
		Tasks:        true, // website scans take seconds: clients that can, poll
	}
	var grants approval.Store
	if o.controls != nil {
		grants = o.controls.store
	}
	var err error
	gates, err = policy.NewGates(reg, o.cfg.catalog(), grants)
	if err != nil {
		return nil, err
	}
	if err := wireNative(native, o, gates); err != nil {
		return nil, err
	}
	if o.controls != nil {
		o.controls.policy.Gates = gates
		opts.Hooks = o.controls.policy.Hooks()
		opts.Admit = o.controls.policy.Admit
		opts.Visible = o.controls.policy.Visible
	}
	return &wired{reg: reg, srv: mcp.NewServer(reg, opts), gates: gates}, nil
}

// wireNative gives the warden_ tools what they read about the server:
// who calls, what the gates say, the limits, the audit trail, the
// findings store and the caller's privacy mode. Without controls (a
// registry built to list tools) they know the build and the gates only.
func wireNative(n *toolset.Native, o wireOptions, gates *policy.Gates) error {
	modes, err := newPrivacyResolver(o.cfg, o.stateDir)
	if err != nil {
		return err
	}
	n.Approvals = gates.Approvals()
	n.Gate = func(ctx context.Context, t *tool.Tool) *tool.Error { return gates.Status(t) }
	n.Privacy = func(ctx context.Context) *redact.Redactor { return modes.forCall(ctx, nil) }
	if o.controls == nil {
		return nil
	}
	pc := o.controls.policy
	tenant := func(ctx context.Context) (string, bool) {
		p, ok := pc.Caller(ctx)
		return p.Tenant, ok
	}
	n.Caller = func(ctx context.Context) (toolset.Caller, bool) {
		p, ok := pc.Caller(ctx)
		return toolset.Caller{Credential: policy.CredentialOf(p), Tenant: p.Tenant}, ok
	}
	n.Gate = func(ctx context.Context, t *tool.Tool) *tool.Error {
		if e := gates.Status(t); e != nil {
			return e
		}
		if p, ok := pc.Caller(ctx); !ok || !p.Entitled(t.Name) {
			return &tool.Error{Code: policy.CodeForbidden, Message: "this credential is not entitled to " + t.Name + "; the token's entitlements must include it"}
		}
		return nil
	}
	n.Privacy = func(ctx context.Context) *redact.Redactor { return modes.forCall(ctx, tenant) }
	n.TransportLimited = o.controls.transport
	n.Usage = o.controls.lim.Usage
	n.Audit = o.controls.lim.QueryAudit
	n.Findings = o.controls.store
	return nil
}
