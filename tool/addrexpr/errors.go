package addrexpr

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Stable error codes carried in [Error.Code]. Clients may match on them;
// they are never renamed.
const (
	// CodeSyntax: the text is not a well-formed expression.
	CodeSyntax = "syntax_error"
	// CodeTooLong: the text exceeds MaxLen bytes.
	CodeTooLong = "too_long"
	// CodeTooManyTokens: the text has more than MaxTokens tokens.
	CodeTooManyTokens = "too_many_tokens"
	// CodeTooDeep: parentheses, brackets and unary operators nest more
	// than MaxDepth deep.
	CodeTooDeep = "too_deep"
	// CodeOverflow: a number does not fit in 64 bits.
	CodeOverflow = "overflow"
	// CodeUnknownMagic: a "$name" other than $, $here, $start and $end.
	CodeUnknownMagic = "unknown_magic"
	// CodeUnknownSymbol: a name that is neither a symbol nor a section
	// of the target, nor a hex number.
	CodeUnknownSymbol = "unknown_symbol"
	// CodeUnknownSection: like CodeUnknownSymbol, for a name that starts
	// with "." (the usual spelling of a section).
	CodeUnknownSection = "unknown_section"
	// CodeNoTarget: the expression needs a target (a name, a read,
	// $start or $end) and none was given.
	CodeNoTarget = "no_target"
	// CodeHereUnset: $here was used but the target has no current
	// address.
	CodeHereUnset = "here_unset"
	// CodeDivisionByZero: the right operand of "/" or "%" is zero.
	CodeDivisionByZero = "division_by_zero"
	// CodeReadFailed: the target could not read memory for [e].
	CodeReadFailed = "read_failed"
	// CodeReadRefused: the target does not let this caller read memory
	// at all: its Read returned ErrReadRefused.
	CodeReadRefused = "read_refused"
	// CodeTooManyReads: evaluation would perform more than MaxReads
	// memory reads.
	CodeTooManyReads = "too_many_reads"
	// CodeCanceled: the context ended during evaluation.
	CodeCanceled = "canceled"
)

// ErrReadRefused is what a Target's Read returns when memory may not be
// read at all (an operator turned raw reads off for the caller): the
// expression then fails with CodeReadRefused, which says so, rather than
// CodeReadFailed, which blames the address.
var ErrReadRefused = errors.New("addrexpr: memory reads are refused")

// ErrReadSecret is what a Target's Read returns when the bytes asked for
// hold part of a credential that the caller may not see (a privacy mode
// withholds it): the expression fails with CodeReadRefused, as for
// ErrReadRefused, with a message that says the read, not reads at all,
// was refused. A value read from memory is a number and cannot carry a
// marker, so the read is refused whole: no sequence of reads, however
// small, spells the credential out.
var ErrReadSecret = errors.New("addrexpr: the bytes hold a credential")

// Error is the error returned by every function of this package.
//
// Code, Pos and Message are public: Message is short, names no internal
// detail and echoes at most a bounded, quoted piece of the input. Err holds
// the cause, if any (the target's read error, the context's error); it is
// for logs only and is not part of Error().
type Error struct {
	Code    string // stable snake_case code, one of the Code constants
	Pos     int    // byte offset in the expression where the problem is
	Message string // short public message, without the position
	Err     error  // cause, for logs; may be nil
}

// Error returns the message followed by the position, for example
// `unknown symbol "mian" at offset 0`.
func (e *Error) Error() string {
	return fmt.Sprintf("%s at offset %d", e.Message, e.Pos)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func errorf(code string, pos int, format string, args ...any) *Error {
	return &Error{Code: code, Pos: pos, Message: fmt.Sprintf(format, args...)}
}

// maxEcho bounds how much of the input an error message repeats, in
// bytes of quoted output.
const maxEcho = 48

// echo quotes a piece of the input for an error message, Go-style, with
// every non-printable character and invalid byte escaped, and cut after
// about maxEcho bytes of output.
func echo(s string) string {
	b := make([]byte, 0, min(len(s), maxEcho)+8)
	b = append(b, '"')
	for i := 0; i < len(s); {
		if len(b) > maxEcho {
			return string(b) + `"…`
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = fmt.Appendf(b, `\x%02x`, s[i])
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case strconv.IsPrint(r):
			b = append(b, s[i:i+n]...)
		default:
			q := strconv.QuoteRune(r) // '\n', '\x1b', '\u200b'
			b = append(b, q[1:len(q)-1]...)
		}
		i += n
	}
	return string(append(b, '"'))
}
