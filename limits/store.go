package limits

import (
	"context"
	"time"
)

// Store is everything the Limiter needs from storage. Adapters live in
// store/sqlite and store/postgres; store/storetest is the behaviour suite
// each must pass. Every method must be safe for concurrent use, including by
// several processes sharing the same database, and must take the time it is
// given rather than reading its own clock.
type Store interface {
	RateStore
	ScanStore
	AuditStore
	UsageStore
	// Ping reports whether the store is reachable and migrated; readiness
	// probes call it.
	Ping(ctx context.Context) error
}

// RateStore keeps sliding logs.
type RateStore interface {
	// TakeRate atomically applies [TakeLog] at now to the log under key and
	// stores the result.
	TakeRate(ctx context.Context, key string, now time.Time, p RatePolicy) (RateDecision, error)
}

// ScanStore keeps scan leases, the charge ledger and monthly counters.
type ScanStore interface {
	// AdmitScan runs the admission steps described in the package
	// documentation in one transaction, and either commits all of them or
	// none. A refusal is reported in Admission.Refusal with a nil error; an
	// error means the store could not decide.
	AdmitScan(ctx context.Context, a Admit) (Admission, error)
	// RenewLease extends a live lease to now+ttl. It returns
	// ErrStoreLeaseLost if the lease is unknown or expired at now.
	RenewLease(ctx context.Context, leaseID string, now time.Time, ttl time.Duration) error
	// ReleaseLease frees a lease. Releasing an unknown lease is not an error.
	ReleaseLease(ctx context.Context, leaseID string) error
	// RefundScan deletes the ledger row of (credential, callID) and returns
	// its monthly unit. It reports whether there was a row.
	RefundScan(ctx context.Context, credential, callID string) (bool, error)
	// CancelAdmission undoes the admission a, whose answer the Limiter
	// never received (its deadline passed or the connection broke while
	// the store may have committed it), and fences it: a.LeaseID stays
	// fenced until now+a.LeaseTTL, so that an AdmitScan with it still in
	// flight fails (an error, nothing committed) rather than take a slot
	// no one will release. If the admission did commit, its lease is
	// freed and the charge it made (the ledger row of a.Credential and
	// a.CallID that it wrote under a.LeaseID, not one an earlier
	// admission of the same call wrote) is deleted and its monthly unit
	// given back; the short rate window is not. It reports whether a
	// charge was given back. Cancelling twice, or an admission the store
	// never saw, is not an error.
	CancelAdmission(ctx context.Context, a Admit, now time.Time) (refunded bool, err error)
}

// AuditStore keeps audit records.
type AuditStore interface {
	// AppendAudit appends the records in one transaction: all of them or
	// none. The Limiter passes the records of calls that ended together
	// (group commit) and returns to each caller only once they are
	// committed. A record already kept (every field equal) is skipped,
	// not kept twice: a commit
	// whose answer was lost may have committed, and the Limiter's repair
	// writes its records again.
	AppendAudit(ctx context.Context, rs ...AuditRecord) error
	// QueryAudit returns matching records, newest first, at most f.Limit
	// (already defaulted and bounded by the Limiter).
	QueryAudit(ctx context.Context, f AuditFilter) ([]AuditRecord, error)
}

// Admit is one scan admission request as the store sees it. All limits are
// resolved by the Limiter before the call.
type Admit struct {
	Now        time.Time
	Credential string
	Tenant     string
	Tool       string
	// ScanKey identifies the scan for duplicate detection (see ScanKey).
	ScanKey string
	// LeaseID is a fresh random id, chosen by the Limiter, that the store
	// must use for the new lease and record beside the charge, so that
	// CancelAdmission can find both. An admission with a fenced lease id
	// must fail.
	LeaseID  string
	LeaseTTL time.Duration
	// MaxPerCredential and Capacity are the concurrency limits.
	MaxPerCredential int
	Capacity         int
	// Charge says whether the call consumes quota. When false, CallID, Rate
	// and Monthly are ignored and only a slot is taken.
	Charge bool
	// CallID is the call's idempotency key, scoped to the credential.
	CallID string
	// Rate is the short scan window, applied to key "scan:"+Credential.
	Rate RatePolicy
	// Period names the monthly counter (UTC "YYYY-MM").
	Period string
	// Monthly is the allowance for Period; negative means no cap.
	Monthly int64
}

// Admission is a store's answer to Admit.
type Admission struct {
	// Refusal is empty when admitted, else one of CodeDuplicateScan,
	// CodeTooManyConcurrentScans, CodeScannerBusy, CodeIdempotencyConflict,
	// CodeRateLimitExceeded, CodeQuotaExceeded.
	Refusal Code
	// RetryAfter accompanies a refusal when waiting can help: the soonest
	// lease expiry for busy/too-many, the rate window's RetryAfter.
	RetryAfter time.Duration
	// Charged reports whether this call consumed a unit now. A replayed
	// CallID is admitted with Charged false.
	Charged bool
	// MonthlyUsed is the period's count after this call (charged calls only).
	MonthlyUsed int64
	// LeaseExpires is the new lease's expiry.
	LeaseExpires time.Time
}

// AuditRecord is one tool call. It deliberately has no field for arguments
// or results.
type AuditRecord struct {
	Time          time.Time
	CorrelationID string
	Credential    string
	Tenant        string
	Tool          string
	// Outcome is "ok" or the error code the call ended with.
	Outcome  string
	Duration time.Duration
	// QuotaCharged is the units the call was charged: 1 or 0, or -1 on
	// the record of a refund given after the call's own record was
	// written, so that the trail's sum is what the ledger holds.
	QuotaCharged int64
}

// AuditFilter selects audit records. Zero fields do not filter.
type AuditFilter struct {
	// Since and Until bound Time: Since ≤ Time < Until.
	Since, Until time.Time
	Credential   string
	Tenant       string
	Tool         string
	Outcome      string
	// Limit caps the rows returned. Zero: 100. At most MaxAuditQueryLimit.
	Limit int
}
