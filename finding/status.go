package finding

import (
	"context"
	"errors"
	"time"
)

// Triage states a person sets on a finding (the console's "mark as").
const (
	StatusOpen     = "open"     // the default: nobody has triaged it
	StatusAccepted = "accepted" // an accepted risk
	StatusFixed    = "fixed"
)

// ValidStatus reports whether s is a triage state.
func ValidStatus(s string) bool {
	return s == StatusOpen || s == StatusAccepted || s == StatusFixed
}

// ErrNotFound: the tenant has no finding with that id.
var ErrNotFound = errors.New("finding: no such finding")

// Status is a finding's triage state, who set it and when.
type Status struct {
	State string
	By    string
	At    time.Time
}

// StatusStore keeps the triage state of findings, per tenant. The stores
// implement it beside Store.
type StatusStore interface {
	// SetFindingStatus sets the state of the tenant's finding id;
	// ErrNotFound when the tenant has no such finding.
	SetFindingStatus(ctx context.Context, tenant, id string, st Status) error
	// FindingStatuses returns the states set on the tenant's findings
	// among ids; a finding without one is open.
	FindingStatuses(ctx context.Context, tenant string, ids []string) (map[string]Status, error)
}
