package limits

import (
	"errors"
	"net/http"
	"time"

	"github.com/warden-mcp/warden/errcode"
)

// Code is a stable, snake_case reason a control refused. Codes are part of
// the public contract: clients and dashboards match on them.
type Code string

// Denials: the control was evaluated and said no.
const (
	// CodeRateLimited: the transport rate limit for the credential is spent.
	CodeRateLimited Code = "rate_limited"
	// CodeRateLimitExceeded: the short scan rate window is spent.
	CodeRateLimitExceeded Code = "rate_limit_exceeded"
	// CodeQuotaExceeded: the monthly scan allowance is spent.
	CodeQuotaExceeded Code = "quota_exceeded"
	// CodeTooManyConcurrentScans: the credential already runs its maximum.
	CodeTooManyConcurrentScans Code = "too_many_concurrent_scans"
	// CodeDuplicateScan: the same tool with the same arguments is already
	// running for the credential.
	CodeDuplicateScan Code = "duplicate_scan"
	// CodeScannerBusy: every scanner slot is taken.
	CodeScannerBusy Code = "scanner_busy"
	// CodeIdempotencyConflict: a call id was reused for a different scan.
	CodeIdempotencyConflict Code = "idempotency_conflict"
	// CodeLeaseLost: a scan's lease expired or was released; the scan must
	// stop.
	CodeLeaseLost Code = "lease_lost"
	// CodeInvalidRequest: the caller passed an empty or oversized id.
	CodeInvalidRequest Code = "invalid_limits_request"
)

// Failures: the control could not be evaluated, so the operation is refused.
const (
	CodeRateLimitUnavailable Code = "rate_limit_unavailable"
	CodeQuotaUnavailable     Code = "quota_unavailable"
	CodeScanSlotsUnavailable Code = "scan_slots_unavailable"
	CodeAuditUnavailable     Code = "audit_unavailable"
)

var publicMessages = map[Code]string{
	CodeRateLimited:            "rate limit exceeded for this credential",
	CodeRateLimitExceeded:      "scan rate limit exceeded for this credential",
	CodeQuotaExceeded:          "monthly scan quota exhausted for this credential",
	CodeTooManyConcurrentScans: "too many concurrent scans for this credential",
	CodeDuplicateScan:          "an identical scan is already running",
	CodeScannerBusy:            "all scanners are busy",
	CodeIdempotencyConflict:    "call id already used for a different scan",
	CodeLeaseLost:              "scan slot lease lost",
	CodeInvalidRequest:         "invalid limits request",
	CodeRateLimitUnavailable:   "rate limit temporarily unavailable",
	CodeQuotaUnavailable:       "quota temporarily unavailable",
	CodeScanSlotsUnavailable:   "scan slots temporarily unavailable",
	CodeAuditUnavailable:       "audit log temporarily unavailable",
}

// Every control refuses with an *errcode.Error carrying one of the codes
// above. Code and Message are safe to show to a client; RetryAfter is when
// trying again may succeed (zero when retrying will not help, as for
// duplicate_scan, or is unknown); Cause, a store error, is for logs only.

func newError(code Code, retry time.Duration, cause error) *errcode.Error {
	e := errcode.Wrap(string(code), publicMessages[code], cause)
	e.RetryAfter = retry
	return e
}

// find returns the first *errcode.Error in err's tree, depth first as
// errors.As walks it, whose code is one of this package's.
func find(err error) *errcode.Error {
	e, _ := errcode.Find(err, func(code string) bool { return publicMessages[Code(code)] != "" })
	return e
}

// AsError returns the first refusal of this package in err's tree, so that
// a caller can read its code, public message and Retry-After hint.
func AsError(err error) (*errcode.Error, bool) {
	e := find(err)
	return e, e != nil
}

// Unavailable reports whether err says that a control could not be
// evaluated (the store failed or timed out), as opposed to having denied.
func Unavailable(err error) bool {
	if e := find(err); e != nil {
		switch Code(e.Code) {
		case CodeRateLimitUnavailable, CodeQuotaUnavailable, CodeScanSlotsUnavailable, CodeAuditUnavailable:
			return true
		}
	}
	return false
}

// HTTPStatus is the status to answer with when the refusal err surfaces at
// the HTTP layer: 503 when the control is unavailable or the scanners are
// busy, 409 for a duplicate or conflicting call, 400 for an invalid
// request, 429 for spent limits. An error that is not a refusal of this
// package gets 503: the control could not say yes.
func HTTPStatus(err error) int {
	e := find(err)
	switch {
	case e == nil, Unavailable(e), Code(e.Code) == CodeScannerBusy:
		return http.StatusServiceUnavailable
	case Code(e.Code) == CodeDuplicateScan, Code(e.Code) == CodeIdempotencyConflict, Code(e.Code) == CodeLeaseLost:
		return http.StatusConflict
	case Code(e.Code) == CodeInvalidRequest:
		return http.StatusBadRequest
	}
	return http.StatusTooManyRequests
}

// Sentinels for errors.Is. Compare by code only; never return them directly.
var (
	ErrRateLimited            = errcode.New(string(CodeRateLimited), "")
	ErrRateLimitExceeded      = errcode.New(string(CodeRateLimitExceeded), "")
	ErrQuotaExceeded          = errcode.New(string(CodeQuotaExceeded), "")
	ErrTooManyConcurrentScans = errcode.New(string(CodeTooManyConcurrentScans), "")
	ErrDuplicateScan          = errcode.New(string(CodeDuplicateScan), "")
	ErrScannerBusy            = errcode.New(string(CodeScannerBusy), "")
	ErrIdempotencyConflict    = errcode.New(string(CodeIdempotencyConflict), "")
	ErrLeaseLost              = errcode.New(string(CodeLeaseLost), "")
	ErrInvalidRequest         = errcode.New(string(CodeInvalidRequest), "")
	ErrRateLimitUnavailable   = errcode.New(string(CodeRateLimitUnavailable), "")
	ErrQuotaUnavailable       = errcode.New(string(CodeQuotaUnavailable), "")
	ErrScanSlotsUnavailable   = errcode.New(string(CodeScanSlotsUnavailable), "")
	ErrAuditUnavailable       = errcode.New(string(CodeAuditUnavailable), "")
)

// ErrStoreLeaseLost is what a ScanStore returns from RenewLease when the
// lease no longer exists or has expired. It is a store-level sentinel: the
// Limiter turns it into an *errcode.Error with CodeLeaseLost.
var ErrStoreLeaseLost = errors.New("limits: lease not held")

// CodeOf returns the code of the first refusal of this package in err's
// tree, and "" if err is nil. Any other error maps to "internal_error", so
// audit records always carry a code.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	if e := find(err); e != nil {
		return Code(e.Code)
	}
	return "internal_error"
}
