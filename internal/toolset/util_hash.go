package toolset

import (
	"context"

	"github.com/warden-mcp/warden/codec"
	"github.com/warden-mcp/warden/tool"
)

type hashArgs struct {
	Input       string `json:"input" maxLength:"2097152" maxLengthCode:"input_too_large" desc:"The data to digest: text, or hex or base64 for binary data (input_format). At most 1 MiB of data."`
	Algorithm   string `json:"algorithm" default:"sha256" enum:"all,md5,sha1,sha224,sha256,sha384,sha512,sha512_224,sha512_256,sha3_224,sha3_256,sha3_384,sha3_512,blake2b_256,blake2b_384,blake2b_512,blake2s_256,crc32,crc32c" desc:"The digest, or all of them (useful to match an unknown hash)."`
	InputFormat string `json:"input_format" default:"text" enum:"text,hex,base64" desc:"How input is given."`
	Key         string `json:"key,omitempty" maxLength:"2097152" desc:"An HMAC key (RFC 2104): with it each digest is HMAC-<algorithm>. CRC32 takes none. Never echoed."`
	KeyFormat   string `json:"key_format" default:"text" enum:"text,hex,base64" desc:"How key is given."`
}

// HashResult is util_hash's result.
type HashResult struct {
	Digests    []HashDigest `json:"digests"`
	InputBytes int          `json:"input_bytes"`
}

// HashDigest is one digest.
type HashDigest struct {
	Algorithm string `json:"algorithm" privacy:"plain"`
	HMAC      bool   `json:"hmac" desc:"The digest is an HMAC under the given key."`
	Hex       string `json:"hex" privacy:"plain"`
	Base64    string `json:"base64" privacy:"plain"`
}

func utilHashTool() (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "util_hash",
		Title: "Hash data, or compute an HMAC",
		Description: "Compute MD5, SHA-1, SHA-2 (224 to 512, and 512/224, 512/256), SHA-3, BLAKE2b, BLAKE2s, CRC32 or CRC32C " +
			"of text, hex or base64 data, or all of them at once; with a key, HMAC. Returns hex and base64 digests. " +
			"Offline: no network; the key is never echoed.",
		Annotations: utilAnnotations,
		Catalog:     utilCatalog,
	}, func(ctx context.Context, call *tool.Call, in hashArgs) (HashResult, error) {
		b, err := codec.ReadInput(in.Input, in.InputFormat)
		if err != nil {
			return HashResult{}, err
		}
		var key []byte
		if in.Key != "" {
			if key, err = codec.ReadInput(in.Key, in.KeyFormat); err != nil {
				return HashResult{}, &tool.Error{Code: codec.CodeInvalidKey, Message: "the key is not valid " + in.KeyFormat}
			}
		}
		ds, err := codec.Hash(b, in.Algorithm, key)
		if err != nil {
			return HashResult{}, err
		}
		out := HashResult{InputBytes: len(b), Digests: make([]HashDigest, 0, len(ds))}
		for _, d := range ds {
			out.Digests = append(out.Digests, HashDigest{Algorithm: d.Algorithm, HMAC: d.HMAC, Hex: d.Hex, Base64: d.Base64})
		}
		return out, nil
	})
}
