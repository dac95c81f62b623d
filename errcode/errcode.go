// Package errcode is the one error type of Warden's engines and SDK: a
// stable snake_case code and a short public message that are safe to show
// to a client or a model, optional public details, and a cause that is for
// logs only.
//
// Every engine (secret scanning, the SSRF-safe fetcher, website checks,
// binary views) returns *Error, and the tool SDK's tool.Error is the same
// type, so a handler may return an engine's error as it is: the client sees
// the code and the message, the server log sees the cause.
//
//	if n > max {
//		return errcode.New("file_too_large", "the file is larger than 64 MiB")
//	}
//	if err != nil {
//		return errcode.Wrap("read_failed", "the file cannot be read", err)
//	}
//
// Error() returns only "code: message". The cause is reachable through
// errors.Unwrap and errors.As, and is written out by LogValue, never by
// Error(), so printing an error to a client cannot leak a path or an
// upstream body by accident.
package errcode

import (
	"errors"
	"log/slog"
	"time"
)

// Error is an error with a public face.
type Error struct {
	// Code is a stable snake_case identifier; clients branch on it.
	Code string
	// Message is short and public: no path, secret, address or upstream
	// text.
	Message string
	// Details are public, JSON-serializable facts a client can act on
	// ({"retryAfterSeconds": 30}, the open view handles). Nil: none.
	Details map[string]any
	// RetryAfter is when trying again may succeed; zero when a retry
	// will not help or nobody knows.
	RetryAfter time.Duration
	// Cause is the underlying error, for logs only. Nil: none.
	Cause error
}

// New returns an error with a code and a public message.
func New(code, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Wrap returns an error with a code and a public message around a cause
// that only logs will see.
func Wrap(code, message string, cause error) *Error {
	return &Error{Code: code, Message: message, Cause: cause}
}

// Error returns "code: message". It never includes the cause.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Is reports whether target is an *Error with the same code and no
// message of its own, so errors.Is(err, &errcode.Error{Code: c}) and
// sentinel values made with New(c, "") match on the code alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Message == "" || t.Message == e.Message) && t.Cause == nil
}

// LogValue writes the code, the message and the cause, for server logs.
func (e *Error) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("code", e.Code), slog.String("message", e.Message)}
	if e.Cause != nil {
		attrs = append(attrs, slog.String("cause", e.Cause.Error()))
	}
	if e.RetryAfter > 0 {
		attrs = append(attrs, slog.Duration("retry_after", e.RetryAfter))
	}
	return slog.GroupValue(attrs...)
}

// WithDetail returns a copy of e with one more public detail.
func (e *Error) WithDetail(key string, value any) *Error {
	c := *e
	c.Details = make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		c.Details[k] = v
	}
	c.Details[key] = value
	return &c
}

// As finds the first *Error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Find returns the first *Error in err's tree (depth first, as errors.As
// walks it) whose code satisfies owns. An engine finds its own error with
// it even when another engine wrapped that error in one of its own (a
// website scan's site_unreachable around the fetcher's blocked_ip).
func Find(err error, owns func(code string) bool) (*Error, bool) {
	for err != nil {
		if e, ok := err.(*Error); ok && owns(e.Code) {
			return e, true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				if e, ok := Find(inner, owns); ok {
					return e, true
				}
			}
			return nil, false
		default:
			return nil, false
		}
	}
	return nil, false
}

// CodeOf returns the code of the first *Error in err's chain, or "" when
// there is none (or err is nil).
func CodeOf(err error) string {
	if e, ok := As(err); ok {
		return e.Code
	}
	return ""
}
