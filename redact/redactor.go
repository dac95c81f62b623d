package redact

import (
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/privacy"
	"github.com/warden-mcp/warden/secretscan"
)

// Bounds of one Result pass.
const (
	// DefaultMaxBytes caps the bytes the text pass scans for one result:
	// twice the protocol's 4 MiB message cap, so any result a client can
	// receive fits, with its structured content and text scanned apart.
	DefaultMaxBytes = 8 << 20
	// DefaultMaxStrings caps the strings (member names and values, text
	// blocks) of one result.
	DefaultMaxStrings = 1 << 18
	// maxDepth bounds the nesting of structured content, as encoding/json
	// does.
	maxDepth = 10_000
	// minKeyLen is the shortest PseudonymKey Strict accepts.
	minKeyLen = 16
)

// Error codes.
const (
	// CodeInvalidOptions: New was given a bad mode or a missing or short
	// pseudonym key.
	CodeInvalidOptions = "invalid_privacy_options"
	// CodeLimit: a result holds more strings or bytes than the pass may
	// scan. The pass fails closed: the Stage refuses the result rather than
	// let unscanned text through.
	CodeLimit = "result_too_large_to_redact"
	// CodeMalformed: a result's structured content is not valid JSON, or
	// the scanner gave up on a string. Also fail closed.
	CodeMalformed = "result_not_redactable"
)

// Options configures a Redactor. The zero value is Balanced with a default
// scanner and the default bounds.
type Options struct {
	// Mode is the privacy mode. Zero: Balanced.
	Mode Mode
	// PseudonymKey keys Strict mode's pseudonyms (HMAC-SHA-256). Use one
	// secret key per deployment: equal values then get equal pseudonyms
	// across restarts and replicas, and nothing links them to another
	// deployment's. Required for Strict, at least 16 bytes; ignored
	// otherwise.
	PseudonymKey []byte
	// Scanner is the KeySweep engine of the text pass. Nil: one built
	// with KeySweep's default rules and options, except that inline
	// "keysweep:allow" comments are ignored (the text of a tool result is
	// not the author's to annotate) and the detection cap is raised so
	// that a result full of credentials is redacted whole. A Scanner
	// given here is used as it is: its Baseline, MinConfidence,
	// SkipIdentifiers and allow-comment settings decide what the pass
	// redacts.
	Scanner *secretscan.Scanner
	// MaxBytes caps the bytes scanned for one result. Zero:
	// DefaultMaxBytes.
	MaxBytes int
	// MaxStrings caps the strings examined in one result. Zero:
	// DefaultMaxStrings.
	MaxStrings int
}

// Redactor applies one privacy mode. It is safe for concurrent use; build
// one per mode and key at start-up and share it.
type Redactor struct {
	mode       Mode
	scanner    *secretscan.Scanner
	glued      *secretscan.Scanner // scanner.Glued(), for the glued pass
	pseudo     *pseudonymizer
	maxBytes   int
	maxStrings int
	pool       scratchPool
}

// New returns a Redactor. A nil *Options gives Balanced with defaults. It
// fails with CodeInvalidOptions on an unknown mode or, in Strict, a missing
// or short PseudonymKey.
func New(o *Options) (*Redactor, error) {
	if o == nil {
		o = &Options{}
	}
	mode, err := ParseMode(string(o.Mode))
	if err != nil {
		return nil, errcode.New(CodeInvalidOptions, "unknown privacy mode: use strict, balanced or off")
	}
	r := &Redactor{mode: mode, scanner: o.Scanner, maxBytes: o.MaxBytes, maxStrings: o.MaxStrings}
	if mode == Strict {
		if len(o.PseudonymKey) < minKeyLen {
			return nil, errcode.New(CodeInvalidOptions, "strict privacy mode needs a pseudonym key of at least 16 bytes")
		}
		r.pseudo = newPseudonymizer(o.PseudonymKey)
	}
	if r.maxBytes <= 0 {
		r.maxBytes = DefaultMaxBytes
	}
	if r.maxStrings <= 0 {
		r.maxStrings = DefaultMaxStrings
	}
	if r.scanner == nil && mode != Off {
		r.scanner = secretscan.New(&secretscan.Options{IgnoreAllowComments: true, MaxDetections: 1 << 20, KeepPairParts: true})
	}
	if r.scanner != nil {
		r.glued = r.scanner.Glued()
	}
	return r, nil
}

// Mode returns the Redactor's mode.
func (r *Redactor) Mode() Mode { return r.mode }

// markerFor returns the marker that replaces a value of a kind or a
// detected credential type: "[REDACTED:<what>]".
func markerFor(what string) string {
	switch what {
	case privacy.Secret:
		return "[REDACTED:secret]"
	case privacy.Credential:
		return "[REDACTED:credential]"
	case privacy.Cookie:
		return "[REDACTED:cookie]"
	}
	return "[REDACTED:" + what + "]"
}

// Field applies the mode's typed policy to one value of a field tagged
// `privacy:"<kind>"`. name is the field's JSON name, or the map key for a
// map's values: the header name for privacy.Header, the cookie name for
// privacy.Cookie. Off returns value unchanged, and so does every mode for an
// empty value (an empty password is a finding, not a secret). Field does
// not run the text pass: the Result pass does, over everything.
//
// An unknown kind (which the SDK refuses at registration) is treated as
// privacy.Secret: fail closed.
func (r *Redactor) Field(kind, name, value string) string {
	if r.mode == Off || value == "" {
		return value
	}
	switch kind {
	case privacy.Plain:
		return value
	case privacy.Secret, privacy.Credential, privacy.Cookie:
		return markerFor(kind)
	case privacy.Header:
		return r.redactHeader(name, value)
	case privacy.URL:
		return r.redactURL(value)
	case privacy.Host, privacy.IP:
		if r.mode == Strict {
			return r.pseudo.hostPort(value)
		}
		return value
	case privacy.Email:
		if r.mode == Strict {
			return r.pseudo.email(value)
		}
		return value
	case privacy.Path:
		if r.mode == Strict {
			return r.pseudo.path(value)
		}
		return value
	case privacy.Bytes:
		return r.fieldBytes(value)
	}
	return markerFor(privacy.Secret)
}
