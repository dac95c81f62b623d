package codec

import (
	"bytes"
	"strings"

	"github.com/warden-mcp/warden/errcode"
)

// Layer is one encoding Auto removed.
type Layer struct {
	// Encoding is an encoding name (Encodings) or a compression format
	// (Formats).
	Encoding string
	// InputBytes and OutputBytes are the layer's sizes.
	InputBytes, OutputBytes int
}

// Auto removes encodings from b one layer at a time, at most MaxLayers,
// and reports each layer it removed, outermost first. At each layer it
// tries, in this order, and takes the first that applies:
//
//  1. gzip, zlib or zstd, by their magic bytes (bounded as Decompress is);
//  2. URL percent-escapes, when the text holds a valid %XX;
//  3. HTML entities, when unescaping changes the text;
//  4. JavaScript, JSON or Unicode escapes, when the text holds \uXXXX,
//     \xXX, \u{...} or %uXXXX;
//  5. quoted-printable, when the text holds =XX escapes or soft line
//     breaks and is not base64-shaped;
//  6. hex, base64 (either alphabet, padded or not) and base32, when the
//     whole text (line breaks aside) is in the alphabet and the decoded
//     bytes are printable text or start with a compression magic.
//
// A candidate whose output is not text and starts with no compression
// magic is not taken (a word like "test" is valid base64 of binary noise).
// Auto stops when nothing applies. Decompression past its bound fails with
// CodeOutputTooLarge.
func Auto(b []byte) ([]byte, []Layer, error) {
	if len(b) > MaxInput {
		return nil, nil, errTooLarge()
	}
	var layers []Layer
	cur := b
	for len(layers) < MaxLayers {
		next, enc, err := peel(cur)
		if err != nil {
			return nil, layers, err
		}
		if enc == "" {
			break
		}
		layers = append(layers, Layer{Encoding: enc, InputBytes: len(cur), OutputBytes: len(next)})
		cur = next
	}
	return cur, layers, nil
}

// peel removes one layer, or reports none ("").
func peel(b []byte) ([]byte, string, error) {
	if f := Sniff(b); f != "" {
		out, _, err := Decompress(b, f)
		if err != nil {
			if errcode.CodeOf(err) == CodeOutputTooLarge {
				return nil, "", err
			}
			return nil, "", nil // magic by chance: not a layer
		}
		return out, f, nil
	}
	if !IsText(b) || len(b) == 0 {
		return nil, "", nil
	}
	s := string(b)
	if hasPercentEscape(s) {
		out, _ := percentDecode(s, false)
		return out, URL, nil
	}
	if strings.IndexByte(s, '&') >= 0 && strings.IndexByte(s, ';') >= 0 {
		if out, err := Decode(s, HTML); err == nil && !bytes.Equal(out, b) {
			return out, HTML, nil
		}
	}
	if enc := escapeKind(s); enc != "" {
		if out, err := Decode(s, enc); err == nil && !bytes.Equal(out, b) {
			return out, enc, nil
		}
	}
	if looksQuotedPrintable(s) {
		if out, err := Decode(s, QuotedPrintable); err == nil && !bytes.Equal(out, b) {
			return out, QuotedPrintable, nil
		}
	}
	t := strings.NewReplacer("\r", "", "\n", "").Replace(s)
	if len(t) < 4 {
		return nil, "", nil
	}
	for _, enc := range []string{Hex, Base64, Base64URL, Base32} {
		if !inAlphabet(t, enc) {
			continue
		}
		out, err := Decode(t, enc)
		if err != nil || len(out) == 0 {
			continue
		}
		if IsText(out) || Sniff(out) != "" {
			return out, enc, nil
		}
	}
	return nil, "", nil
}

func hasPercentEscape(s string) bool {
	for i := strings.IndexByte(s, '%'); i >= 0 && i+2 < len(s); {
		_, ok1 := unhex(s[i+1])
		_, ok2 := unhex(s[i+2])
		if ok1 && ok2 {
			return true
		}
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// escapeKind names the escape syntax s uses: unicode when only \u or %u
// escapes appear, js when any other backslash escape does, "" for none.
func escapeKind(s string) string {
	uni, other := false, false
	for i := 0; i+1 < len(s); i++ {
		switch {
		case s[i] == '%' && s[i+1] == 'u' && i+5 < len(s):
			uni = true
		case s[i] == '\\':
			switch s[i+1] {
			case 'u':
				uni = true
			case 'x', 'n', 'r', 't', '"', '\'', '\\', '/':
				other = true
			}
			i++
		}
	}
	switch {
	case other:
		return JS
	case uni && !strings.Contains(s, `\u{`):
		return Unicode
	case uni:
		return JS
	}
	return ""
}

// looksQuotedPrintable: =XX escapes or soft breaks, with "=" appearing
// somewhere other than only at the end (base64 padding).
func looksQuotedPrintable(s string) bool {
	core := strings.TrimRight(s, "=\r\n")
	if strings.Contains(s, "=\r\n") || strings.Contains(s, "=\n") {
		return true
	}
	for i := strings.IndexByte(core, '='); i >= 0 && i+2 < len(core); {
		if upperHex(core[i+1]) && upperHex(core[i+2]) {
			return true
		}
		j := strings.IndexByte(core[i+1:], '=')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// inAlphabet reports whether s is entirely in enc's alphabet (padding at
// the end allowed where the encoding has it).
func inAlphabet(s, enc string) bool {
	body := s
	switch enc {
	case Base64, Base64URL, Base32:
		body = strings.TrimRight(s, "=")
		if len(s)-len(body) > 6 {
			return false
		}
	}
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		var ok bool
		switch enc {
		case Hex:
			_, ok = unhex(c)
		case Base64:
			ok = alnum || c == '+' || c == '/'
		case Base64URL:
			ok = alnum || c == '-' || c == '_'
		case Base32:
			ok = 'A' <= c && c <= 'Z' || '2' <= c && c <= '7'
		}
		if !ok {
			return false
		}
	}
	switch enc {
	case Hex:
		return len(body)%2 == 0
	case Base64URL:
		return strings.ContainsAny(body, "-_")
	}
	return true
}

func upperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }
