package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"io"
	"time"
)

// JSON is the export form of a finding. Its fields only ever grow.
type JSON struct {
	ID            string    `json:"id"`
	Tenant        string    `json:"tenant"`
	Credential    string    `json:"credential"`
	Title         string    `json:"title"`
	Severity      string    `json:"severity"`
	Target        string    `json:"target"`
	Evidence      string    `json:"evidence"`
	SourceTool    string    `json:"source_tool,omitempty"`
	CorrelationID string    `json:"correlation_id,omitempty"`
	Created       time.Time `json:"created"`
}

func toJSON(f Finding) JSON {
	return JSON(f)
}

// WriteJSON writes {"findings":[...]}.
func WriteJSON(w io.Writer, fs []Finding) error {
	out := make([]JSON, 0, len(fs))
	for _, f := range fs {
		out = append(out, toJSON(f))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"findings": out})
}

// WriteSARIF writes a SARIF 2.1.0 log: one rule per severity, one result
// per finding, the target as its location and a fingerprint of the
// finding's title and target so that code-scanning tools match a finding
// across exports.
func WriteSARIF(w io.Writer, fs []Finding, version string) error {
	type text struct {
		Text string `json:"text"`
	}
	type rule struct {
		ID                   string            `json:"id"`
		Name                 string            `json:"name"`
		ShortDescription     text              `json:"shortDescription"`
		DefaultConfiguration map[string]string `json:"defaultConfiguration"`
		Properties           map[string]any    `json:"properties"`
	}
	type location struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
		} `json:"physicalLocation"`
	}
	type result struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             text              `json:"message"`
		Locations           []location        `json:"locations,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          map[string]any    `json:"properties"`
	}
	scores := map[string]string{"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0", "info": "0.0"}
	var rules []rule
	index := map[string]int{}
	for _, s := range Severities {
		index[s] = len(rules)
		rules = append(rules, rule{ID: "warden/" + s, Name: s + "Finding", ShortDescription: text{"A finding of " + s + " severity recorded through Warden"},
			DefaultConfiguration: map[string]string{"level": level(s)},
			Properties:           map[string]any{"tags": []string{"security"}, "security-severity": scores[s]}})
	}
	results := make([]result, 0, len(fs))
	for _, f := range fs {
		r := result{RuleID: "warden/" + f.Severity, RuleIndex: index[f.Severity], Level: level(f.Severity),
			Message: text{f.Title}, PartialFingerprints: map[string]string{"wardenFinding/v1": fingerprint(f)},
			Properties: map[string]any{"id": f.ID, "severity": f.Severity, "evidence": f.Evidence, "source_tool": f.SourceTool,
				"correlation_id": f.CorrelationID, "created": f.Created.Format(time.RFC3339), "tenant": f.Tenant}}
		if f.Target != "" {
			var l location
			l.PhysicalLocation.ArtifactLocation.URI = f.Target
			r.Locations = []location{l}
		}
		results = append(results, r)
	}
	driver := map[string]any{"name": "Warden", "informationUri": "https://github.com/warden-mcp/warden", "rules": rules}
	if version != "" {
		driver["version"] = version
	}
	log := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs":    []any{map[string]any{"tool": map[string]any{"driver": driver}, "results": results}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

func level(sev string) string {
	switch sev {
	case "critical", "high":
		return "error"
	case "medium":
		return "warning"
	}
	return "note"
}

func fingerprint(f Finding) string {
	h := sha256.Sum256([]byte(f.Tenant + "\x00" + f.Title + "\x00" + f.Target))
	return hex.EncodeToString(h[:16])
}

// page is the HTML export: one self-contained page, no script, no
// remote resource; html/template escapes every value.
var page = template.Must(template.New("findings").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Warden findings</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
pre{white-space:pre-wrap;word-break:break-all;margin:.3rem 0 0;font-size:13px;background:#f6f6f6;padding:.4rem}
.sev{font-weight:600;text-transform:uppercase;font-size:12px;padding:.1rem .35rem;border-radius:3px}
.critical{background:#7a0010;color:#fff}.high{background:#c62828;color:#fff}.medium{background:#ef8f00}.low{background:#fdd835}.info{background:#cfd8dc}
.meta{color:#555;font-size:12px}
</style></head><body>
<h1>Warden findings</h1>
<p class="meta">{{len .Findings}} findings{{range .Counts}} · {{.N}} {{.Severity}}{{end}} · exported {{.Exported}}</p>
<table><thead><tr><th>Severity</th><th>Finding</th><th>Recorded</th></tr></thead><tbody>
{{range .Findings}}<tr><td><span class="sev {{.Severity}}">{{.Severity}}</span></td>
<td><strong>{{.Title}}</strong>{{if .Target}}<div class="meta">{{.Target}}</div>{{end}}{{if .Evidence}}<pre>{{.Evidence}}</pre>{{end}}</td>
<td class="meta">{{.Created.Format "2006-01-02 15:04 UTC"}}<br>{{.Tenant}}{{if .SourceTool}}<br>{{.SourceTool}}{{end}}<br>{{.ID}}</td></tr>
{{else}}<tr><td colspan="3">No findings.</td></tr>{{end}}
</tbody></table></body></html>
`))

// WriteHTML writes a self-contained page: no script, no remote resource, a
// restrictive Content-Security-Policy, and every value escaped.
func WriteHTML(w io.Writer, fs []Finding, now time.Time) error {
	type count struct {
		Severity string
		N        int
	}
	var counts []count
	for _, s := range Severities {
		n := 0
		for _, f := range fs {
			if f.Severity == s {
				n++
			}
		}
		if n > 0 {
			counts = append(counts, count{s, n})
		}
	}
	return page.Execute(w, map[string]any{"Findings": fs, "Counts": counts, "Exported": now.UTC().Format("2006-01-02 15:04 UTC")})
}
