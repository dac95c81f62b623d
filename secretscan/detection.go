package secretscan

import (
	"fmt"
	"log/slog"
	"strconv"
)

// FamilyIdentifier is the family of the identifier rules: sensitive
// values that are not credentials (see Options.SkipIdentifiers).
const FamilyIdentifier = "identifier"

// FamilyCustom is the family of the rules a configuration adds
// (Options.CustomRules).
const FamilyCustom = "custom"

// Detection is one finding. It never holds the secret in an exported field:
// the value is kept behind an unexported pointer so that JSON, fmt and slog
// output carry only the type, position, length and keyed fingerprint.
type Detection struct {
	RuleID   string   `json:"rule_id"`
	Type     string   `json:"type"`
	Family   string   `json:"family"` // FamilyIdentifier for identifiers
	Severity Severity `json:"severity"`
	// Confidence in [0, 1] that the span is a live credential of Type;
	// see the package documentation for the formula.
	Confidence float64 `json:"confidence"`
	// Fingerprint is "ks1_" followed by 24 hex digits of
	// HMAC-SHA-256(key, value) under the scanner's FingerprintKey.
	Fingerprint string `json:"fingerprint"`
	// ValueLength is the length of the secret value in Unicode characters
	// (after decoding, when the secret was found inside an encoded layer).
	ValueLength int `json:"value_length"`
	// Line and Column (1-based; Column counts Unicode characters) locate
	// the start of the secret in the scanned text. For a secret found in
	// an encoded layer they point at the start of the encoded span.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Offset and End are the byte span of the secret (or of the encoded
	// span) in the scanned text.
	Offset int `json:"offset"`
	End    int `json:"end"`
	// Encoding names the layers the secret was found under, outermost
	// first, joined by "+": "base64", "url", "json", "quoted_printable".
	// Empty for plain text.
	Encoding string `json:"encoding,omitempty"`
	// Evidence lists what supports the finding, e.g. "prefix",
	// "checksum_valid", "checksum_invalid", "keyword", "entropy".
	Evidence []string `json:"evidence,omitempty"`
	// Parts locates each piece of a credential found as several values:
	// an AWS key ID ("key_id") with its secret access key ("secret").
	// Line, Column, Offset and End above are those of the secret. Empty
	// for a credential in one piece.
	Parts []Part `json:"parts,omitempty"`

	secret *secretValue
	// strong is set when the rule's matches carry a distinctive prefix or
	// structure: a portable baseline digests them with HMAC, not PBKDF2.
	strong bool
}

// secretValue holds a matched value. It is only ever referenced through a
// pointer in an unexported field, so fmt prints an address, never the value.
type secretValue struct{ v string }

func (*secretValue) String() string   { return "[REDACTED]" }
func (*secretValue) GoString() string { return "[REDACTED]" }

// String describes d without its value.
func (d Detection) String() string {
	return fmt.Sprintf("%s %s severity=%s confidence=%.2f line=%d column=%d length=%d fingerprint=%s",
		d.RuleID, d.Type, d.Severity, d.Confidence, d.Line, d.Column, d.ValueLength, d.Fingerprint)
}

// GoString is like String; it keeps %#v from walking into unexported fields.
func (d Detection) GoString() string { return "secretscan.Detection{" + d.String() + "}" }

// Format implements fmt.Formatter so that every verb prints the redacted form.
func (d Detection) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(d.GoString()))
		return
	}
	_, _ = f.Write([]byte(d.String()))
}

// LogValue implements slog.LogValuer.
func (d Detection) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("rule_id", d.RuleID),
		slog.String("type", d.Type),
		slog.String("severity", d.Severity.String()),
		slog.String("confidence", strconv.FormatFloat(d.Confidence, 'f', 2, 64)),
		slog.Int("line", d.Line),
		slog.Int("column", d.Column),
		slog.Int("value_length", d.ValueLength),
		slog.String("fingerprint", d.Fingerprint),
	)
}

// Part locates one piece of a credential made of several values, in the
// coordinates of Detection.
type Part struct {
	Name   string `json:"name"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Offset int    `json:"offset"`
	End    int    `json:"end"`
}

// Result is the outcome of one scan.
type Result struct {
	// Detections in deterministic order: by Offset, then RuleID.
	Detections []Detection `json:"detections"`
	// TextLength is the length of the scanned text in Unicode characters.
	TextLength int `json:"text_length"`
	// Suppressed counts detections dropped by an inline allow comment or
	// by the baseline.
	Suppressed int `json:"suppressed"`
	// Truncated is set when more than the detection cap matched (the
	// first detections by offset are kept) or when the text held more
	// than a million keyword occurrences and matching stopped early.
	Truncated bool `json:"truncated,omitempty"`
	// Rejected lists, in text order, the candidates that a filter turned
	// down, when Options.ExplainFilters is set.
	Rejected []Rejection `json:"rejected,omitempty"`
}
