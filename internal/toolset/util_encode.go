package toolset

import (
	"context"

	"github.com/warden-mcp/warden/codec"
	"github.com/warden-mcp/warden/tool"
)

type encodeArgs struct {
	Input       string `json:"input" maxLength:"2097152" maxLengthCode:"input_too_large" desc:"The data to encode: text, or hex or base64 for binary data (see input_format). At most 1 MiB of data."`
	Encoding    string `json:"encoding" enum:"base64,base64_raw,base64url,base64url_raw,base32,base32_raw,hex,url,url_form,html,js,json,unicode,quoted_printable" desc:"base64 (padded), base64_raw (unpadded), base64url, base64url_raw, base32, base32_raw, hex, url (a URL component: everything but A-Z a-z 0-9 - . _ ~ escaped), url_form (application/x-www-form-urlencoded: space as +), html (entities), js (a JavaScript string body, safe in any quotes and in a script element), json (a JSON string body), unicode (\\uXXXX for every non-ASCII character) or quoted_printable."`
	InputFormat string `json:"input_format" default:"text" enum:"text,hex,base64" desc:"How input is given: text (its UTF-8 bytes), or hex or base64 for binary data."`
}

// EncodeResult is util_encode's result.
type EncodeResult struct {
	Output       string `json:"output" privacy:"plain" desc:"The encoded text."`
	Encoding     string `json:"encoding" privacy:"plain"`
	InputBytes   int    `json:"input_bytes" desc:"Bytes of data encoded."`
	OutputLength int    `json:"output_length" desc:"Length of output in bytes."`
}

func utilEncodeTool() (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "util_encode",
		Title: "Encode data",
		Description: "Encode data as base64 (standard or URL-safe, padded or not), base32, hex, URL percent-encoding " +
			"(component or form), HTML entities, JavaScript or JSON string escapes, Unicode escapes or quoted-printable. " +
			"Offline: pure computation, no network. Binary data goes in as hex or base64 (input_format).",
		Annotations: utilAnnotations,
		Catalog:     utilCatalog,
	}, func(ctx context.Context, call *tool.Call, in encodeArgs) (EncodeResult, error) {
		b, err := codec.ReadInput(in.Input, in.InputFormat)
		if err != nil {
			return EncodeResult{}, err
		}
		out, err := codec.Encode(b, in.Encoding)
		if err != nil {
			return EncodeResult{}, err
		}
		return EncodeResult{Output: out, Encoding: in.Encoding, InputBytes: len(b), OutputLength: len(out)}, nil
	})
}
