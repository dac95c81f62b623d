package toolset

import (
	"context"
	"time"

	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/tool"
)

type findingListArgs struct {
	MinSeverity string `json:"min_severity,omitempty" enum:"critical,high,medium,low,info" desc:"Only findings at or above this severity."`
	Target      string `json:"target,omitempty" maxLength:"2048" desc:"Only findings whose target contains this, ignoring case."`
	SourceTool  string `json:"source_tool,omitempty" maxLength:"64" desc:"Only findings from this tool."`
	Since       string `json:"since,omitempty" maxLength:"64" desc:"Only findings recorded at or after this: RFC 3339, or a duration back from now (24h)."`
	Limit       int    `json:"limit" default:"20" min:"1" max:"100" desc:"The most findings to return, newest first."`
}

// FindingListResult is warden_findings_list's result.
type FindingListResult struct {
	Findings []FindingItem `json:"findings"`
	Count    int           `json:"count"`
	More     bool          `json:"more" desc:"More findings match than were returned."`
}

// FindingItem is one finding.
type FindingItem struct {
	ID            string `json:"id" privacy:"plain"`
	Title         string `json:"title" privacy:"plain"`
	Severity      string `json:"severity" privacy:"plain"`
	Target        string `json:"target,omitempty" privacy:"url"`
	Evidence      string `json:"evidence,omitempty" privacy:"plain" desc:"As stored: already redacted by the tenant's privacy mode."`
	SourceTool    string `json:"source_tool,omitempty" privacy:"plain"`
	CorrelationID string `json:"correlation_id,omitempty" privacy:"plain"`
	RecordedBy    string `json:"recorded_by" privacy:"plain" desc:"The id of the credential that recorded it: a name, not a secret."`
	Created       string `json:"created" privacy:"plain"`
}

func wardenFindingsListTool(n *Native, _ *tool.Registry) (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "warden_findings_list",
		Title: "List recorded findings",
		Description: "List this tenant's recorded findings, newest first, filtered by severity, target, source tool and " +
			"time; at most 100. Another tenant's findings are never visible.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     wardenCatalog,
	}, func(ctx context.Context, call *tool.Call, in findingListArgs) (FindingListResult, error) {
		c, cerr := n.caller(call)
		if cerr != nil {
			return FindingListResult{}, cerr
		}
		if n.Findings == nil {
			return FindingListResult{}, &tool.Error{Code: finding.CodeUnavailable, Message: "this server keeps no findings"}
		}
		since, err := parseSince(in.Since, n.now())
		if err != nil {
			return FindingListResult{}, err
		}
		fs, err := finding.List(ctx, n.Findings, finding.Filter{Tenant: c.findingsTenant(), MinSeverity: in.MinSeverity, Target: in.Target,
			SourceTool: in.SourceTool, Since: since, Limit: in.Limit + 1})
		if err != nil {
			return FindingListResult{}, err
		}
		out := FindingListResult{Findings: []FindingItem{}}
		if len(fs) > in.Limit {
			fs, out.More = fs[:in.Limit], true
		}
		for _, f := range fs {
			out.Findings = append(out.Findings, FindingItem{ID: f.ID, Title: f.Title, Severity: f.Severity, Target: f.Target,
				Evidence: f.Evidence, SourceTool: f.SourceTool, CorrelationID: f.CorrelationID, RecordedBy: f.Credential,
				Created: f.Created.Format(time.RFC3339Nano)})
		}
		out.Count = len(out.Findings)
		return out, nil
	})
}

// parseSince reads an RFC 3339 time or a duration back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, &tool.Error{Code: "invalid_params", Message: "parameter \"since\" must be an RFC 3339 time or a duration such as 24h"}
	}
	return t, nil
}
