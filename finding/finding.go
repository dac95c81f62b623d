// Package finding keeps what testers and their agents found: a title, a
// severity, a target, evidence and where it came from, per tenant. The
// stores (store/sqlite, store/postgres) implement Store; findingtest is
// the behaviour suite both pass. Export writes findings for people: JSON,
// SARIF 2.1.0 and a self-contained HTML page.
//
// A tenant's findings are never visible to another tenant: every read and
// write names its tenant, and a Filter without one is refused. Sizes are
// bounded (Check) and so is the number kept per tenant (MaxPerTenant).
// Evidence is stored as given: callers redact it first (warden_findings_record
// applies the tenant's privacy mode).
package finding

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/warden-mcp/warden/errcode"
)

// Bounds.
const (
	MaxTitle     = 200      // characters
	MaxTarget    = 2048     // bytes
	MaxEvidence  = 16 << 10 // bytes, after redaction
	MaxID        = 256      // bytes of tenant, credential, tool and correlation ids
	MaxPerTenant = 10000    // findings kept per tenant
	MaxListLimit = 500      // findings one List returns
	DefaultLimit = 50
)

// Severities, most severe first.
var Severities = []string{"critical", "high", "medium", "low", "info"}

// Rank orders severities: critical 4 ... info 0; -1 for an unknown one.
func Rank(s string) int {
	for i, v := range Severities {
		if v == s {
			return len(Severities) - 1 - i
		}
	}
	return -1
}

// Error codes.
const (
	CodeInvalid     = "invalid_finding"
	CodeTenantFull  = "findings_limit_reached"
	CodeUnavailable = "findings_unavailable"
)

// ErrTenantFull is what a Store returns when the tenant holds
// MaxPerTenant findings.
var ErrTenantFull = errors.New("finding: the tenant holds the most findings kept")

// Finding is one recorded finding.
type Finding struct {
	ID            string
	Tenant        string
	Credential    string // who recorded it
	Title         string
	Severity      string
	Target        string
	Evidence      string
	SourceTool    string // the tool whose output showed it, if any
	CorrelationID string // the call that recorded it
	Created       time.Time
}

// Filter selects a tenant's findings. Tenant is required.
type Filter struct {
	Tenant string
	// MinSeverity keeps findings at or above it; "" keeps all.
	MinSeverity string
	// Target keeps findings whose target contains it, case-insensitive.
	Target string
	// SourceTool keeps findings from that tool.
	SourceTool string
	// Since and Until bound Created: Since ≤ Created < Until.
	Since, Until time.Time
	// Limit caps the findings returned, newest first. Zero:
	// DefaultLimit; at most MaxListLimit.
	Limit int
	// After, when its ID is set, pages on: only findings older than it
	// in the list's order (Created, then ID, descending).
	After Cursor
}

// Cursor is a position in a list: the last finding of the page before.
type Cursor struct {
	Created time.Time
	ID      string
}

// Store keeps findings. Implementations must be safe for concurrent use,
// by several processes sharing one database too.
type Store interface {
	// RecordFinding stores f (already checked) unless f.Tenant holds
	// MaxPerTenant findings, when it returns ErrTenantFull.
	RecordFinding(ctx context.Context, f Finding) error
	// ListFindings returns the findings f selects, newest first (Created,
	// then ID, descending), at most f.Limit (already bounded).
	ListFindings(ctx context.Context, f Filter) ([]Finding, error)
}

// NewID returns a fresh finding id.
func NewID() string { return "fnd_" + strings.ToLower(rand.Text()[:20]) }

func invalid(msg string) *errcode.Error { return errcode.New(CodeInvalid, msg) }

// Check validates and normalises f: trims, requires a title, a known
// severity and a tenant, and bounds every field.
func Check(f *Finding) error {
	f.Title = strings.TrimSpace(f.Title)
	f.Severity = strings.ToLower(strings.TrimSpace(f.Severity))
	f.Target = strings.TrimSpace(f.Target)
	switch {
	case f.Title == "":
		return invalid("a finding needs a title")
	case utf8.RuneCountInString(f.Title) > MaxTitle:
		return invalid("the title is longer than 200 characters")
	case Rank(f.Severity) < 0:
		return invalid("severity must be critical, high, medium, low or info")
	case len(f.Target) > MaxTarget:
		return invalid("the target is longer than 2048 bytes")
	case len(f.Evidence) > MaxEvidence:
		return invalid("the evidence is longer than 16 KiB")
	case f.Tenant == "":
		return invalid("a finding needs a tenant")
	}
	for _, s := range []string{f.Title, f.Target, f.Evidence, f.Tenant, f.Credential, f.SourceTool, f.CorrelationID} {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			return invalid("a field is not valid UTF-8 text")
		}
	}
	for _, s := range []string{f.Tenant, f.Credential, f.SourceTool, f.CorrelationID} {
		if len(s) > MaxID {
			return invalid("an id is longer than 256 bytes")
		}
	}
	return nil
}

// Bound applies the filter's defaults and bounds, and refuses a filter
// without a tenant.
func (f *Filter) Bound() error {
	if f.Tenant == "" {
		return invalid("a tenant is required")
	}
	if f.MinSeverity != "" && Rank(f.MinSeverity) < 0 {
		return invalid("min_severity must be critical, high, medium, low or info")
	}
	if len(f.Target) > MaxTarget || len(f.SourceTool) > MaxID {
		return invalid("a filter is too long")
	}
	switch {
	case f.Limit <= 0:
		f.Limit = DefaultLimit
	case f.Limit > MaxListLimit:
		f.Limit = MaxListLimit
	}
	return nil
}

// Record checks f, gives it an id and a time if it has none, and stores
// it. Errors are *errcode.Error: CodeInvalid, CodeTenantFull or
// CodeUnavailable (the cause kept for logs).
func Record(ctx context.Context, st Store, f *Finding, now time.Time) error {
	if err := Check(f); err != nil {
		return err
	}
	if f.ID == "" {
		f.ID = NewID()
	}
	if f.Created.IsZero() {
		f.Created = now
	}
	f.Created = f.Created.UTC().Truncate(time.Microsecond)
	err := st.RecordFinding(ctx, *f)
	switch {
	case errors.Is(err, ErrTenantFull):
		return errcode.New(CodeTenantFull, "this tenant holds 10,000 findings, the most kept; export and prune them first")
	case err != nil:
		return errcode.Wrap(CodeUnavailable, "findings cannot be stored right now", err)
	}
	return nil
}

// List bounds f and lists. Errors are *errcode.Error.
func List(ctx context.Context, st Store, f Filter) ([]Finding, error) {
	if err := f.Bound(); err != nil {
		return nil, err
	}
	out, err := st.ListFindings(ctx, f)
	if err != nil {
		return nil, errcode.Wrap(CodeUnavailable, "findings cannot be read right now", err)
	}
	return out, nil
}
