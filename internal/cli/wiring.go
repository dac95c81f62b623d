package cli

import (
	"log/slog"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/policy"
	"github.com/warden-mcp/warden/statestore"
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
	// outer hooks wrap every call outside the controls' (a trace span).
	outer []mcp.CallHook
	// stateKey and fingerprintKey, when set, are the keys shared by every
	// replica (keys.go); nil takes them from stateDir.
	stateKey, fingerprintKey []byte
	// state keeps legacy sessions, tasks and stream events; nil keeps
	// them in this process's memory.
	state statestore.Store
}

func wire(o wireOptions) (*wired, error) {
	reg := tool.NewRegistry()
	deps := toolset.Deps{Logger: o.logger, FingerprintKey: o.fingerprintKey}
	if o.stateDir != "" && deps.FingerprintKey == nil {
		key, err := loadOrCreateKey(o.stateDir, "fingerprint.key")
		if err != nil {
			return nil, err
		}
		deps.FingerprintKey = key
	}
	if err := toolset.Register(reg, deps, toolset.Selection{Edition: edition}); err != nil {
		return nil, err
	}
	stateKey := o.stateKey
	if o.stateDir != "" && stateKey == nil {
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
		State:        o.state,
	}
	var grants approval.Store
	if o.controls != nil {
		grants = o.controls.store
	}
	gates, err := policy.NewGates(reg, o.cfg.catalog(), grants)
	if err != nil {
		return nil, err
	}
	if o.controls != nil {
		o.controls.policy.Gates = gates
		opts.Hooks = append(append([]mcp.CallHook(nil), o.outer...), o.controls.policy.Hooks()...)
		opts.Admit = o.controls.policy.Admit
		opts.Visible = o.controls.policy.Visible
	}
	return &wired{reg: reg, srv: mcp.NewServer(reg, opts), gates: gates}, nil
}
