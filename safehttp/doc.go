// Package safehttp is an HTTP client for fetching URLs chosen by untrusted
// callers without letting them reach internal networks (SSRF).
//
// Every URL passes one fixed pipeline before any socket is opened; each
// failing input yields exactly one error code:
//
//  1. raw input at most MaxURLLength bytes           url_too_long
//  2. no ASCII control or space bytes; parses        invalid_target
//  3. scheme http or https                           invalid_scheme
//  4. no user-info, even empty                       credentials_in_url
//  5. host syntax: non-empty, valid UTF-8, no IPv6
//     zone, IDNA mapping (and its result a fixed
//     point), label and name lengths, hosts whose
//     last label is numeric must be valid IPv4 in
//     some notation (decimal, octal, hex, shortened)  invalid_target
//  6. port 80 or 443                                 blocked_port
//  7. canonical URL at most MaxURLLength bytes       url_too_long
//  8. IP literals (all notations) pass Classify      blocked_ip
//  9. host names pass the name rules                 blocked_hostname
//  10. DNS answers (every one) pass Classify        dns_resolution_failed / blocked_ip
//
// The length cap applies twice on purpose. Step 1 bounds the work done on
// untrusted input before any parsing. Step 7 bounds the canonical URL, the
// one actually sent, which can be longer than the input: bytes outside ASCII
// are percent-encoded (one byte becomes three) and IDN hosts become punycode.
// So every accepted Target's URL fits the cap and validates again to itself.
//
// The answers of step 10 are pinned: the dialer connects only to them, and its
// control hook runs Classify again on the address actually dialled, so a
// DNS rebinding between validation and connection cannot succeed. Every
// redirect goes through the whole pipeline again, at most MaxRedirects times.
//
// Classify is a pure function over net/netip; it names each special-purpose
// range and also defers to the IANA tables of code.dny.dev/ssrf.
//
// Send makes one request with any method (CONNECT aside), headers and a
// body to a validated Target and follows no redirect, so that a caller
// that acts on a person's behalf (http_request) can check each hop against
// its own scope before validating it here from scratch.
//
// Options.AllowPrivate and Options.AllowPorts widen steps 6, 8, 9 and 10
// (and the control hook) for one command-line scan of a person's own
// development site; cloud-metadata endpoints stay refused. Reason.Describe
// words a refusal for people.
//
// Errors are *Error values with a stable Code and a short public message;
// the cause, such as a *BlockedError naming the refused address, is reachable
// with errors.As for logging only.
// Errors are *errcode.Error values with a stable Code and a short public
// message; the cause, such as a *BlockedError naming the refused address, is
// reachable with errors.As for logging only. ErrorCode reads the code and
// ErrorHop the redirect at which a fetch failed.
package safehttp
