package safehttp

import (
	"fmt"
	"net/netip"
	"strconv"

	"github.com/warden-mcp/warden/errcode"
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

// Every exported function of this package fails with an *errcode.Error
// carrying one of the codes above. Error() shows only the code and a short
// public message, safe to hand to a client or a model. The cause
// (addresses, resolver and transport errors) is reachable through Unwrap
// and errors.As for logging, never through Error(). errors.Is(err,
// errcode.New(string(c), "")) matches on the code alone.

// newError returns the error of code with its public message.
func newError(code Code, cause error) *errcode.Error {
	return errcode.Wrap(string(code), publicMessages[code], cause)
}

// detailHop is the key of the redirect count in an error's Details.
const detailHop = "hop"

// atHop records in e that the failure happened after hop redirects, and
// returns e.
func atHop(e *errcode.Error, hop int) *errcode.Error {
	if hop > 0 {
		e.Details = map[string]any{detailHop: hop}
	} else {
		e.Details = nil
	}
	return e
}

// ErrorHop returns the number of redirects followed before err happened:
// 0 for the URL the caller gave, 1 for the first Location, and so on. It
// is also the error's public detail "hop".
func ErrorHop(err error) int {
	if e := find(err); e != nil {
		hop, _ := e.Details[detailHop].(int)
		return hop
	}
	return 0
}

// find returns the first *errcode.Error in err's tree, depth first as
// errors.As walks it, whose code is one of this package's. An engine that
// wraps a fetch failure in an error of its own (webscan's site_unreachable
// around a blocked_ip) leaves it findable.
func find(err error) *errcode.Error {
	e, _ := errcode.Find(err, func(code string) bool { return publicMessages[Code(code)] != "" })
	return e
}

// AsError returns the first error of this package in err's tree, so that
// a caller can read its code, public message and details.
func AsError(err error) (*errcode.Error, bool) {
	e := find(err)
	return e, e != nil
}

// ErrorCode returns the code carried by err, or "" when err is nil. An
// error that did not come from this package (say, a body read through
// HTTPClient, or http.Client's own timeout) is classified the way the
// fetcher classifies transport errors: timeout, tls_failed or scan_failed.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	return Code(classifyErr(err).Code)
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
