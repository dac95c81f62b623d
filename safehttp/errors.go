package safehttp

import (
	"fmt"
	"net/netip"
	"strconv"
)

// Code is a stable snake_case error identifier. Codes are part of the public
// API: they never change meaning and tests use them as oracles.
type Code string

// Error codes, in the order validation checks them (see doc.go).
const (
	CodeURLTooLong          Code = "url_too_long"          // raw or canonical URL longer than MaxURLLength
	CodeInvalidTarget       Code = "invalid_target"        // unparsable URL, bad host syntax, zone id, malformed numeric host
	CodeInvalidScheme       Code = "invalid_scheme"        // scheme other than http or https
	CodeCredentialsInURL    Code = "credentials_in_url"    // any user-info, even empty
	CodeBlockedPort         Code = "blocked_port"          // port other than 80 or 443
	CodeBlockedIP           Code = "blocked_ip"            // literal, resolved or dialled address refused by Classify
	CodeBlockedHostname     Code = "blocked_hostname"      // localhost, special-use suffixes, single-label or non-ICANN names
	CodeDNSResolutionFailed Code = "dns_resolution_failed" // lookup error, timeout or empty answer
	CodeTooManyRedirects    Code = "too_many_redirects"    // more than MaxRedirects hops
	CodeTimeout             Code = "timeout"               // connect, read or overall deadline reached
	CodeTLSFailed           Code = "tls_failed"            // TLS handshake or certificate verification failed
	CodeResponseTooLarge    Code = "response_too_large"    // body read past the cap through HTTPClient
	CodeScanFailed          Code = "scan_failed"           // any other transport failure (refused, reset, bad response)
)

var publicMessages = map[Code]string{
	CodeURLTooLong:          "URL is too long",
	CodeInvalidTarget:       "URL or host is not valid",
	CodeInvalidScheme:       "only http and https URLs are allowed",
	CodeCredentialsInURL:    "URLs must not contain credentials",
	CodeBlockedPort:         "only ports 80 and 443 are allowed",
	CodeBlockedIP:           "target address is not allowed",
	CodeBlockedHostname:     "target host name is not allowed",
	CodeDNSResolutionFailed: "host name could not be resolved",
	CodeTooManyRedirects:    "too many redirects",
	CodeTimeout:             "request timed out",
	CodeTLSFailed:           "TLS connection failed",
	CodeResponseTooLarge:    "response body is too large",
	CodeScanFailed:          "request failed",
}

// Error is what every exported function of this package returns on failure.
// Error() shows only the code and a short public message, safe to hand to a
// client or a model. The cause (addresses, resolver and transport errors) is
// reachable through Unwrap and errors.As for logging, never through Error().
type Error struct {
	Code    Code   // stable identifier
	Message string // short public message, no internal detail
	// Hop is the number of redirects followed before the failure: 0 for the
	// URL the caller gave, 1 for the first Location, and so on.
	Hop int
	Err error // cause, for logs; may be nil
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, &Error{Code: c}) match on the code alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == "" && t.Err == nil
}

func newError(code Code, cause error) *Error {
	return &Error{Code: code, Message: publicMessages[code], Err: cause}
}

// ErrorCode returns the code carried by err, or "" when err is nil. An
// error that did not come from this package (say, a body read through
// HTTPClient, or http.Client's own timeout) is classified the way the
// fetcher classifies transport errors: timeout, tls_failed or scan_failed.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	return classifyErr(err).Code
}

// BlockedError carries what was refused and why. It is the cause inside an
// *Error with code blocked_ip, blocked_hostname or blocked_port, so
// errors.As(err, &blocked) finds it. Its text names the address or host:
// log it, do not return it to clients.
type BlockedError struct {
	Addr   netip.Addr // refused address, when an address was refused
	Host   string     // refused host name, when a name was refused
	Port   uint16     // refused port, when the port was refused
	Reason Reason
	// AtDial is true when the dialer's control hook refused the address,
	// i.e. after validation had passed (rebinding or a pinning bug).
	AtDial bool
}

func (b *BlockedError) Error() string {
	what := b.Host
	if b.Addr.IsValid() {
		what = b.Addr.String()
		if v4, ok := Embedded(b.Addr); ok {
			what += " (embeds " + v4.String() + ")"
		}
	}
	if b.Port != 0 {
		what += " port " + strconv.Itoa(int(b.Port))
	}
	stage := "validation"
	if b.AtDial {
		stage = "dial"
	}
	return fmt.Sprintf("safehttp: %s refused at %s: %s", what, stage, b.Reason)
}
