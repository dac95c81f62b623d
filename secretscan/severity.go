package secretscan

import (
	"fmt"

	"github.com/warden-mcp/warden/errcode"
)

// Severity says how much damage a leaked credential of a type can do. The
// zero value is SeverityNone, which no detection carries.
type Severity int

// Severities, lowest first. Their text forms are "none", "low", "medium",
// "high" and "critical".
const (
	SeverityNone Severity = iota
	SeverityLow
	SeverityMedium
	SeverityHigh
	SeverityCritical
)

var severityNames = [...]string{"none", "low", "medium", "high", "critical"}

// String returns the lower-case name of s.
func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return "none"
	}
	return severityNames[s]
}

// MarshalText implements encoding.TextMarshaler.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity parses a severity name as produced by String.
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if n == name {
			return Severity(i), nil
		}
	}
	return SeverityNone, errcode.New(CodeInvalidArgument, fmt.Sprintf("unknown severity %q", name))
}
