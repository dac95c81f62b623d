package codec

import "github.com/warden-mcp/warden/errcode"

// Error codes. They are part of the util_ tools' contract.
const (
	// CodeInputTooLarge: the input is longer than MaxInput bytes.
	CodeInputTooLarge = "input_too_large"
	// CodeOutputTooLarge: decompression would exceed MaxDecompressed bytes
	// or MaxRatio times its input (a decompression bomb).
	CodeOutputTooLarge = "output_too_large"
	// CodeInvalidInput: the input is not valid in the named encoding or
	// format (the message says where, never what).
	CodeInvalidInput = "invalid_input"
	// CodeUnknownEncoding: the encoding, format or algorithm is not one
	// this package knows.
	CodeUnknownEncoding = "unknown_encoding"
	// CodeInvalidKey: an HMAC key is missing where required, or given to
	// an algorithm that takes none.
	CodeInvalidKey = "invalid_key"
)

func errInvalid(msg string, cause error) *errcode.Error {
	return errcode.Wrap(CodeInvalidInput, msg, cause)
}

func errTooLarge() *errcode.Error {
	return errcode.New(CodeInputTooLarge, "the input is larger than 1 MiB").WithDetail("limit_bytes", MaxInput)
}
