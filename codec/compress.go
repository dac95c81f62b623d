package codec

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/warden-mcp/warden/errcode"
)

// Compression formats.
const (
	Gzip    = "gzip"    // RFC 1952
	Zlib    = "zlib"    // RFC 1950
	Deflate = "deflate" // RFC 1951, raw
	Zstd    = "zstd"    // RFC 8878
	Brotli  = "brotli"  // RFC 7932
	// AutoFormat names the format by its magic bytes (gzip, zlib, zstd);
	// raw deflate and brotli have none and must be named.
	AutoFormat = "auto"
)

// Formats lists the compression formats.
var Formats = []string{Gzip, Zlib, Deflate, Zstd, Brotli}

// zstdMaxWindow bounds the window a zstd frame may ask the decoder to
// allocate; frames that ask for more are refused.
const zstdMaxWindow = 8 << 20

// Compress compresses b. level 0 is the format's default; otherwise 1
// (fastest) to 9 (smallest) for gzip, zlib and deflate, 1 to 4 for zstd
// (fastest, default, better, best) and 0 to 11 for brotli.
func Compress(b []byte, format string, level int) ([]byte, error) {
	if len(b) > MaxInput {
		return nil, errTooLarge()
	}
	var buf bytes.Buffer
	var w io.WriteCloser
	var err error
	switch format {
	case Gzip:
		w, err = gzip.NewWriterLevel(&buf, flateLevel(level))
	case Zlib:
		w, err = zlib.NewWriterLevel(&buf, flateLevel(level))
	case Deflate:
		w, err = flate.NewWriter(&buf, flateLevel(level))
	case Zstd:
		zl := zstd.SpeedDefault
		if level >= 1 && level <= 4 {
			zl = zstd.EncoderLevel(level)
		}
		w, err = zstd.NewWriter(&buf, zstd.WithEncoderLevel(zl), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
	case Brotli:
		bl := brotli.DefaultCompression
		if level > 0 && level <= brotli.BestCompression {
			bl = level
		}
		w = brotli.NewWriterLevel(&buf, bl)
	default:
		return nil, errcode.New(CodeUnknownEncoding, "unknown format; use gzip, zlib, deflate, zstd or brotli")
	}
	if err != nil {
		return nil, errcode.Wrap(CodeInvalidInput, "the compression level is out of range", err)
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func flateLevel(l int) int {
	if l < 1 || l > 9 {
		return flate.DefaultCompression
	}
	return l
}

// Sniff names the compression format of b by its magic bytes: gzip, zlib
// (a valid two-byte header) or zstd; "" for anything else.
func Sniff(b []byte) string {
	switch {
	case len(b) >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8:
		return Gzip
	case len(b) >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd:
		return Zstd
	case len(b) >= 2 && b[0]&0x0f == 8 && b[0]>>4 <= 7 && (uint(b[0])<<8|uint(b[1]))%31 == 0 && b[1]&0x20 == 0:
		return Zlib
	}
	return ""
}

// Limit is the most a compressed input of n bytes may decompress to:
// MaxRatio times n, at least MinRatioAllowance, at most MaxDecompressed.
func Limit(n int) int {
	l := max(n*MaxRatio, MinRatioAllowance)
	return min(l, MaxDecompressed)
}

// Decompress decompresses b, which is at most MaxInput bytes. It reads at
// most Limit(len(b))+1 bytes of output: past that it fails with
// CodeOutputTooLarge, whose details give the limit and why (size or
// ratio). It returns the format it decoded.
func Decompress(b []byte, format string) (out []byte, f string, err error) {
	defer func() {
		if p := recover(); p != nil { // a hostile stream must never take the server down
			out, err = nil, errcode.Wrap(CodeInvalidInput, "the input is not valid "+format+" data", fmt.Errorf("panic: %v", p))
		}
	}()
	if len(b) > MaxInput {
		return nil, "", errTooLarge()
	}
	if format == AutoFormat || format == "" {
		format = Sniff(b)
		if format == "" {
			return nil, "", errcode.New(CodeInvalidInput, "the input starts with no gzip, zlib or zstd header; name the format (deflate and brotli have none)")
		}
	}
	var r io.Reader
	var closer func()
	src := bytes.NewReader(b)
	switch format {
	case Gzip:
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, format, errcode.Wrap(CodeInvalidInput, "the input is not valid gzip", err)
		}
		zr.Multistream(true)
		r = zr
	case Zlib:
		zr, err := zlib.NewReader(src)
		if err != nil {
			return nil, format, errcode.Wrap(CodeInvalidInput, "the input is not valid zlib", err)
		}
		r = zr
	case Deflate:
		r = flate.NewReader(src)
	case Zstd:
		zr, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderMaxMemory(zstdMaxWindow))
		if err != nil {
			return nil, format, errcode.Wrap(CodeInvalidInput, "the input is not valid zstd", err)
		}
		r, closer = zr, zr.Close
	case Brotli:
		r = brotli.NewReader(src)
	default:
		return nil, "", errcode.New(CodeUnknownEncoding, "unknown format; use auto, gzip, zlib, deflate, zstd or brotli")
	}
	if closer != nil {
		defer closer()
	}
	limit := Limit(len(b))
	var buf bytes.Buffer
	buf.Grow(min(limit, 4*len(b)+512))
	n, err := io.Copy(&buf, io.LimitReader(r, int64(limit)+1))
	if n > int64(limit) {
		reason := "size"
		if limit < MaxDecompressed {
			reason = "ratio"
		}
		return nil, format, errcode.New(CodeOutputTooLarge, "the data decompresses to more than Warden will produce ("+reasonText(reason)+")").
			WithDetail("limit_bytes", limit).WithDetail("reason", reason)
	}
	if err != nil {
		if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return nil, format, errcode.New(CodeOutputTooLarge, "the zstd frame asks for more memory than Warden allows").
				WithDetail("limit_bytes", limit).WithDetail("reason", "window")
		}
		return nil, format, errcode.Wrap(CodeInvalidInput, "the input is not valid "+format+" data", err)
	}
	return buf.Bytes(), format, nil
}

func reasonText(reason string) string {
	if reason == "ratio" {
		return "at most 1000 times its compressed size"
	}
	return "at most 2 MiB"
}
