package limits

import (
	"errors"
	"fmt"
	"net/http"
	"time"
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

// Error is the typed error every control returns when it refuses. Code and
// Message are safe to show to a client; Err, the cause, is for logs only.
type Error struct {
	Code    Code
	Message string
	// RetryAfter is when trying again may succeed; zero when retrying will
	// not help (duplicate_scan, quota conflicts) or is unknown.
	RetryAfter time.Duration
	// Err is the underlying cause (a store error), if any. Never shown to
	// clients.
	Err error
}

func newError(code Code, retry time.Duration, cause error) *Error {
	return &Error{Code: code, Message: publicMessages[code], RetryAfter: retry, Err: cause}
}

// Error returns the code and public message, and the cause when there is one.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("limits: %s: %v", e.Code, e.Err)
	}
	return fmt.Sprintf("limits: %s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same Code, so
// errors.Is(err, limits.ErrScannerBusy) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Unavailable reports whether the control could not be evaluated (the store
// failed or timed out), as opposed to having denied.
func (e *Error) Unavailable() bool {
	switch e.Code {
	case CodeRateLimitUnavailable, CodeQuotaUnavailable, CodeScanSlotsUnavailable, CodeAuditUnavailable:
		return true
	}
	return false
}

// HTTPStatus is the status to answer with when the refusal surfaces at the
// HTTP layer: 503 when the control is unavailable or the scanners are busy,
// 409 for a duplicate or conflicting call, 429 for spent limits.
func (e *Error) HTTPStatus() int {
	switch {
	case e.Unavailable(), e.Code == CodeScannerBusy:
		return http.StatusServiceUnavailable
	case e.Code == CodeDuplicateScan, e.Code == CodeIdempotencyConflict, e.Code == CodeLeaseLost:
		return http.StatusConflict
	case e.Code == CodeInvalidRequest:
		return http.StatusBadRequest
	}
	return http.StatusTooManyRequests
}

// Sentinels for errors.Is. Compare by code only; never return them directly.
var (
	ErrRateLimited            = &Error{Code: CodeRateLimited}
	ErrRateLimitExceeded      = &Error{Code: CodeRateLimitExceeded}
	ErrQuotaExceeded          = &Error{Code: CodeQuotaExceeded}
	ErrTooManyConcurrentScans = &Error{Code: CodeTooManyConcurrentScans}
	ErrDuplicateScan          = &Error{Code: CodeDuplicateScan}
	ErrScannerBusy            = &Error{Code: CodeScannerBusy}
	ErrIdempotencyConflict    = &Error{Code: CodeIdempotencyConflict}
	ErrLeaseLost              = &Error{Code: CodeLeaseLost}
	ErrInvalidRequest         = &Error{Code: CodeInvalidRequest}
	ErrRateLimitUnavailable   = &Error{Code: CodeRateLimitUnavailable}
	ErrQuotaUnavailable       = &Error{Code: CodeQuotaUnavailable}
	ErrScanSlotsUnavailable   = &Error{Code: CodeScanSlotsUnavailable}
	ErrAuditUnavailable       = &Error{Code: CodeAuditUnavailable}
)

// ErrStoreLeaseLost is what a ScanStore returns from RenewLease when the
// lease no longer exists or has expired. It is a store-level sentinel: the
// Limiter turns it into an *Error with CodeLeaseLost.
var ErrStoreLeaseLost = errors.New("limits: lease not held")

// CodeOf returns the Code of err if it is (or wraps) an *Error, and "" if
// err is nil. Any other error maps to "internal_error", so audit records
// always carry a code.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return "internal_error"
}
