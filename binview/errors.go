package binview

import "github.com/warden-mcp/warden/errcode"

// Stable error codes of the engine. Clients branch on them; they are never
// renamed.
const (
	// CodeUnsupportedFormat: the bytes are not ELF, PE or Mach-O, and no
	// raw architecture was declared.
	CodeUnsupportedFormat = "unsupported_format"
	// CodeUnsupportedArch: a raw load named an architecture the engine
	// does not know.
	CodeUnsupportedArch = "unsupported_arch"
	// CodeFileTooLarge: the file exceeds Options.MaxFileSize.
	CodeFileTooLarge = "file_too_large"
	// CodeAddressUnmapped: the address is not inside any mapped segment
	// or section.
	CodeAddressUnmapped = "address_unmapped"
	// CodeAnalysisFailed: a parser gave up on a malformed file, or the
	// analysis process died.
	CodeAnalysisFailed = "analysis_failed"
	// CodeAnalysisTimeout: the analysis ran out of time.
	CodeAnalysisTimeout = "analysis_timeout"
	// CodeInvalidPattern: a byte or text search pattern is malformed.
	CodeInvalidPattern = "invalid_pattern"
	// CodeReadTooLarge: a memory read asked for more than
	// Options.MaxReadSize bytes.
	CodeReadTooLarge = "read_too_large"
	// CodeInvalidOptions: an option is out of range (a raw load without
	// an architecture, a fat-file slice that does not exist).
	CodeInvalidOptions = "invalid_options"
	// CodeInvalidSnapshot: a serialized Analysis is malformed, from
	// another engine version, or does not match the bytes.
	CodeInvalidSnapshot = "invalid_snapshot"
	// CodeSectionNotFound: no section has that name.
	CodeSectionNotFound = "section_not_found"
)

func errUnsupportedFormat() error {
	return errcode.New(CodeUnsupportedFormat, "the file is not ELF, PE or Mach-O; open it as raw bytes with an architecture")
}

func errAnalysisFailed(cause error) error {
	return errcode.Wrap(CodeAnalysisFailed, "the file could not be analysed: it is malformed or hostile", cause)
}

func errTimeout(cause error) error {
	return errcode.Wrap(CodeAnalysisTimeout, "the analysis ran out of time", cause)
}

func errUnmapped() error {
	return errcode.New(CodeAddressUnmapped, "the address is not mapped in this file")
}

func newErr(code, msg string) error { return errcode.New(code, msg) }
