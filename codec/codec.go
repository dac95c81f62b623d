package codec

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/warden-mcp/warden/errcode"
)

// Bounds. Callers may not raise them.
const (
	// MaxInput caps every input, in bytes after its own transport
	// encoding (the bytes a hex or base64 input stands for).
	MaxInput = 1 << 20
	// MaxDecompressed caps what decompression may produce.
	MaxDecompressed = 2 << 20
	// MaxRatio caps decompressed size as a multiple of the compressed
	// input, past MinRatioAllowance.
	MaxRatio = 1000
	// MinRatioAllowance is what any input may decompress to, whatever
	// its ratio.
	MinRatioAllowance = 64 << 10
	// MaxEncoded caps what Encode produces: every encoding of a MiB fits
	// but the escapes of text made mostly of characters they escape.
	MaxEncoded = 3 << 20
	// MaxLayers caps the layers Auto removes.
	MaxLayers = 8
)

// Data formats of binary inputs and outputs.
const (
	FormatText   = "text"
	FormatHex    = "hex"
	FormatBase64 = "base64"
)

// ReadInput returns the bytes input stands for in format: text (its UTF-8
// bytes), hex or base64 (standard or URL-safe, padded or not; ASCII white
// space ignored). The result is at most MaxInput bytes.
func ReadInput(input, format string) ([]byte, error) {
	switch format {
	case "", FormatText:
		if len(input) > MaxInput {
			return nil, errTooLarge()
		}
		return []byte(input), nil
	case FormatHex:
		s := stripSpace(input)
		if len(s)/2 > MaxInput {
			return nil, errTooLarge()
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			return nil, errInvalid("the input is not valid hex", err)
		}
		return b, nil
	case FormatBase64:
		s := stripSpace(input)
		if base64.RawStdEncoding.DecodedLen(len(s)) > MaxInput+2 {
			return nil, errTooLarge()
		}
		b, err := decodeBase64Any(s)
		if err != nil {
			return nil, errInvalid("the input is not valid base64", err)
		}
		if len(b) > MaxInput {
			return nil, errTooLarge()
		}
		return b, nil
	}
	return nil, errcode.New(CodeUnknownEncoding, "input_format must be text, hex or base64")
}

// Output is data shaped for a reader: text when it is printable UTF-8,
// else hex or base64, never broken text.
type Output struct {
	// Data is the text, or its hex or base64 form.
	Data string
	// Format is FormatText, FormatHex or FormatBase64.
	Format string
	// Bytes is the length of the data in bytes.
	Bytes int
}

// Shape returns b as text when IsText says it is, else in binaryFormat
// (FormatHex, or FormatBase64 when empty). force set to FormatHex or
// FormatBase64 always uses that format.
func Shape(b []byte, binaryFormat, force string) Output {
	if force == FormatHex || force == FormatBase64 {
		binaryFormat = force
	} else if IsText(b) {
		return Output{Data: string(b), Format: FormatText, Bytes: len(b)}
	}
	if binaryFormat == FormatHex {
		return Output{Data: hex.EncodeToString(b), Format: FormatHex, Bytes: len(b)}
	}
	return Output{Data: base64.StdEncoding.EncodeToString(b), Format: FormatBase64, Bytes: len(b)}
}

// IsText reports whether b is valid UTF-8 made of printable characters
// and ordinary white space (tab, new line, carriage return) only.
func IsText(b []byte) bool {
	for len(b) > 0 {
		c := b[0]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				return false
			}
			b = b[1:]
			continue
		}
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError || !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			return false
		}
		b = b[n:]
	}
	return true
}

// stripSpace removes ASCII white space.
func stripSpace(s string) string {
	if !strings.ContainsAny(s, " \t\r\n\f\v") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\n', '\f', '\v':
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// decodeBase64Any decodes standard or URL-safe base64, padded or not.
func decodeBase64Any(s string) ([]byte, error) {
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if strings.HasSuffix(s, "=") {
		return enc.Strict().DecodeString(s)
	}
	return enc.WithPadding(base64.NoPadding).Strict().DecodeString(s)
}

// ReadInputError is the error of an input over MaxInput bytes, for callers
// that check the bound themselves.
func ReadInputError() error { return errTooLarge() }
