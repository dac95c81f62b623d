package secretscan

import "math"

// Summary counts detections for a tool result.
type Summary struct {
	Total      int            `json:"total"`
	BySeverity map[string]int `json:"by_severity"`
	ByType     map[string]int `json:"by_type"`
	// Suppressed counts the detections an allow comment, an allowed
	// value or the baseline silenced.
	Suppressed int `json:"suppressed"`
}

// Summarize counts the detections of r by severity and by type. The
// by_severity map always holds the four severities, zero or not.
func (r Result) Summarize() Summary {
	s := Summary{Total: len(r.Detections), Suppressed: r.Suppressed, BySeverity: map[string]int{
		"low": 0, "medium": 0, "high": 0, "critical": 0}, ByType: map[string]int{}}
	for _, d := range r.Detections {
		s.BySeverity[d.Severity.String()]++
		s.ByType[d.Type]++
	}
	return s
}

// RiskLevel is the highest severity among the detections, whatever their
// confidence, as the keysweep_scan_text contract states ("risk_level is
// the highest severity found"); SeverityNone when there are none. A
// caller that wants to discount weak evidence filters on
// Detection.Confidence (or sets Options.MinConfidence) first.
func (r Result) RiskLevel() Severity {
	lvl := SeverityNone
	for _, d := range r.Detections {
		if d.Severity > lvl {
			lvl = d.Severity
		}
	}
	return lvl
}

// ConfidenceScore is the probability that the text holds at least one real
// credential, treating detections as independent:
//
//	1 - Π (1 - confidence_i)
//
// Identifiers (FamilyIdentifier) are not credentials and do not count. It
// is 0 with no credential detection and is rounded to two decimals.
func (r Result) ConfidenceScore() float64 {
	p := 1.0
	for _, d := range r.Detections {
		if d.Family != FamilyIdentifier {
			p *= 1 - d.Confidence
		}
	}
	return math.Round((1-p)*100) / 100
}
