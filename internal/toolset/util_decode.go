package toolset

import (
	"context"

	"github.com/warden-mcp/warden/codec"
	"github.com/warden-mcp/warden/tool"
)

type decodeArgs struct {
	Input        string `json:"input" maxLength:"2097152" maxLengthCode:"input_too_large" desc:"The encoded text, at most 2 MiB."`
	Encoding     string `json:"encoding" default:"auto" enum:"auto,base64,base64_raw,base64url,base64url_raw,base32,base32_raw,hex,url,url_form,html,js,json,unicode,quoted_printable" desc:"The encoding to remove, or auto: detect and remove nested layers (URL escapes, HTML entities, JavaScript/JSON/Unicode escapes, quoted-printable, hex, base64, base32, and gzip, zlib or zstd inside them), at most 8, each reported in layers."`
	BinaryFormat string `json:"binary_format" default:"base64" enum:"base64,hex" desc:"How output is given when it is not printable text."`
}

// DecodeResult is util_decode's result.
type DecodeResult struct {
	Output       string        `json:"output" privacy:"plain" desc:"The decoded data: text when printable, else hex or base64 (output_format)."`
	OutputFormat string        `json:"output_format" privacy:"plain" desc:"text, hex or base64."`
	OutputBytes  int           `json:"output_bytes" desc:"Bytes of decoded data."`
	Encoding     string        `json:"encoding" privacy:"plain" desc:"The encoding asked for (auto or a name)."`
	Layers       []DecodeLayer `json:"layers" desc:"The layers removed, outermost first; empty when auto found none."`
}

// DecodeLayer is one removed layer.
type DecodeLayer struct {
	Encoding    string `json:"encoding" privacy:"plain" desc:"An encoding name, or gzip, zlib or zstd."`
	InputBytes  int    `json:"input_bytes"`
	OutputBytes int    `json:"output_bytes"`
}

func utilDecodeTool() (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "util_decode",
		Title: "Decode data, or peel nested encodings",
		Description: "Decode base64, base32, hex, URL, HTML entity, JavaScript/JSON/Unicode escape or quoted-printable text. " +
			"With encoding auto (the default), detect and remove nested layers one by one, gzip, zlib and zstd included, " +
			"and report each layer. Binary output comes back as base64 or hex, never as broken text. Offline: no network.",
		Annotations: utilAnnotations,
		Catalog:     utilCatalog,
	}, func(ctx context.Context, call *tool.Call, in decodeArgs) (DecodeResult, error) {
		res := DecodeResult{Encoding: in.Encoding, Layers: []DecodeLayer{}}
		var out []byte
		if in.Encoding == "auto" {
			if len(in.Input) > codec.MaxInput {
				return res, codec.ReadInputError()
			}
			var layers []codec.Layer
			var err error
			out, layers, err = codec.Auto([]byte(in.Input))
			if err != nil {
				return DecodeResult{}, err
			}
			for _, l := range layers {
				res.Layers = append(res.Layers, DecodeLayer{Encoding: l.Encoding, InputBytes: l.InputBytes, OutputBytes: l.OutputBytes})
			}
		} else {
			var err error
			if out, err = codec.Decode(in.Input, in.Encoding); err != nil {
				return DecodeResult{}, err
			}
			res.Layers = append(res.Layers, DecodeLayer{Encoding: in.Encoding, InputBytes: len(in.Input), OutputBytes: len(out)})
		}
		o := codec.Shape(out, in.BinaryFormat, "")
		res.Output, res.OutputFormat, res.OutputBytes = o.Data, o.Format, o.Bytes
		return res, nil
	})
}
