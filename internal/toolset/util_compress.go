package toolset

import (
	"context"
	"encoding/base64"

	"github.com/warden-mcp/warden/codec"
	"github.com/warden-mcp/warden/tool"
)

type compressArgs struct {
	Input       string `json:"input" maxLength:"2097152" maxLengthCode:"input_too_large" desc:"The data to compress: text, or hex or base64 for binary data (input_format). At most 1 MiB of data."`
	Format      string `json:"format" enum:"gzip,zlib,deflate,zstd,brotli" desc:"gzip, zlib, deflate (raw), zstd or brotli."`
	Level       int    `json:"level" default:"0" min:"0" max:"11" desc:"0 is the format's default; 1 (fastest) to 9 (smallest) for gzip, zlib and deflate, 1 to 4 for zstd, 1 to 11 for brotli."`
	InputFormat string `json:"input_format" default:"text" enum:"text,hex,base64" desc:"How input is given."`
}

// CompressResult is util_compress's result.
type CompressResult struct {
	Output      string  `json:"output" privacy:"plain" desc:"The compressed data, base64."`
	Format      string  `json:"format" privacy:"plain"`
	InputBytes  int     `json:"input_bytes"`
	OutputBytes int     `json:"output_bytes"`
	Ratio       float64 `json:"ratio" desc:"input_bytes / output_bytes."`
}

func utilCompressTool() (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:        "util_compress",
		Title:       "Compress data",
		Description: "Compress text, hex or base64 data with gzip, zlib, raw deflate, zstd or brotli; returns base64. Offline: no network.",
		Annotations: utilAnnotations,
		Catalog:     utilCatalog,
	}, func(ctx context.Context, call *tool.Call, in compressArgs) (CompressResult, error) {
		b, err := codec.ReadInput(in.Input, in.InputFormat)
		if err != nil {
			return CompressResult{}, err
		}
		c, err := codec.Compress(b, in.Format, in.Level)
		if err != nil {
			return CompressResult{}, err
		}
		res := CompressResult{Output: base64.StdEncoding.EncodeToString(c), Format: in.Format, InputBytes: len(b), OutputBytes: len(c)}
		if len(c) > 0 {
			res.Ratio = float64(len(b)) / float64(len(c))
		}
		return res, nil
	})
}
