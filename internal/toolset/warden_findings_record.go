package toolset

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/privacy"
	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/tool"
)

type findingRecordArgs struct {
	Title         string `json:"title" minLength:"1" maxLength:"200" desc:"A short statement of what was found: \"Reflected XSS in q on /search\"."`
	Severity      string `json:"severity" enum:"critical,high,medium,low,info"`
	Target        string `json:"target,omitempty" maxLength:"2048" desc:"What it was found on: a URL, host, file or component."`
	Evidence      string `json:"evidence,omitempty" maxLength:"16384" desc:"What shows it: a request and response excerpt, a tool's output. Stored with its credentials removed unless the tenant's privacy mode is off."`
	SourceTool    string `json:"source_tool,omitempty" maxLength:"64" desc:"The tool whose output showed it."`
	CorrelationID string `json:"correlation_id,omitempty" maxLength:"128" desc:"The correlation id of the call that showed it (warden_audit_query lists them). Default: this call's."`
}

// FindingRecordResult is warden_findings_record's result. The evidence is
// not echoed.
type FindingRecordResult struct {
	ID                  string `json:"id" privacy:"plain"`
	Created             string `json:"created" privacy:"plain" desc:"RFC 3339."`
	EvidenceBytes       int    `json:"evidence_bytes" desc:"Bytes of evidence stored, after redaction."`
	EvidenceRedactions  int    `json:"evidence_redactions" desc:"Credentials the privacy mode removed from the evidence before storing it."`
	EvidenceTruncated   bool   `json:"evidence_truncated" desc:"The redacted evidence was longer than 16 KiB and was cut."`
	CorrelationIDStored string `json:"correlation_id" privacy:"plain"`
}

func wardenFindingsRecordTool(n *Native, _ *tool.Registry) (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "warden_findings_record",
		Title: "Record a finding",
		Description: "Record a security finding (title, severity, target, evidence, the source tool and call) in this " +
			"server's store, for this tenant only; people export them with warden findings export. Unless the tenant's " +
			"privacy mode is off, credentials in the title, target and evidence and the target's query values are removed " +
			"before it is stored. Writes to Warden's own store and " +
			"nowhere else; a person approves the tool once.",
		Annotations: tool.Annotations{},
		Catalog:     tool.Catalog{Category: "warden", Trust: tool.TrustConfirm},
	}, func(ctx context.Context, call *tool.Call, in findingRecordArgs) (FindingRecordResult, error) {
		c, cerr := n.caller(call)
		if cerr != nil {
			return FindingRecordResult{}, cerr
		}
		if n.Findings == nil {
			return FindingRecordResult{}, &tool.Error{Code: finding.CodeUnavailable, Message: "this server keeps no findings"}
		}
		// The store keeps what balanced leaves (credentials out, URL
		// query values and userinfo out of the target) unless the
		// tenant's mode is off; lists and exports apply the tenant's
		// mode, strict's pseudonyms included, on the way out.
		title, target, evidence, spans := in.Title, in.Target, in.Evidence, []redact.Span(nil)
		if n.privacy(ctx).Mode() != redact.Off {
			title, _ = balanced().Text(title)
			target, _ = balanced().Text(balanced().Field(privacy.URL, "target", target))
			evidence, spans = balanced().Text(evidence)
		}
		truncated := false
		if len(evidence) > finding.MaxEvidence {
			cut := finding.MaxEvidence
			for cut > 0 && !utf8.RuneStart(evidence[cut]) {
				cut--
			}
			evidence, truncated = evidence[:cut], true
		}
		corr := in.CorrelationID
		if corr == "" {
			corr = call.CorrelationID()
		}
		f := &finding.Finding{Tenant: c.findingsTenant(), Credential: c.Credential, Title: title, Severity: in.Severity,
			Target: target, Evidence: evidence, SourceTool: in.SourceTool, CorrelationID: corr}
		if err := finding.Record(ctx, n.Findings, f, n.now()); err != nil {
			return FindingRecordResult{}, err
		}
		if truncated {
			call.Warn("evidence_truncated", "the evidence was cut at 16 KiB")
		}
		return FindingRecordResult{ID: f.ID, Created: f.Created.Format(time.RFC3339Nano), EvidenceBytes: len(evidence),
			EvidenceRedactions: len(spans), EvidenceTruncated: truncated, CorrelationIDStored: corr}, nil
	})
}
