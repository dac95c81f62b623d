package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/internal/jsonwalk"
	"github.com/warden-mcp/warden/privacy"
	"github.com/warden-mcp/warden/tool"
)

// Refusal codes of the gates. Each refusal is a tool error whose message
// says which setting would change the answer.
const (
	CodeToolDisabled        = "tool_disabled"
	CodeUnsafeToolBlocked   = "unsafe_tool_blocked"
	CodeForbidden           = "forbidden"
	CodeTargetOutOfScope    = "target_out_of_scope"
	CodeApprovalDeclined    = "approval_declined"
	CodeApprovalUnavailable = "approval_unavailable"
)

// Approval modes: who asks the person before a confirm or confirm_each
// tool runs.
const (
	// ApprovalsElicit: Warden asks through the client (form elicitation
	// in a legacy session, an input-required round on 2026-07-28).
	ApprovalsElicit = "elicit"
	// ApprovalsClient: the client or a gateway in front asks; Warden
	// publishes the tier and trusts it.
	ApprovalsClient = "client"
)

// CatalogConfig is an operator's choice of which tools run, where network
// tools may go and who approves: the tools, approvals and scope keys of
// the configuration.
type CatalogConfig struct {
	// Enable turns on tools that are off by default, by name or by
	// family prefix ("util_").
	Enable []string
	// Disable turns tools off, by name or family prefix. It wins over
	// Enable.
	Disable []string
	// Unsafe is the master switch for tools marked unsafe. Off by
	// default.
	Unsafe bool
	// AllowUnsafe lets named unsafe tools run while the switch is off.
	AllowUnsafe []string
	// ScopeInclude and ScopeExclude bound where network tools may go.
	ScopeInclude, ScopeExclude []string
	// Approvals is ApprovalsElicit (the default) or ApprovalsClient.
	Approvals string
	// ApprovalTTL is how long a confirm tool's approval lasts for one
	// credential and client on the stateless revision (in a legacy
	// session it lasts as long as the session). Zero: 8 hours.
	ApprovalTTL time.Duration
	// ConsoleURL is the origin of Warden's own listener ("http://127.0.0.1:8787")
	// when it serves the console: a call that needs approval from a client
	// that cannot ask then answers approval_required with a link to
	// ConsoleURL + ApprovalPath + id. Empty: such calls answer
	// approval_unavailable.
	ConsoleURL string
	// ApprovalWait is how long such a request can be decided. Zero:
	// DefaultApprovalWait.
	ApprovalWait time.Duration
}

// Gates enforces a CatalogConfig on every call and decides what each
// caller sees listed. Build one with NewGates.
type Gates struct {
	enable, disable map[string]bool // names and family prefixes
	unsafe          bool
	allowUnsafe     map[string]bool
	scope           *Scope
	approvals       string
	ttl             time.Duration
	// grants is shared by replicas: stateless approvals, and legacy
	// sessions' under the session's key (which replicas share too).
	grants approval.Store
	// requests keeps out-of-band requests (the grants' store when it
	// keeps them too); consoleURL is the base of their links.
	requests   approval.RequestStore
	consoleURL string
	wait       time.Duration
	now        func() time.Time
}

// NewGates checks cfg against the registry: an unknown tool or family
// name in any list is an error, not a silent no-op. grants keeps
// approvals across replicas; nil keeps them in this process only; when it
// is also an approval.RequestStore it keeps out-of-band requests too. It is
// PrepareGates and Check in one step.
func NewGates(reg *tool.Registry, cfg CatalogConfig, grants approval.Store) (*Gates, error) {
	g, err := PrepareGates(cfg, grants)
	if err != nil {
		return nil, err
	}
	if err := g.Check(reg); err != nil {
		return nil, err
	}
	return g, nil
}

// PrepareGates builds the gates of cfg before any tool is registered, so
// that tools which consult them (a redirect checked against the scope, a
// read that follows another tool's switch) get them at construction. The
// names in cfg's lists are checked against the registry by Check, once
// the tools are registered; serve no call before it passed.
func PrepareGates(cfg CatalogConfig, grants approval.Store) (*Gates, error) {
	g := &Gates{
		unsafe: cfg.Unsafe, approvals: cfg.Approvals, ttl: cfg.ApprovalTTL,
		grants: grants, now: time.Now, consoleURL: strings.TrimSuffix(cfg.ConsoleURL, "/"), wait: cfg.ApprovalWait,
	}
	if g.wait <= 0 {
		g.wait = DefaultApprovalWait
	}
	if rs, ok := grants.(approval.RequestStore); ok {
		g.requests = rs
	} else {
		g.requests = approval.NewMemoryRequests(0)
	}
	switch g.approvals {
	case "":
		g.approvals = ApprovalsElicit
	case ApprovalsElicit, ApprovalsClient:
	default:
		return nil, fmt.Errorf("approvals: %q is not elicit or client", cfg.Approvals)
	}
	if g.ttl <= 0 {
		g.ttl = 8 * time.Hour
	}
	if g.grants == nil {
		g.grants = approval.NewMemory(0)
	}
	set := func(list string, in []string, families bool) (map[string]bool, error) {
		m := map[string]bool{}
		for _, e := range in {
			e = strings.TrimSpace(e)
			if !families && strings.HasSuffix(e, "_") {
				return nil, fmt.Errorf("%s: %q: name tools one by one here, not families", list, e)
			}
			m[e] = true
		}
		return m, nil
	}
	var err error
	if g.enable, err = set("tools.enable", cfg.Enable, true); err != nil {
		return nil, err
	}
	if g.disable, err = set("tools.disable", cfg.Disable, true); err != nil {
		return nil, err
	}
	if g.allowUnsafe, err = set("tools.allow_unsafe", cfg.AllowUnsafe, false); err != nil {
		return nil, err
	}
	if g.scope, err = NewScope(cfg.ScopeInclude, cfg.ScopeExclude); err != nil {
		return nil, err
	}
	return g, nil
}

// Check checks the names the gates were configured with against the
// registry: an unknown tool or family in any list, or a tool in
// tools.allow_unsafe that is not unsafe, is an error. It changes nothing.
func (g *Gates) Check(reg *tool.Registry) error {
	tools, _ := reg.Tools()
	names := map[string]*tool.Tool{}
	for _, t := range tools {
		names[t.Name] = t
	}
	families := reg.Families()
	known := func(list, e string) error {
		if strings.HasSuffix(e, "_") {
			if slices.Contains(families, strings.ToLower(e)) {
				return nil
			}
			return fmt.Errorf("%s: %q is not a tool family of this build (families: %s)", list, e, strings.Join(families, ", "))
		}
		if _, ok := names[e]; !ok {
			return fmt.Errorf("%s: %q is not a tool of this build (see warden tools)", list, e)
		}
		return nil
	}
	for _, l := range []struct {
		name string
		set  map[string]bool
	}{{"tools.enable", g.enable}, {"tools.disable", g.disable}, {"tools.allow_unsafe", g.allowUnsafe}} {
		for _, e := range slices.Sorted(maps.Keys(l.set)) {
			if err := known(l.name, e); err != nil {
				return err
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(g.allowUnsafe)) {
		if !names[n].Catalog.Unsafe {
			return fmt.Errorf("tools.allow_unsafe: %s is not an unsafe tool", n)
		}
	}
	return nil
}

// listed reports whether a name or its family is in a set.
func listed(set map[string]bool, name string) bool {
	if set[name] {
		return true
	}
	for e := range set {
		if strings.HasSuffix(e, "_") && strings.HasPrefix(strings.ToLower(name), e) {
			return true
		}
	}
	return false
}

// Status says whether this configuration lets t run at all (before
// entitlement, scope and approval), and if not, the refusal.
func (g *Gates) Status(t *tool.Tool) *tool.Error {
	switch {
	case listed(g.disable, t.Name):
		return &tool.Error{Code: CodeToolDisabled, Message: t.Name + " is disabled by this server's configuration (tools.disable)"}
	case t.Catalog.DisabledByDefault && !listed(g.enable, t.Name):
		return &tool.Error{Code: CodeToolDisabled, Message: t.Name + " is off by default; add it to tools.enable to turn it on"}
	case t.Catalog.Unsafe && !g.unsafe && !g.allowUnsafe[t.Name]:
		return &tool.Error{Code: CodeUnsafeToolBlocked, Message: t.Name + " is unsafe (it sends traffic or changes state) and unsafe tools are off; start Warden with --unsafe, set tools.unsafe, or list it in tools.allow_unsafe"}
	}
	return nil
}

// InScope reports whether a host may be reached under tools.scope: every
// host when the scope is empty. The scope gate checks a tool's target
// argument before the handler runs; a tool that follows redirects checks
// each further hop with InScope. A host that cannot be read is out.
func (g *Gates) InScope(host string) bool {
	if !g.scope.Restricted() {
		return true
	}
	h, err := TargetHost(host)
	return err == nil && g.scope.Allows(h)
}

// ApprovalTTL is how long a confirm approval lasts.
func (g *Gates) ApprovalTTL() time.Duration { return g.ttl }

// Approvals is the configured approval mode.
func (g *Gates) Approvals() string { return g.approvals }

// enabled is the enablement and unsafe-switch gate.
func (g *Gates) enabled(ctx context.Context, call *tool.Call, next tool.Handler) tool.Outcome {
	if e := g.Status(call.Tool()); e != nil {
		return refuse(call.Tool(), e)
	}
	return next(ctx, call)
}

// inScope checks a network tool's target against the scope before the
// handler runs: an out-of-scope target costs no look-up and no connection.
func (g *Gates) inScope(ctx context.Context, call *tool.Call, next tool.Handler) tool.Outcome {
	t := call.Tool()
	if t.Catalog.TargetParam == "" || !g.scope.Restricted() {
		return next(ctx, call)
	}
	target, ok := call.Target()
	if !ok {
		return next(ctx, call) // absent or not a string: the tool's own checks answer
	}
	host, err := TargetHost(target)
	if err != nil {
		return refuse(t, &tool.Error{Code: CodeTargetOutOfScope, Message: "the target's host cannot be read, so it cannot be checked against tools.scope"})
	}
	if why := g.scope.Refusal(host); why != "" {
		return refuse(t, &tool.Error{Code: CodeTargetOutOfScope, Message: why})
	}
	return next(ctx, call)
}

// approvalKey is the input key of the approval question. Tools never use
// it for their own questions.
const approvalKey = "warden_approval"

// approve asks a person before a confirm or confirm_each tool runs, through
// the client or, when it cannot ask, on the console's approval page, and
// remembers a confirm answer. A tool whose catalog says ApproveAtBegin is
// asked at Call.Begin, after its own checks, instead of before its
// handler.
func (g *Gates) approve(c *Controls, questions Hider) stage {
	return func(ctx context.Context, call *tool.Call, next tool.Handler) tool.Outcome {
		t := call.Tool()
		if t.Catalog.Trust == tool.TrustAuto || g.approvals == ApprovalsClient {
			return next(ctx, call)
		}
		if t.Catalog.ApproveAtBegin {
			call.SetApproval(func(ctx context.Context) error { return g.permit(ctx, c, call, questions) })
			return next(ctx, call)
		}
		err := g.permit(ctx, c, call, questions)
		var ask *askError
		var te *tool.Error
		switch {
		case err == nil:
			return next(ctx, call)
		case errors.As(err, &ask):
			return tool.Outcome{Interrupt: &tool.Interrupt{Err: tool.ErrInputRequired, Pending: ask.pending}}
		case errors.As(err, &te):
			return refuse(t, te)
		}
		return refuse(t, &tool.Error{Code: CodeApprovalUnavailable, Message: "the approval question could not be asked"})
	}
}

// askError is a question the client must answer first (a 2026-07-28
// input round): it is tool.ErrInputRequired with the question.
type askError struct{ pending map[string]tool.InputRequest }

func (*askError) Error() string { return tool.ErrInputRequired.Error() }
func (*askError) Unwrap() error { return tool.ErrInputRequired }

// permit decides whether a confirm or confirm_each call may run: nil, a
// refusal (*tool.Error), or an *askError.
func (g *Gates) permit(ctx context.Context, c *Controls, call *tool.Call, questions Hider) error {
	t := call.Tool()
	p, pok := c.principal(ctx)
	if !pok {
		return &tool.Error{Code: CodeApprovalUnavailable, Message: "approval cannot be asked for this call"}
	}
	store := g.grants
	key := approval.Key("stateless", p.Issuer, p.Tenant, credentialOf(p), call.Client(), t.Name)
	if !call.Modern() {
		// The session's key is random and shared by every replica
		// serving the session: its approvals hold there and nowhere
		// else, and are unreachable once it ends.
		key = approval.Key("session", call.Session(), t.Name)
	}
	if t.Catalog.Trust == tool.TrustConfirm {
		granted, err := store.ApprovalGranted(ctx, key, g.now())
		if err != nil {
			c.logger().Error("approval store unavailable", "tool", t.Name, "cause", err.Error())
			return &tool.Error{Code: CodeApprovalUnavailable, Message: "remembered approvals cannot be read; try again later", RetryAfter: 2 * time.Second}
		}
		if granted {
			return nil
		}
	}
	if !call.Supports("elicitation") && g.consoleURL != "" {
		return g.outOfBand(ctx, c, call, p, key, questions)
	}
	if !call.Supports("elicitation") {
		return &tool.Error{Code: CodeApprovalUnavailable, Message: t.Name + " needs a person's approval, and this client cannot ask (it does not support elicitation); " +
			"use a client that does, or have the operator set approvals: client when a client or gateway in front asks instead"}
	}
	covers := time.Duration(0)
	if t.Catalog.Trust == tool.TrustConfirm {
		covers = g.ttl
	}
	req := tool.Elicit(approvalQuestion(call, questions, covers), json.RawMessage(`{"type":"object","properties":{"approve":{"type":"boolean","title":"Run it","default":true}}}`))
	answers, err := call.Input(ctx, map[string]tool.InputRequest{approvalKey: req})
	if errors.Is(err, tool.ErrInputRequired) {
		return &askError{pending: map[string]tool.InputRequest{approvalKey: req}}
	}
	if err != nil {
		return &tool.Error{Code: CodeApprovalUnavailable, Message: "the approval question could not be asked"}
	}
	if !accepted(answers[approvalKey]) {
		return &tool.Error{Code: CodeApprovalDeclined, Message: "the person declined to run " + t.Name}
	}
	if t.Catalog.Trust == tool.TrustConfirm {
		if err := store.GrantApproval(ctx, key, g.now().Add(g.ttl)); err != nil {
			c.logger().Warn("approval not remembered", "tool", t.Name, "cause", err.Error())
		}
	}
	return nil
}

// accepted reads an elicitation answer: accept, and approve not false.
func accepted(raw json.RawMessage) bool {
	var a struct {
		Action  string `json:"action"`
		Content struct {
			Approve *bool `json:"approve"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &a) != nil || a.Action != "accept" {
		return false
	}
	return a.Content.Approve == nil || *a.Content.Approve
}

// maxSummary bounds the arguments' summary in an approval question.
const maxSummary = 200

// approvalQuestion names the tool and summarises its arguments on one
// line, each string cut short and passed through the secret filter.
//
// An argument the tool's input schema marks with a privacy kind
// (x-warden-privacy, from a `privacy` tag: a request body, header values,
// a password) is never repeated, whatever it holds: the question shows
// its marker instead.
//
// covers, when not zero, is how long a yes also covers later calls of the
// tool (a confirm tool): the question says so after the summary.
func approvalQuestion(call *tool.Call, questions Hider, covers time.Duration) string {
	t := call.Tool()
	var parts []string
	if members := call.ArgumentList(); members != nil {
		private := privateArgs(t)
		for _, m := range members {
			name, v := m.Name, m.Value
			val := ""
			if kind, ok := private[name]; ok {
				if jsonwalk.Kind(v) == "object" {
					// Header names are shown, their values never.
					parts = append(parts, name+"={"+memberNames(v, questions)+"} (values hidden)")
				} else {
					parts = append(parts, name+"=[REDACTED:"+kind+"]")
				}
				continue
			}
			switch jsonwalk.Kind(v) {
			case "string":
				s, _ := jsonwalk.Unquote(v)
				s = strings.Join(strings.Fields(s), " ")
				if questions != nil {
					s = questions.Hide(s)
				}
				val = cut(s, 60)
			case "object":
				val = "{…}"
			case "array":
				val = "[…]"
			default:
				val = string(v)
			}
			parts = append(parts, name+"="+val)
		}
	}
	q := "Allow " + t.Name + " to run?"
	if len(parts) > 0 {
		q += " " + strings.Join(parts, ", ")
	}
	q = cut(q, maxSummary)
	if covers > 0 {
		q += " A yes also lets later calls of " + t.Name + " from this client run without asking, for " + covers.String() + "."
	} else {
		q += " You are asked at every call of " + t.Name + "."
	}
	return q
}

// privateArgs returns the arguments of t's input schema that carry a
// privacy kind other than plain, with their kind.
func privateArgs(t *tool.Tool) map[string]string {
	var schema struct {
		Properties map[string]struct {
			Privacy string `json:"x-warden-privacy"`
		} `json:"properties"`
	}
	if json.Unmarshal(t.InputSchema(), &schema) != nil {
		return nil
	}
	var out map[string]string
	for name, p := range schema.Properties {
		if privacy.Redacts(p.Privacy) {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = p.Privacy
		}
	}
	return out
}

// cut shortens s to at most n characters, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
