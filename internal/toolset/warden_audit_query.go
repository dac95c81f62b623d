package toolset

import (
	"context"
	"time"

	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/tool"
)

type auditQueryArgs struct {
	Tool    string `json:"tool,omitempty" maxLength:"64" desc:"Only calls of this tool."`
	Outcome string `json:"outcome,omitempty" maxLength:"64" desc:"Only calls that ended so: ok, or an error code."`
	Since   string `json:"since,omitempty" maxLength:"64" desc:"Only calls at or after this: RFC 3339, or a duration back from now (1h)."`
	Limit   int    `json:"limit" default:"20" min:"1" max:"100" desc:"The most calls to return, newest first."`
}

// AuditQueryResult is warden_audit_query's result.
type AuditQueryResult struct {
	Calls []AuditCall `json:"calls"`
	Count int         `json:"count"`
}

// AuditCall is one recorded call of the caller's own credential.
type AuditCall struct {
	Time          string  `json:"time" privacy:"plain" desc:"RFC 3339."`
	Tool          string  `json:"tool" privacy:"plain"`
	Outcome       string  `json:"outcome" privacy:"plain" desc:"ok, input_required, or the error code."`
	DurationMS    float64 `json:"duration_ms"`
	CorrelationID string  `json:"correlation_id" privacy:"plain"`
	QuotaCharged  int64   `json:"quota_charged"`
}

func wardenAuditQueryTool(n *Native, _ *tool.Registry) (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "warden_audit_query",
		Title: "Your own recent calls",
		Description: "List this credential's own recent tool calls from the audit trail: tool, outcome, time, duration " +
			"and correlation id, newest first, at most 100. Never another credential's calls; arguments and results are " +
			"never recorded.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     wardenCatalog,
	}, func(ctx context.Context, call *tool.Call, in auditQueryArgs) (AuditQueryResult, error) {
		c, cerr := n.caller(call)
		if cerr != nil {
			return AuditQueryResult{}, cerr
		}
		if n.Audit == nil {
			return AuditQueryResult{}, &tool.Error{Code: string(limits.CodeAuditUnavailable), Message: "this server keeps no audit trail"}
		}
		since, err := parseSince(in.Since, n.now())
		if err != nil {
			return AuditQueryResult{}, err
		}
		recs, err := n.Audit(ctx, limits.AuditFilter{Credential: c.Credential, Tenant: c.Tenant, Tool: in.Tool, Outcome: in.Outcome, Since: since, Limit: in.Limit})
		if err != nil {
			return AuditQueryResult{}, err
		}
		out := AuditQueryResult{Calls: []AuditCall{}}
		for _, r := range recs {
			if r.Credential != c.Credential {
				continue // never another credential's, whatever the store returned
			}
			out.Calls = append(out.Calls, AuditCall{Time: r.Time.UTC().Format(time.RFC3339Nano), Tool: r.Tool, Outcome: r.Outcome,
				DurationMS: float64(r.Duration.Microseconds()) / 1000, CorrelationID: r.CorrelationID, QuotaCharged: r.QuotaCharged})
		}
		out.Count = len(out.Calls)
		return out, nil
	})
}
