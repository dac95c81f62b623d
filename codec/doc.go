// Package codec is Warden's offline data workbench: it encodes and decodes
// the text encodings a security tester meets (base64 in four forms,
// base32, hex, URL, HTML entities, JavaScript, JSON and Unicode escapes,
// quoted-printable), peels nested encodings layer by layer, hashes data
// (MD5 to SHA-3, BLAKE2, CRC32, HMAC) and compresses and decompresses it
// (gzip, zlib, deflate, zstd, brotli).
//
// It knows nothing of MCP: package toolset binds it to the util_ tools.
//
// # Bounds
//
// Every input is at most MaxInput bytes, checked before any work. Decoding
// never produces more bytes than it was given, except decompression, which
// stops at MaxDecompressed bytes and at MaxRatio times its input (whichever
// comes first, with at least MinRatioAllowance allowed): a bomb fails with
// CodeOutputTooLarge after reading at most one byte past the bound, never
// by exhausting memory. Auto-detection removes at most MaxLayers layers.
// Encoding grows data by a bounded factor (at most six output bytes per
// input byte, for Unicode escapes) and stops at MaxEncoded bytes.
//
// # Errors
//
// Every failure is an *errcode.Error with one of the Code constants and a
// public message that never quotes the input.
package codec
