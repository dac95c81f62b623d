package secretscan

import "errors"

// Error codes. They are stable snake_case strings a tool layer can return to
// its clients unchanged.
const (
	// CodeInvalidArgument: an option or argument is malformed.
	CodeInvalidArgument = "invalid_argument"
	// CodeTooLarge: the input is larger than the configured cap.
	CodeTooLarge = "input_too_large"
	// CodeCanceled: the context was cancelled or its deadline passed.
	CodeCanceled = "canceled"
	// CodeReadFailed: reading the input failed.
	CodeReadFailed = "read_failed"
	// CodeInvalidBaseline: a baseline file could not be parsed.
	CodeInvalidBaseline = "invalid_baseline"
)

// Error is the typed error returned by this package. Code is stable and
// Message is short and safe to show to a client: neither ever contains a
// scanned value. Err, when set, is the underlying cause (for logs; it may
// name a path but never a secret).
type Error struct {
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, ErrTooLarge) works.
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) {
		return t.Code == e.Code && t.Message == ""
	}
	return false
}

// Sentinels for errors.Is; they carry only a code.
var (
	ErrTooLarge = &Error{Code: CodeTooLarge}
	ErrCanceled = &Error{Code: CodeCanceled}
)
