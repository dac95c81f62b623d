package approval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	"sync"
	"time"
)

// An out-of-band approval request: a call that needed a person's approval
// from a client that cannot ask. The call answers approval_required with a
// link to the request's page; the person decides there; the retried call
// (same caller, tool and arguments) finds the decision by its Match key
// and spends it.

// States of a Request.
const (
	StatePending  = "pending"  // waiting for the person
	StateApproved = "approved" // approved for one call
	// StateApprovedSession is approved for this call, and the tool for
	// the rest of the session (legacy) or the approval's lifetime for this
	// credential and client (stateless).
	StateApprovedSession = "approved_session"
	StateDenied          = "denied"
)

// Errors of a RequestStore.
var (
	// ErrNotFound: no request has that id.
	ErrNotFound = errors.New("approval request not found")
	// ErrNotPending: the request was decided, spent or has expired.
	ErrNotPending = errors.New("approval request is no longer open")
)

// Request is one out-of-band approval request. It holds no credential
// value: the caller is a hash, the summary passed the secret filter.
type Request struct {
	// ID names the request in its link: 32 hex digits of randomness.
	ID string
	// Match is Key(caller, session scope, tool, arguments hash): the key
	// the retried call looks the request up by.
	Match string
	// Caller is Key(issuer, tenant, credential): who may decide.
	Caller string
	// Owner is Key(issuer, tenant): a console signed in as the owner of
	// the whole tenant (the local user) may decide too.
	Owner string
	// Tenant is the caller's tenant, for the console's listing.
	Tenant string
	// Grant is the approval key an "approve for this session" decision
	// grants (the gate's key for the tool); empty: not offered.
	Grant string
	// Tool and Trust name the tool and its trust tier.
	Tool, Trust string
	// Summary says in plain words what the call will do, credentials
	// hidden.
	Summary string
	// State is one of the State constants; DecidedBy names who decided
	// (a console subject) and DecidedAt when.
	State     string
	DecidedBy string
	// Spent: the retried call used the decision (approved or denied).
	Spent     bool
	Created   time.Time
	Expires   time.Time
	DecidedAt time.Time
}

// Open reports whether the request may still be decided at now.
func (r Request) Open(now time.Time) bool {
	return r.State == StatePending && now.Before(r.Expires)
}

// RequestStore keeps out-of-band approval requests, shared by replicas.
// Implementations must be safe for concurrent use.
type RequestStore interface {
	// CreateApprovalRequest stores a new request.
	CreateApprovalRequest(ctx context.Context, r Request) error
	// ApprovalRequest returns the request with id, or ErrNotFound.
	ApprovalRequest(ctx context.Context, id string) (Request, error)
	// LatestApprovalRequest returns the newest request with the match
	// key that has not expired by now and is not spent, or ErrNotFound.
	LatestApprovalRequest(ctx context.Context, match string, now time.Time) (Request, error)
	// DecideApprovalRequest moves a pending, unexpired request to state
	// (approved, approved_session or denied), recording who and when;
	// ErrNotPending if it was not open, ErrNotFound if there is none.
	DecideApprovalRequest(ctx context.Context, id, state, by string, at time.Time) error
	// SpendApprovalRequest marks a decided request spent, once: of two
	// retries only one spends it (ErrNotPending for the other).
	SpendApprovalRequest(ctx context.Context, id string) error
	// OpenApprovalRequests counts a caller's requests still open at now
	// (pending, unexpired).
	OpenApprovalRequests(ctx context.Context, caller string, now time.Time) (int, error)
	// ApprovalRequests lists a tenant's requests, newest first, at most
	// limit of them.
	ApprovalRequests(ctx context.Context, tenant string, limit int) ([]Request, error)
}

// History is how long a request is kept past its expiry, for the
// console's history of who decided; stores prune it after.
const History = 7 * 24 * time.Hour

// NewID returns a fresh request id: 128 random bits in hex.
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ValidID reports whether s has the shape of a request id, so that a
// page refuses anything else before a look-up.
func ValidID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Decided reports whether state is a decision a person can make.
func Decided(state string) bool {
	return state == StateApproved || state == StateApprovedSession || state == StateDenied
}

// MemoryRequests is a RequestStore held in process memory, bounded: for
// stdio, tests and servers without a shared store.
type MemoryRequests struct {
	mu   sync.Mutex
	reqs map[string]Request
	max  int
}

// NewMemoryRequests returns a store that keeps at most max requests (0:
// 10,000); past it the oldest are dropped.
func NewMemoryRequests(max int) *MemoryRequests {
	if max <= 0 {
		max = 10000
	}
	return &MemoryRequests{reqs: map[string]Request{}, max: max}
}

// CreateApprovalRequest implements RequestStore.
func (m *MemoryRequests) CreateApprovalRequest(_ context.Context, r Request) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for len(m.reqs) >= m.max {
		oldest := ""
		for id, x := range m.reqs {
			if oldest == "" || x.Created.Before(m.reqs[oldest].Created) {
				oldest = id
			}
		}
		delete(m.reqs, oldest)
	}
	m.reqs[r.ID] = r
	return nil
}

// ApprovalRequest implements RequestStore.
func (m *MemoryRequests) ApprovalRequest(_ context.Context, id string) (Request, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.reqs[id]
	if !ok {
		return Request{}, ErrNotFound
	}
	return r, nil
}

// LatestApprovalRequest implements RequestStore.
func (m *MemoryRequests) LatestApprovalRequest(_ context.Context, match string, now time.Time) (Request, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var best Request
	found := false
	for _, r := range m.reqs {
		if r.Match != match || r.Spent || !now.Before(r.Expires) {
			continue
		}
		if !found || r.Created.After(best.Created) {
			best, found = r, true
		}
	}
	if !found {
		return Request{}, ErrNotFound
	}
	return best, nil
}

// DecideApprovalRequest implements RequestStore.
func (m *MemoryRequests) DecideApprovalRequest(_ context.Context, id, state, by string, at time.Time) error {
	if !Decided(state) {
		return errors.New("approval: not a decision: " + state)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.reqs[id]
	if !ok {
		return ErrNotFound
	}
	if !r.Open(at) {
		return ErrNotPending
	}
	r.State, r.DecidedBy, r.DecidedAt = state, by, at
	m.reqs[id] = r
	return nil
}

// SpendApprovalRequest implements RequestStore.
func (m *MemoryRequests) SpendApprovalRequest(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.reqs[id]
	if !ok {
		return ErrNotFound
	}
	if r.Spent || !Decided(r.State) {
		return ErrNotPending
	}
	r.Spent = true
	m.reqs[id] = r
	return nil
}

// OpenApprovalRequests implements RequestStore.
func (m *MemoryRequests) OpenApprovalRequests(_ context.Context, caller string, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, r := range m.reqs {
		if r.Caller == caller && r.Open(now) {
			n++
		}
	}
	return n, nil
}

// ApprovalRequests implements RequestStore.
func (m *MemoryRequests) ApprovalRequests(_ context.Context, tenant string, limit int) ([]Request, error) {
	m.mu.Lock()
	var out []Request
	for _, r := range m.reqs {
		if r.Tenant == tenant {
			out = append(out, r)
		}
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b Request) int { return b.Created.Compare(a.Created) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
