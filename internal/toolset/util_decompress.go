package toolset

import (
	"context"

	"github.com/warden-mcp/warden/codec"
	"github.com/warden-mcp/warden/tool"
)

type decompressArgs struct {
	Input        string `json:"input" maxLength:"2097152" maxLengthCode:"input_too_large" desc:"The compressed data, base64 (standard or URL-safe, padded or not). At most 1 MiB of data."`
	Format       string `json:"format" default:"auto" enum:"auto,gzip,zlib,deflate,zstd,brotli" desc:"The format, or auto to read it from the magic bytes (gzip, zlib, zstd; deflate and brotli have none and must be named)."`
	BinaryFormat string `json:"binary_format" default:"base64" enum:"base64,hex" desc:"How output is given when it is not printable text."`
}

// DecompressResult is util_decompress's result.
type DecompressResult struct {
	Output       string `json:"output" privacy:"plain" desc:"The data: text when printable, else base64 or hex (output_format)."`
	OutputFormat string `json:"output_format" privacy:"plain"`
	Format       string `json:"format" privacy:"plain" desc:"The format decoded."`
	InputBytes   int    `json:"input_bytes"`
	OutputBytes  int    `json:"output_bytes"`
}

func utilDecompressTool() (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "util_decompress",
		Title: "Decompress data, safely",
		Description: "Decompress base64 gzip, zlib, raw deflate, zstd or brotli data. Refuses to expand past 2 MiB or past " +
			"1000 times the compressed size (at least 64 KiB allowed): a decompression bomb gets output_too_large and never " +
			"exhausts memory. Offline: no network.",
		Annotations: utilAnnotations,
		Catalog:     utilCatalog,
	}, func(ctx context.Context, call *tool.Call, in decompressArgs) (DecompressResult, error) {
		b, err := codec.ReadInput(in.Input, codec.FormatBase64)
		if err != nil {
			return DecompressResult{}, err
		}
		out, format, err := codec.Decompress(b, in.Format)
		if err != nil {
			return DecompressResult{}, err
		}
		o := codec.Shape(out, in.BinaryFormat, "")
		return DecompressResult{Output: o.Data, OutputFormat: o.Format, Format: format, InputBytes: len(b), OutputBytes: o.Bytes}, nil
	})
}
