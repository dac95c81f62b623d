package secretscan

import "github.com/warden-mcp/warden/errcode"

// Error codes of the *errcode.Error values this package returns. They are
// stable snake_case strings a tool layer can return to its clients
// unchanged; the messages never contain a scanned value, and the cause
// (which may name a path, never a secret) is for logs.
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

// Sentinels for errors.Is; they carry only a code.
var (
	ErrTooLarge = errcode.New(CodeTooLarge, "")
	ErrCanceled = errcode.New(CodeCanceled, "")
)
