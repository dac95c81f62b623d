package toolset

import (
	"context"
	"errors"

	"github.com/warden-mcp/warden/secretscan"
	"github.com/warden-mcp/warden/tool"
)

// The keysweep_ family: secret scanning. The contract of
// keysweep_scan_text is fixed (clients written for the hosted Binary³
// service use it unchanged): input {text}, the result fields below, and
// the error codes invalid_text and text_too_large.

type scanTextArgs struct {
	Text string `json:"text" minLength:"1" maxLength:"256000" code:"invalid_text" maxLengthCode:"text_too_large" desc:"The text to scan: configuration, logs, code, environment files. At most 256,000 Unicode characters."`
}

// ScanTextResult is the structured result of keysweep_scan_text. Its
// fields only ever grow.
type ScanTextResult struct {
	Status          string            `json:"status" privacy:"plain" desc:"Always completed for a finished scan."`
	RiskLevel       string            `json:"risk_level" privacy:"plain" desc:"The highest severity found: none, low, medium, high or critical."`
	ConfidenceScore float64           `json:"confidence_score" desc:"How likely the text holds at least one real credential, 0 to 1: 1 minus the product of (1 - confidence) over the detections; 0 when nothing was found."`
	Summary         ScanSummary       `json:"summary"`
	Detections      []SecretDetection `json:"detections"`
	TextLength      int               `json:"text_length" desc:"Length of the scanned text in Unicode characters."`
}

// ScanSummary counts detections.
type ScanSummary struct {
	Total      int            `json:"total"`
	BySeverity map[string]int `json:"by_severity"`
	ByType     map[string]int `json:"by_type"`
}

// SecretDetection is one finding, without the secret: its type, how bad
// and how sure, a keyed fingerprint, its length and where it is.
type SecretDetection struct {
	Type        string  `json:"type" privacy:"plain"`
	Severity    string  `json:"severity" privacy:"plain" desc:"critical, high, medium or low"`
	Confidence  float64 `json:"confidence"`
	Fingerprint string  `json:"fingerprint" privacy:"plain" desc:"Keyed hash of the value (ks1_...), stable within a deployment, useless for recovering the value."`
	ValueLength int     `json:"value_length" desc:"Length of the value in Unicode characters."`
	Line        int     `json:"line"`
	Column      int     `json:"column" desc:"1-based, in Unicode characters."`
}

func keysweepTools(deps Deps) ([]*tool.Tool, error) {
	sc := secretscan.New(&secretscan.Options{FingerprintKey: deps.FingerprintKey})
	t, err := tool.New(tool.Def{
		Name:  "keysweep_scan_text",
		Title: "Scan text for exposed secrets",
		Description: "Scan supplied text for exposed secrets: API keys, tokens, private keys, credentials and database URLs, " +
			"including inside base64, URL-encoded and JSON-escaped layers. Pure analysis with no network access. " +
			"Returns redacted findings only: secret values are never echoed, just the type, severity, confidence, " +
			"a keyed fingerprint, the value's length and its line and column. " +
			"Identifiers that are not credentials (AWS ARNs and account IDs, bucket names) are reported as low.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog: tool.Catalog{
			Category:      "secrets",
			Trust:         tool.TrustAuto,
			ConsumesQuota: true,
		},
	}, func(ctx context.Context, call *tool.Call, in scanTextArgs) (ScanTextResult, error) {
		ctx, err := call.Begin(ctx)
		if err != nil {
			return ScanTextResult{}, err
		}
		call.Progress(0, 1, "scanning")
		res, err := sc.Scan(ctx, in.Text)
		if err != nil {
			if errors.Is(err, secretscan.ErrCanceled) {
				return ScanTextResult{}, ctx.Err()
			}
			return ScanTextResult{}, err
		}
		call.Progress(1, 1, "done")
		if res.Truncated {
			call.Warn("truncated", "more detections matched than one result holds; the first ones by position are listed")
		}
		return scanTextResult(res), nil
	})
	if err != nil {
		return nil, err
	}
	return []*tool.Tool{t}, nil
}

// scanTextResult shapes an engine result into the tool's contract.
func scanTextResult(res secretscan.Result) ScanTextResult {
	sum := res.Summarize()
	out := ScanTextResult{
		Status:          "completed",
		RiskLevel:       res.RiskLevel().String(),
		ConfidenceScore: res.ConfidenceScore(),
		TextLength:      res.TextLength,
		Summary:         ScanSummary{Total: sum.Total, BySeverity: sum.BySeverity, ByType: sum.ByType},
		Detections:      make([]SecretDetection, 0, len(res.Detections)),
	}
	for _, d := range res.Detections {
		out.Detections = append(out.Detections, SecretDetection{
			Type: d.Type, Severity: d.Severity.String(), Confidence: d.Confidence,
			Fingerprint: d.Fingerprint, ValueLength: d.ValueLength, Line: d.Line, Column: d.Column,
		})
	}
	return out
}
