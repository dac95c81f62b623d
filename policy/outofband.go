package policy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/internal/jsonwalk"
	"github.com/warden-mcp/warden/tool"
)

// CodeApprovalRequired: the call waits for a person's decision on
// Warden's own page; details.approval_url is the page.
const CodeApprovalRequired = "approval_required"

// CodeTooManyPendingApprovals: the caller already has MaxOpenApprovals
// requests waiting for a person; no new one is opened.
const CodeTooManyPendingApprovals = "too_many_pending_approvals"

// MaxOpenApprovals bounds the open out-of-band requests of one caller, so
// an agent that varies its arguments cannot fill the store or the
// person's list.
const MaxOpenApprovals = 20

// DefaultApprovalWait is how long an out-of-band request can be decided
// when CatalogConfig.ApprovalWait is zero.
const DefaultApprovalWait = 10 * time.Minute

// ApprovalPath is where the console serves an approval request's page;
// the request's id follows it.
const ApprovalPath = "/console/approvals/"

// Requests is the store of out-of-band approval requests the gates write
// and the console decides; nil when out-of-band approval is off.
func (g *Gates) Requests() approval.RequestStore {
	if g.consoleURL == "" {
		return nil
	}
	return g.requests
}

// ApprovalOwner is the key of every request of a principal's issuer and
// tenant: what a console session of the tenant's owner (the local user)
// may decide.
func ApprovalOwner(p auth.Principal) string { return approval.Key("owner", p.Issuer, p.Tenant) }

// ApprovalCaller is the key a request is bound to: the principal's
// issuer, tenant and credential.
func ApprovalCaller(p auth.Principal) string {
	return approval.Key("caller", p.Issuer, p.Tenant, credentialOf(p))
}

// outOfBand answers a call from a client that cannot ask: the first call
// creates a request and answers approval_required with its page; the
// retried call (same caller, scope, tool and arguments) spends the
// decision: it runs once approved (nil), or answers approval_declined.
func (g *Gates) outOfBand(ctx context.Context, c *Controls, call *tool.Call, p auth.Principal, grant string, questions Hider) error {
	t := call.Tool()
	now := g.now()
	scope := "client:" + call.Client()
	if !call.Modern() {
		scope = "session:" + call.Session()
	}
	match := approval.Key("match", ApprovalCaller(p), scope, t.Name, argumentsHash(call.Arguments()))
	unavailable := func(err error) error {
		c.logger().Error("approval requests unavailable", "tool", t.Name, "cause", err.Error())
		return &tool.Error{Code: CodeApprovalUnavailable, Message: "the approval cannot be checked now; try again later", RetryAfter: 2 * time.Second}
	}
	r, err := g.requests.LatestApprovalRequest(ctx, match, now)
	switch {
	case errors.Is(err, approval.ErrNotFound):
	case err != nil:
		return unavailable(err)
	case r.State == approval.StatePending:
		return g.required(t, r)
	case approval.Decided(r.State):
		err := g.requests.SpendApprovalRequest(ctx, r.ID)
		if errors.Is(err, approval.ErrNotPending) {
			break // another retry spent it: this call asks anew
		}
		if err != nil {
			return unavailable(err)
		}
		if r.State == approval.StateDenied {
			return &tool.Error{Code: CodeApprovalDeclined, Message: "the person declined to run " + t.Name}
		}
		if r.State == approval.StateApprovedSession && r.Grant != "" {
			if err := g.grants.GrantApproval(ctx, r.Grant, now.Add(g.ttl)); err != nil {
				c.logger().Warn("approval not remembered", "tool", t.Name, "cause", err.Error())
			}
		}
		return nil
	}
	if n, err := g.requests.OpenApprovalRequests(ctx, ApprovalCaller(p), now); err != nil {
		return unavailable(err)
	} else if n >= MaxOpenApprovals {
		return &tool.Error{Code: CodeTooManyPendingApprovals, Message: "too many of your calls already wait for a person's approval; " +
			"have the person decide them on the console, or wait for them to expire", RetryAfter: time.Minute}
	}
	r = approval.Request{
		ID: approval.NewID(), Match: match, Caller: ApprovalCaller(p), Owner: ApprovalOwner(p), Tenant: p.Tenant,
		Tool: t.Name, Trust: string(t.Catalog.Trust), Summary: approvalDescription(call, questions),
		State: approval.StatePending, Created: now, Expires: now.Add(g.wait),
	}
	if t.Catalog.Trust == tool.TrustConfirm {
		r.Grant = grant
	}
	if err := g.requests.CreateApprovalRequest(ctx, r); err != nil {
		return unavailable(err)
	}
	return g.required(t, r)
}

// required is the approval_required answer for r.
func (g *Gates) required(t *tool.Tool, r approval.Request) error {
	u := g.consoleURL + ApprovalPath + r.ID
	return &tool.Error{Code: CodeApprovalRequired,
		Message: t.Name + " needs a person's approval and this client cannot ask. Show this link to the person: " + u +
			" ; once they approve, call " + t.Name + " again with the same arguments (the link expires in " +
			r.Expires.Sub(g.now()).Round(time.Minute).String() + ")",
		Details: map[string]any{"approval_url": u, "expires": r.Expires.UTC().Format(time.RFC3339)}}
}

// argumentsHash is the SHA-256 of the arguments in a canonical form (keys
// sorted, numbers as written), so a retry that orders them differently
// still matches.
func argumentsHash(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	b := []byte(raw)
	if dec.Decode(&v) == nil {
		if c, err := json.Marshal(v); err == nil {
			b = c
		}
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// maxDescription bounds an approval page's description of a call.
const maxDescription = 4000

// approvalDescription says in plain words what a call will do, one
// argument a line: strings through the secret filter and cut short, an
// argument the schema marks private as its marker, except that the names
// of a private object's members (header names) are shown with their
// values hidden.
func approvalDescription(call *tool.Call, questions Hider) string {
	t := call.Tool()
	var sb strings.Builder
	sb.WriteString(t.Name)
	if t.Title != "" {
		sb.WriteString(": " + t.Title)
	}
	sb.WriteString("\n")
	private := privateArgs(t)
	for _, m := range call.ArgumentList() {
		sb.WriteString(m.Name + ": ")
		kind, hidden := private[m.Name]
		switch {
		case hidden && jsonwalk.Kind(m.Value) == "object":
			sb.WriteString(memberNames(m.Value, questions) + " (values hidden)")
		case hidden:
			sb.WriteString("[REDACTED:" + kind + "]")
		default:
			sb.WriteString(plainValue(m.Value, questions))
		}
		sb.WriteString("\n")
	}
	return cut(strings.TrimSuffix(sb.String(), "\n"), maxDescription)
}

// memberNames lists an object's member names, sorted, each through the
// secret filter.
func memberNames(raw json.RawMessage, questions Hider) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "{…}"
	}
	names := make([]string, 0, len(m))
	for k := range m {
		if questions != nil {
			k = questions.Hide(k)
		}
		names = append(names, cut(k, 60))
	}
	slices.Sort(names)
	if len(names) > 32 {
		names = append(names[:32], "…")
	}
	return strings.Join(names, ", ")
}

// plainValue shows a non-private argument: a string cut at 300
// characters, an object or array as compact JSON through the filter.
func plainValue(raw json.RawMessage, questions Hider) string {
	s := string(raw)
	if jsonwalk.Kind(raw) == "string" {
		s, _ = jsonwalk.Unquote(raw)
	}
	s = strings.Join(strings.Fields(s), " ")
	if questions != nil {
		s = questions.Hide(s)
	}
	return cut(s, 300)
}
