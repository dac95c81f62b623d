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
