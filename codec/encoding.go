package codec

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html"
	"io"
	"mime/quotedprintable"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/warden-mcp/warden/errcode"
)

// Encodings, by the names the util_ tools take.
const (
	Base64          = "base64"           // RFC 4648 standard alphabet, padded
	Base64Raw       = "base64_raw"       // standard alphabet, no padding
	Base64URL       = "base64url"        // URL-safe alphabet, padded
	Base64URLRaw    = "base64url_raw"    // URL-safe alphabet, no padding
	Base32          = "base32"           // RFC 4648 base32, padded
	Base32Raw       = "base32_raw"       // base32, no padding
	Hex             = "hex"              // lower-case hex
	URL             = "url"              // percent-encoding of a URL component (RFC 3986 unreserved kept)
	URLForm         = "url_form"         // application/x-www-form-urlencoded (space as +)
	HTML            = "html"             // HTML entities
	JS              = "js"               // JavaScript string-literal escapes
	JSON            = "json"             // JSON string escapes (RFC 8259)
	Unicode         = "unicode"          // \uXXXX escapes of every non-ASCII character
	QuotedPrintable = "quoted_printable" // RFC 2045 quoted-printable
)

// Encodings lists every encoding name. Auto tries them in an order of its
// own (see Auto).
var Encodings = []string{Base64, Base64Raw, Base64URL, Base64URLRaw, Base32, Base32Raw, Hex,
	URL, URLForm, HTML, JS, JSON, Unicode, QuotedPrintable}

func unknownEncoding() *errcode.Error {
	return errcode.New(CodeUnknownEncoding, "unknown encoding; use one of "+strings.Join(Encodings, ", "))
}

// Encode encodes b. The input is at most MaxInput bytes and the output at
// most MaxEncoded (escapes can multiply text by six): past it, Encode
// fails with CodeOutputTooLarge.
func Encode(b []byte, encoding string) (string, error) {
	if len(b) > MaxInput {
		return "", errTooLarge()
	}
	s, err := encode(b, encoding)
	if err == nil && len(s) > MaxEncoded {
		return "", errcode.New(CodeOutputTooLarge, "the encoded form is larger than 3 MiB; encode less at a time").WithDetail("limit_bytes", MaxEncoded)
	}
	return s, err
}

func encode(b []byte, encoding string) (string, error) {
	switch encoding {
	case Base64:
		return base64.StdEncoding.EncodeToString(b), nil
	case Base64Raw:
		return base64.RawStdEncoding.EncodeToString(b), nil
	case Base64URL:
		return base64.URLEncoding.EncodeToString(b), nil
	case Base64URLRaw:
		return base64.RawURLEncoding.EncodeToString(b), nil
	case Base32:
		return base32.StdEncoding.EncodeToString(b), nil
	case Base32Raw:
		return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b), nil
	case Hex:
		return hex.EncodeToString(b), nil
	case URL:
		return percentEncode(b, false), nil
	case URLForm:
		return percentEncode(b, true), nil
	case HTML:
		return html.EscapeString(string(b)), nil
	case JS:
		return jsEscape(b), nil // an invalid byte becomes \xXX, which JavaScript reads as U+00XX
	case JSON:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(string(b)) // a string always encodes; invalid UTF-8 becomes U+FFFD
		s := strings.TrimSuffix(buf.String(), "\n")
		return s[1 : len(s)-1], nil
	case Unicode:
		return unicodeEscape(b), nil
	case QuotedPrintable:
		var buf bytes.Buffer
		w := quotedprintable.NewWriter(&buf)
		w.Binary = !IsText(b) // text's line breaks become CRLF; binary's are data, =0D=0A
		_, _ = w.Write(b)
		_ = w.Close()
		return buf.String(), nil
	}
	return "", unknownEncoding()
}

// Decode decodes s. Base64, base32 and hex ignore ASCII white space;
// base64 and base64url take their input padded or not (the _raw forms
// only unpadded). URL decoding leaves a "%" that starts no valid escape as
// it is. JSON decoding takes a string literal with or without its quotes
// and refuses what RFC 8259 refuses; JavaScript decoding takes every
// escape of ECMAScript string literals, a lone surrogate becoming U+FFFD.
func Decode(s, encoding string) ([]byte, error) {
	if len(s) > 2*MaxInput {
		return nil, errTooLarge()
	}
	var out []byte
	var err error
	switch encoding {
	case Base64, Base64URL:
		out, err = decodeBase64Any(stripSpace(s))
		if err != nil && encoding == Base64URL {
			err = errInvalid("the input is not valid base64url", err)
		} else if err != nil {
			err = errInvalid("the input is not valid base64", err)
		}
	case Base64Raw:
		out, err = base64.RawStdEncoding.Strict().DecodeString(stripSpace(s))
		if err != nil {
			err = errInvalid("the input is not valid unpadded base64", err)
		}
	case Base64URLRaw:
		out, err = base64.RawURLEncoding.Strict().DecodeString(stripSpace(s))
		if err != nil {
			err = errInvalid("the input is not valid unpadded base64url", err)
		}
	case Base32, Base32Raw:
		t := strings.ToUpper(stripSpace(s))
		enc := base32.StdEncoding
		if !strings.HasSuffix(t, "=") {
			enc = enc.WithPadding(base32.NoPadding)
		}
		out, err = enc.DecodeString(t)
		if err != nil {
			err = errInvalid("the input is not valid base32", err)
		}
	case Hex:
		t := stripSpace(s)
		t = strings.TrimPrefix(strings.TrimPrefix(t, "0x"), "0X")
		out, err = hex.DecodeString(t)
		if err != nil {
			err = errInvalid("the input is not valid hex", err)
		}
	case URL:
		out, _ = percentDecode(s, false)
	case URLForm:
		out, _ = percentDecode(s, true)
	case HTML:
		out = []byte(html.UnescapeString(s))
	case JS:
		out, _, err = unescape(s, false)
	case JSON:
		t := s
		if len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
			t = t[1 : len(t)-1]
		}
		out, _, err = unescape(t, true)
	case Unicode:
		out, _ = unicodeUnescape(s)
	case QuotedPrintable:
		out, err = io.ReadAll(io.LimitReader(quotedprintable.NewReader(strings.NewReader(s)), MaxInput+1))
		if err != nil {
			err = errInvalid("the input is not valid quoted-printable", err)
		}
	default:
		return nil, unknownEncoding()
	}
	if err != nil {
		return nil, err
	}
	if len(out) > MaxInput {
		return nil, errTooLarge()
	}
	return out, nil
}

// percentEncode escapes every byte outside RFC 3986's unreserved set; in
// form mode a space becomes "+".
func percentEncode(b []byte, form bool) string {
	const hexdig = "0123456789ABCDEF"
	var sb strings.Builder
	sb.Grow(len(b) * 3)
	for _, c := range b {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			sb.WriteByte(c)
		case c == ' ' && form:
			sb.WriteByte('+')
		default:
			sb.WriteByte('%')
			sb.WriteByte(hexdig[c>>4])
			sb.WriteByte(hexdig[c&15])
		}
	}
	return sb.String()
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// percentDecode decodes every valid %XX (and, in form mode, + as space),
// leaving anything else as it is. n counts the escapes decoded.
func percentDecode(s string, form bool) (out []byte, n int) {
	out = make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			h, ok1 := unhex(s[i+1])
			l, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				out = append(out, h<<4|l)
				i += 2
				n++
				continue
			}
		}
		if c == '+' && form {
			out = append(out, ' ')
			n++
			continue
		}
		out = append(out, c)
	}
	return out, n
}

// jsEscape writes b as the body of a JavaScript string literal that is
// safe in single quotes, double quotes, template literals and inside an
// HTML script element: quotes, backslash, back-quote, "<", ">" and every
// control or non-ASCII character escaped.
func jsEscape(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/4)
	s := string(b)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			sb.WriteString(`\x`)
			sb.WriteString(hex2(s[0]))
			s = s[1:]
			continue
		}
		s = s[n:]
		switch r {
		case '\\':
			sb.WriteString(`\\`)
		case '\'':
			sb.WriteString(`\'`)
		case '"':
			sb.WriteString(`\"`)
		case '`':
			sb.WriteString("\\`")
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		case '\b':
			sb.WriteString(`\b`)
		case '\f':
			sb.WriteString(`\f`)
		case '\v':
			sb.WriteString(`\v`)
		case '<', '>':
			sb.WriteString(`\x`)
			sb.WriteString(hex2(byte(r)))
		default:
			switch {
			case r < 0x20 || r == 0x7f:
				sb.WriteString(`\x`)
				sb.WriteString(hex2(byte(r)))
			case r < 0x80:
				sb.WriteRune(r)
			default:
				writeU(&sb, r)
			}
		}
	}
	return sb.String()
}

func hex2(c byte) string {
	const hexdig = "0123456789abcdef"
	return string([]byte{hexdig[c>>4], hexdig[c&15]})
}

// writeU writes r as \uXXXX, or a surrogate pair of them.
func writeU(sb *strings.Builder, r rune) {
	if r > 0xFFFF {
		hi, lo := utf16.EncodeRune(r)
		writeU(sb, hi)
		writeU(sb, lo)
		return
	}
	sb.WriteString(`\u`)
	sb.WriteString(hex2(byte(r >> 8)))
	sb.WriteString(hex2(byte(r)))
}

// unicodeEscape escapes every non-ASCII character of b (an invalid byte
// as \xXX, since \u00XX would name a character), and the backslash and a
// "%" before "u", so that decoding gives b back; other ASCII stays.
func unicodeEscape(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/2)
	s := string(b)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			sb.WriteString(`\x`)
			sb.WriteString(hex2(s[0]))
		case r == '\\' || r == '%' && len(s) > 1 && s[1] == 'u':
			writeU(&sb, r)
		case r < 0x80:
			sb.WriteByte(byte(r))
		default:
			writeU(&sb, r)
		}
		s = s[n:]
	}
	return sb.String()
}

// unescape decodes backslash escapes. strict (JSON) allows only RFC 8259's
// escapes and refuses raw control characters; otherwise every ECMAScript
// escape is read, and an unknown escape stands for its character. n counts
// the escapes decoded.
func unescape(s string, strict bool) (out []byte, n int, err error) {
	out = make([]byte, 0, len(s))
	var pendingHi rune = -1
	flush := func() {
		if pendingHi >= 0 {
			out = utf8.AppendRune(out, utf8.RuneError)
			pendingHi = -1
		}
	}
	emit := func(r rune) {
		if utf16.IsSurrogate(r) {
			if r < 0xDC00 { // high
				flush()
				pendingHi = r
				return
			}
			if pendingHi >= 0 {
				out = utf8.AppendRune(out, utf16.DecodeRune(pendingHi, r))
				pendingHi = -1
				return
			}
			out = utf8.AppendRune(out, utf8.RuneError)
			return
		}
		flush()
		out = utf8.AppendRune(out, r)
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			if strict && (c < 0x20 || c == '"') {
				return nil, 0, errInvalid("the input holds a character JSON requires escaped at byte "+strconv.Itoa(i), nil)
			}
			flush()
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			if strict {
				return nil, 0, errInvalid("the input ends inside an escape", nil)
			}
			flush()
			out = append(out, c)
			break
		}
		e := s[i+1]
		i += 2
		n++
		switch e {
		case '"', '\\', '/':
			emit(rune(e))
		case 'b':
			emit('\b')
		case 'f':
			emit('\f')
		case 'n':
			emit('\n')
		case 'r':
			emit('\r')
		case 't':
			emit('\t')
		case 'u':
			if !strict && i < len(s) && s[i] == '{' {
				end := strings.IndexByte(s[i:], '}')
				if end > 1 && end <= 7 {
					if v, perr := strconv.ParseUint(s[i+1:i+end], 16, 32); perr == nil && v <= utf8.MaxRune {
						emit(rune(v))
						i += end + 1
						continue
					}
				}
				return nil, 0, errInvalid("the input holds a malformed \\u{...} escape at byte "+strconv.Itoa(i-2), nil)
			}
			if i+4 > len(s) {
				return nil, 0, errInvalid("the input holds a truncated \\u escape at byte "+strconv.Itoa(i-2), nil)
			}
			v, perr := strconv.ParseUint(s[i:i+4], 16, 16)
			if perr != nil {
				return nil, 0, errInvalid("the input holds a malformed \\u escape at byte "+strconv.Itoa(i-2), nil)
			}
			emit(rune(v))
			i += 4
		default:
			if strict {
				return nil, 0, errInvalid("the input holds an escape JSON does not allow at byte "+strconv.Itoa(i-2), nil)
			}
			switch e {
			case 'v':
				emit('\v')
			case '0':
				if i < len(s) && s[i] >= '0' && s[i] <= '9' {
					emit('0') // a legacy octal escape: kept as a digit, not guessed
				} else {
					emit(0)
				}
			case 'x':
				if i+2 > len(s) {
					return nil, 0, errInvalid("the input holds a truncated \\x escape at byte "+strconv.Itoa(i-2), nil)
				}
				h, ok1 := unhex(s[i])
				l, ok2 := unhex(s[i+1])
				if !ok1 || !ok2 {
					return nil, 0, errInvalid("the input holds a malformed \\x escape at byte "+strconv.Itoa(i-2), nil)
				}
				emit(rune(h<<4 | l))
				i += 2
			case '\n':
				// a line continuation: nothing
			case '\r':
				if i < len(s) && s[i] == '\n' {
					i++
				}
			default:
				r, size := utf8.DecodeRuneInString(s[i-1:])
				if r == utf8.RuneError && size == 1 {
					flush()
					out = append(out, e) // an invalid byte stays itself
					continue
				}
				i += size - 1
				emit(r)
			}
		}
	}
	flush()
	return out, n, nil
}

// unicodeUnescape decodes \uXXXX, \u{X...}, \UXXXXXXXX and %uXXXX escapes
// and leaves every other byte as it is. n counts the escapes decoded.
func unicodeUnescape(s string) (out []byte, n int) {
	out = make([]byte, 0, len(s))
	var pendingHi rune = -1
	put := func(r rune) {
		if utf16.IsSurrogate(r) {
			if r < 0xDC00 {
				if pendingHi >= 0 {
					out = utf8.AppendRune(out, utf8.RuneError)
				}
				pendingHi = r
				return
			}
			if pendingHi >= 0 {
				out = utf8.AppendRune(out, utf16.DecodeRune(pendingHi, r))
				pendingHi = -1
				return
			}
			out = utf8.AppendRune(out, utf8.RuneError)
			return
		}
		if pendingHi >= 0 {
			out = utf8.AppendRune(out, utf8.RuneError)
			pendingHi = -1
		}
		out = utf8.AppendRune(out, r)
	}
	for i := 0; i < len(s); {
		if (s[i] == '\\' || s[i] == '%') && i+1 < len(s) {
			switch {
			case s[i+1] == 'u' && i+2 < len(s) && s[i+2] == '{' && s[i] == '\\':
				if end := strings.IndexByte(s[i+3:], '}'); end > 0 && end <= 6 {
					if v, err := strconv.ParseUint(s[i+3:i+3+end], 16, 32); err == nil && v <= utf8.MaxRune {
						put(rune(v))
						i += 4 + end
						n++
						continue
					}
				}
			case s[i+1] == 'u' && i+6 <= len(s):
				if v, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil {
					put(rune(v))
					i += 6
					n++
					continue
				}
			case s[i+1] == 'U' && s[i] == '\\' && i+10 <= len(s):
				if v, err := strconv.ParseUint(s[i+2:i+10], 16, 32); err == nil && v <= utf8.MaxRune {
					put(rune(v))
					i += 10
					n++
					continue
				}
			}
		}
		if pendingHi >= 0 {
			out = utf8.AppendRune(out, utf8.RuneError)
			pendingHi = -1
		}
		out = append(out, s[i])
		i++
	}
	if pendingHi >= 0 {
		out = utf8.AppendRune(out, utf8.RuneError)
	}
	return out, n
}
