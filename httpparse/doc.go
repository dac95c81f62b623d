// Package httpparse reads a raw HTTP/1.1 request or response, as a tester
// pastes it from a proxy or a terminal, into its parts: method, target
// and query parameters, or status; headers in order; cookies and
// Set-Cookie attributes; the Authorization credentials; and the body,
// de-chunked, with JSON, form and multipart bodies decoded.
//
// It is lenient where people are (bare LF line ends, a missing version,
// a Content-Length that no longer matches an edited body) and reports
// each leniency as a warning, because the places where parsers disagree
// (both Content-Length and Transfer-Encoding, two different
// Content-Lengths, folded header lines) are what request smuggling is
// made of.
//
// It knows nothing of MCP: package toolset binds it to http_parse.
// Bounds: MaxInput bytes of input, MaxHeaders headers, MaxParams query,
// form and cookie parameters, MaxParts multipart parts. Errors are
// *errcode.Error values that never quote the input.
package httpparse
