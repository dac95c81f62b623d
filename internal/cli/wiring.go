package cli

import (
	"context"
	"log/slog"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/binview/isolate"
	"github.com/warden-mcp/warden/internal/toolset"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/policy"
	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/statestore"
	"github.com/warden-mcp/warden/tool"
)

// This file is the one place that decides what Warden serves: which tool
// families are registered, in which edition, and with which controls
// around every call. stdio and HTTP share it; hosted.go builds the
// controls.

const instructions = "Warden offers security tools. Secret-scanning tools never echo a secret: " +
	"findings carry a type, a severity and a fingerprint only. Website scans reach public " +
	"addresses only. Binary tools (bininspect_) start with bininspect_open, which returns a view " +
	"handle to pass as view; addresses are hex strings and address parameters take expressions " +
	"such as main+0x10. Tool errors carry a stable code before the colon."

// wired is a ready server and what it was built from.
type wired struct {
	reg    *tool.Registry
	srv    *mcp.Server
	gates  *policy.Gates
	binary *toolset.BinaryViews
	// plugins are the loaded plugins, pluginErrs the refused ones.
	plugins    *pluginSet
	pluginErrs []error
}

// wireOptions are the choices a command makes about the server.
type wireOptions struct {
	logger *slog.Logger
	// stateDir holds the keys made on first start; "" keeps nothing
	// (fingerprints then hold for this process only).
	stateDir string
	// controls are the entitlement, limit and audit stages; nil serves
	// without them (listing tools, tests).
	controls *controls
	// cfg carries the tools block, privacy and approvals; its zero value
	// is the safe default (unsafe tools off, balanced, elicit).
	cfg Config
	// isolateEnv is the environment of the analysis child; nil (an empty
	// environment) except in tests, which re-execute the test binary.
	isolateEnv []string
	// outer stages wrap every call outside the controls' (a trace span).
	outer []tool.Middleware
	// keys are the keys shared by every replica (keys.go); a nil key is
	// taken from stateDir.
	keys keySet
	// state keeps legacy sessions, tasks and stream events; nil keeps
	// them in this process's memory.
	state statestore.Store
	// consoleURL is the origin of a served console: calls that need an
	// approval a client cannot ask for get a link there. "": no console.
	consoleURL string
}

// wire builds the server in dependency order, changing nothing it was
// given: the gates (which tools consult: a redirect against the scope, a
// raw read against another tool's switch), the privacy stage, the
// controls' stages over both, the tools, the gates' names checked against
// them, then the server with its call path.
func wire(o wireOptions) (*wired, error) {
	var grants approval.Store
	if o.controls != nil {
		grants = o.controls.store
	}
	catalog := o.cfg.catalog()
	catalog.ConsoleURL = o.consoleURL
	gates, err := policy.PrepareGates(catalog, grants)
	if err != nil {
		return nil, err
	}
	// Strict mode's pseudonyms stay equal across restarts and replicas
	// that share this key.
	pseudonymKey, err := o.keys.key(o.keys.pseudonym, o.stateDir, pseudonymKeyName)
	if err != nil {
		return nil, err
	}
	priv, err := newPrivacy(o.cfg, pseudonymKey, o.logger)
	if err != nil {
		return nil, err
	}
	// The controls' call stages over these gates; nil without controls
	// (a registry built to list tools).
	var stages *policy.Stages
	if o.controls != nil {
		stages = o.controls.policy.Stages(gates, priv.Questions())
	}
	reg := tool.NewRegistry()
	native := &toolset.Native{Version: Version(), Edition: string(edition)}
	deps := toolset.Deps{Logger: o.logger, Native: native, InScope: gates.InScope, Workspace: o.cfg.Keysweep.Workspace}
	// The client's roots name the client's machine: only a local server,
	// which shares it, reads under them.
	deps.ClientRoots = o.controls == nil || o.controls.profile == profileLocal
	if o.controls != nil {
		// Annotations on binaries live in the same store as the
		// limits: per tenant, across restarts and replicas.
		deps.Annotations = toolset.NewAnnotationLayer(o.controls.store)
	}
	if deps.FingerprintKey, err = o.keys.key(o.keys.fingerprint, o.stateDir, fingerprintKeyName); err != nil {
		return nil, err
	}
	bo, err := binaryOptions(o)
	if err != nil {
		return nil, err
	}
	bo.Annotations = deps.Annotations
	// Raw reads of a file's bytes, in any tool, follow whether
	// bininspect_memory_read may run for the caller: its switch in
	// tools.disable and the caller's entitlement to it.
	bo.MemoryRead = func(ctx context.Context) bool {
		t, ok := reg.Lookup("bininspect_memory_read")
		switch {
		case !ok:
			return false
		case stages != nil:
			return stages.Visible(ctx, t)
		}
		return gates.Status(t) == nil
	}
	// Memory reads in address expressions follow the caller's privacy
	// mode: the redactor the privacy stage put in the call's context.
	bo.Privacy = func(ctx context.Context) *redact.Redactor {
		if r, ok := redact.FromContext(ctx); ok {
			return r
		}
		return nil
	}
	if deps.Binary, err = toolset.NewBinaryViews(bo); err != nil {
		return nil, err
	}
	if err := toolset.Register(reg, deps, toolset.Selection{Edition: edition}); err != nil {
		return nil, err
	}
	// A plugin's host functions run built-in tools (view reads,
	// annotations, HTTP) only where the call's caller could call them.
	plugins, pluginErrs := loadPlugins(o, reg, deps.Binary, func(ctx context.Context, t *tool.Tool) bool {
		if stages != nil {
			return stages.Visible(ctx, t)
		}
		return gates.Status(t) == nil
	})
	if err := gates.Check(reg); err != nil {
		plugins.close()
		return nil, err
	}
	// Input rounds are sealed with this key; replicas that share it can
	// finish each other's rounds.
	stateKey, err := o.keys.key(o.keys.requestState, o.stateDir, requestStateKeyName)
	if err != nil {
		return nil, err
	}
	opts := &mcp.Options{
		StateKey:     stateKey,
		Name:         "warden",
		Title:        "Warden",
		Version:      Version(),
		Instructions: instructions,
		Logger:       o.logger,
		Tasks:        true, // website scans and large binaries take seconds: clients that can, poll
		State:        o.state,
	}
	if len(o.cfg.Plugins.Dirs) > 0 {
		// Plugins come and go without a restart: a 2026-07-28 client,
		// which caches tools/list for ttlMs and has no session to be told,
		// keeps the list no longer than the plugins are looked at.
		opts.ListTTL = max(time.Duration(o.cfg.Plugins.ReloadInterval), time.Second)
		if o.cfg.Plugins.ReloadInterval <= 0 {
			opts.ListTTL = 2 * time.Second
		}
	}
	wireNative(native, o, gates)
	// The call path, outermost first: trace, then the controls (audit,
	// enabled, entitlement, scope, approval, admission), then the privacy
	// stage next to the handler (docs/architecture.md).
	opts.Middleware = append(opts.Middleware, o.outer...)
	if stages != nil {
		opts.Middleware = append(opts.Middleware, stages.Middleware()...)
		opts.Visible = stages.Visible
	}
	opts.Middleware = append(opts.Middleware, priv.Middleware())
	return &wired{reg: reg, srv: mcp.NewServer(reg, opts), gates: gates, binary: deps.Binary,
		plugins: plugins, pluginErrs: pluginErrs}, nil
}

// binaryOptions are the binary views of a server: its roots and limits
// from the bininspect block, the profile's defaults for the rest, the
// store and the handle key every replica shares, and where analyses run:
// a hosted server analyses in a child process (warden analyze-worker)
// under memory, CPU and wall-clock limits, the file's parse and its code
// analysis both, so that a hostile file can fail only its own call; a
// local one in process unless told otherwise. Either way the code
// analysis keeps to the same budget (bininspect.analysis_limits).
func binaryOptions(o wireOptions) (toolset.BinaryOptions, error) {
	c := o.cfg.Bininspect
	prof := profileLocal
	var local *auth.Principal
	if o.controls != nil {
		prof, local = o.controls.profile, o.controls.policy.Local
	}
	bo := toolset.BinaryOptions{
		Roots:           c.Roots,
		MaxFileSize:     c.MaxFileBytes,
		MaxViews:        c.MaxViews,
		ViewIdle:        time.Duration(c.ViewIdle),
		AnalysisTimeout: time.Duration(c.AnalysisTimeout),
		AnalysisLimits:  c.AnalysisLimits.limits(),
		UploadQuota:     c.UploadQuotaBytes,
		Logger:          o.logger,
		Principal: func(ctx context.Context) (auth.Principal, bool) {
			if p, ok := auth.PrincipalFrom(ctx); ok {
				return p, true
			}
			if local != nil {
				return *local, true // warden stdio's local user
			}
			return auth.Principal{}, false
		},
	}
	if prof == profileLocal {
		if bo.MaxFileSize == 0 {
			bo.MaxFileSize = binview.LocalMaxFileSize
		}
		if bo.UploadQuota == 0 {
			bo.UploadQuota = -1
		}
	}
	if o.controls != nil {
		bo.Store = o.controls.store
	}
	key, err := o.keys.key(o.keys.viewHandle, o.stateDir, viewHandleKeyName)
	if err != nil {
		return bo, err
	}
	bo.Key = key
	if prof == profileHosted || c.Isolate {
		timeout := bo.AnalysisTimeout
		if timeout <= 0 {
			timeout = binview.DefaultTimeout
		}
		r, err := isolatedAnalyzer(isolate.Limits{Memory: c.AnalysisMemoryBytes, CPU: timeout, Wall: timeout + 10*time.Second})
		if err != nil {
			return bo, err
		}
		r.Env = o.isolateEnv
		bo.Analyze = r.Analyze
		// The code analysis (functions, blocks, cross-references), which
		// a hostile file drives as hard as the parse, runs there too.
		bo.CodeRunner = r
	}
	return bo, nil
}

// wireNative gives the warden_ tools what they read about the server:
// what the gates say, the limits, the audit trail and the findings store
// (who calls, the correlation id and the privacy mode they read from the
// call). Without controls (a registry built to list tools) they know the
// build and the gates only.
func wireNative(n *toolset.Native, o wireOptions, gates *policy.Gates) {
	n.Approvals = gates.Approvals()
	n.Gate = func(ctx context.Context, t *tool.Tool) *tool.Error { return gates.Status(t) }
	if o.controls == nil {
		return
	}
	pc := o.controls.policy
	n.Gate = func(ctx context.Context, t *tool.Tool) *tool.Error {
		if e := gates.Status(t); e != nil {
			return e
		}
		if p, ok := pc.Caller(ctx); !ok || !p.Entitled(t.Name) {
			return &tool.Error{Code: policy.CodeForbidden, Message: "this credential is not entitled to " + t.Name + "; the token's entitlements must include it"}
		}
		return nil
	}
	n.TransportLimited = o.controls.transport
	n.Usage = o.controls.lim.Usage
	n.Audit = o.controls.lim.QueryAudit
	n.Findings = o.controls.store
}
