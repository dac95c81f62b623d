package webscan

import "fmt"

// Error codes returned by Scan. They are stable snake_case strings.
const (
	CodeURLTooLong       = "url_too_long"
	CodeInvalidTarget    = "invalid_target"
	CodeInvalidScheme    = "invalid_scheme"
	CodeCredentialsInURL = "credentials_in_url"
	CodeNotConfigured    = "not_configured"
	CodeSiteUnreachable  = "site_unreachable"
	CodeScanCanceled     = "scan_canceled"
)

// Error is the typed error returned by Scan. Code and Message are safe to
// show to a client; Err is the cause, for logs only, and is reachable with
// errors.Is and errors.As (for example the SSRF client's blocked-address
// error).
type Error struct {
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("webscan: %s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("webscan: %s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, &webscan.Error{Code: webscan.CodeInvalidScheme}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}
