package redact

import (
	"strings"

	"github.com/warden-mcp/warden/errcode"
)

// Mode is a privacy mode: how much of a tool's result is removed or
// replaced before a client sees it.
type Mode string

// The privacy modes. Balanced is the default.
const (
	// Strict is Balanced plus stable pseudonyms for host names, IP
	// addresses, e-mail addresses and local paths, and redaction of
	// sensitive identifiers (ARNs, account IDs) in free text.
	Strict Mode = "strict"
	// Balanced removes secrets, credentials, cookie values, sensitive
	// header values, URL userinfo, query values and fragments, and every
	// credential the text pass finds.
	Balanced Mode = "balanced"
	// Off changes nothing.
	Off Mode = "off"
)

// CodeInvalidMode is the error code of an unknown privacy mode.
const CodeInvalidMode = "invalid_privacy_mode"

// ParseMode reads a mode name, case-insensitively. The empty string is
// Balanced, the default; any other unknown name is an error that names the
// valid modes.
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", string(Balanced):
		return Balanced, nil
	case string(Strict):
		return Strict, nil
	case string(Off):
		return Off, nil
	}
	return "", errcode.New(CodeInvalidMode, "unknown privacy mode: use strict, balanced or off")
}

// String returns the mode's name.
func (m Mode) String() string { return string(m) }

// The kinds a tool's output field may declare in its `privacy:"<kind>"`
// struct tag: what the field holds, which decides what each mode does to
// it (see the package documentation for the table).
const (
	// KindSecret is a secret of any kind: a key, a token, a password.
	KindSecret = "secret"
	// KindCredential is a credential: a password, an API key, a login
	// token, a private key.
	KindCredential = "credential"
	// KindCookie is a cookie value; the name passed with it is the
	// cookie's name, which is kept.
	KindCookie = "cookie"
	// KindHeader is an HTTP header value; the name passed with it is the
	// header's name, which decides whether the value is sensitive.
	KindHeader = "header"
	// KindURL is a URL (absolute or relative).
	KindURL = "url"
	// KindHost is a host name, optionally with a port ("host:port",
	// "[v6]:port") or a leading wildcard label ("*.example.com").
	KindHost = "host"
	// KindIP is an IP address, v4 or v6, optionally with a port.
	KindIP = "ip"
	// KindEmail is an e-mail address, optionally "Name <addr>".
	KindEmail = "email"
	// KindPath is a local file path (POSIX, Windows or UNC).
	KindPath = "path"
	// KindBytes is bytes rendered as hex ("6768705f", "67 68 70 5f",
	// "67:68") or base64: the credentials in the bytes are removed from
	// the rendering (see the package documentation).
	KindBytes = "bytes"
	// KindPlain is declared to carry nothing sensitive: Field leaves it
	// alone and only the text pass applies.
	KindPlain = "plain"
)

var kinds = []string{KindSecret, KindCredential, KindCookie, KindHeader, KindURL,
	KindHost, KindIP, KindEmail, KindPath, KindBytes, KindPlain}

// Kinds lists the privacy kinds, in the order of the documentation.
func Kinds() []string { return append([]string(nil), kinds...) }

// KnownKind reports whether k is a privacy kind. The SDK refuses a struct
// tag naming any other kind when the tool is registered.
func KnownKind(k string) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}
