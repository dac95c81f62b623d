package redact

import (
	"encoding/binary"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// A strict JSON reader for structured content. It checks the whole
// grammar (what json.Valid accepts, which FuzzTokenize compares) and
// records every string: member names and values, with the decoded value
// and the token's span, so that the Result pass can re-encode exactly the
// strings it changes and copy every other token as it was. Nothing is ever
// edited inside a token.

// jstr is one string of the document.
type jstr struct {
	raw0, raw1 int32 // the token in the source, quotes included
	v0, v1     int32 // the decoded value: src[v0:v1], or arena[v0:v1] with fArena
	obj        int32 // for names: the enclosing object's number
	flags      uint8
}

const (
	fName    uint8 = 1 << iota // a member name
	fMember                    // the string value of the member named by the previous token
	fArena                     // the value was unescaped into the arena
	fComplex                   // the value holds '"' or '\\'
)

var (
	errSyntax  = errors.New("structured content is not valid JSON")
	errTooDeep = errors.New("structured content is nested too deeply")
	errTooMany = errors.New("structured content holds too many strings")
)

// tokenizer reads one JSON document.
type tokenizer struct {
	src        []byte
	toks       []jstr
	arena      []byte
	stack      []byte // '{' or '['
	objs       int32
	maxStrings int
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (t *tokenizer) skip(i int) int {
	for i < len(t.src) && isSpace(t.src[i]) {
		i++
	}
	return i
}

// run reads the document. On success every string is in t.toks, in
// document order.
func (t *tokenizer) run() error {
	b := t.src
	t.toks, t.arena, t.stack = t.toks[:0], t.arena[:0], t.stack[:0]
	var objIDs []int32 // open objects' numbers, parallel to the '{' entries of stack
	i := t.skip(0)
	member := false // the next value is a member's
	for {
		// A value.
		if i >= len(b) {
			return errSyntax
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if len(t.stack) >= maxDepth {
				return errTooDeep
			}
			t.stack = append(t.stack, c)
			i = t.skip(i + 1)
			if c == '{' {
				objIDs = append(objIDs, t.objs)
				t.objs++
				if i < len(b) && b[i] == '}' {
					i++
					t.stack = t.stack[:len(t.stack)-1]
					objIDs = objIDs[:len(objIDs)-1]
					break
				}
				var err error
				if i, err = t.name(i, objIDs[len(objIDs)-1]); err != nil {
					return err
				}
				member = true
				continue
			}
			if i < len(b) && b[i] == ']' {
				i++
				t.stack = t.stack[:len(t.stack)-1]
				break
			}
			member = false
			continue
		case c == '"':
			var flags uint8
			if member {
				flags = fMember
			}
			var err error
			if i, err = t.str(i, flags, -1); err != nil {
				return err
			}
		case c == 't':
			if !hasLit(b, i, "true") {
				return errSyntax
			}
			i += 4
		case c == 'f':
			if !hasLit(b, i, "false") {
				return errSyntax
			}
			i += 5
		case c == 'n':
			if !hasLit(b, i, "null") {
				return errSyntax
			}
			i += 4
		default:
			n := numberLen(b[i:])
			if n == 0 {
				return errSyntax
			}
			i += n
		}
		// After a value: a separator, a close, or the end.
		for {
			i = t.skip(i)
			if len(t.stack) == 0 {
				if i != len(b) {
					return errSyntax
				}
				return nil
			}
			if i >= len(b) {
				return errSyntax
			}
			top := t.stack[len(t.stack)-1]
			switch {
			case b[i] == ',':
				i = t.skip(i + 1)
				if top == '{' {
					var err error
					if i, err = t.name(i, objIDs[len(objIDs)-1]); err != nil {
						return err
					}
					member = true
				} else {
					member = false
				}
			case b[i] == '}' && top == '{':
				i++
				t.stack = t.stack[:len(t.stack)-1]
				objIDs = objIDs[:len(objIDs)-1]
				continue
			case b[i] == ']' && top == '[':
				i++
				t.stack = t.stack[:len(t.stack)-1]
				continue
			default:
				return errSyntax
			}
			break
		}
		i = t.skip(i)
	}
}

// name reads a member name and its colon; it returns the index of the
// member's value.
func (t *tokenizer) name(i int, obj int32) (int, error) {
	if i >= len(t.src) || t.src[i] != '"' {
		return 0, errSyntax
	}
	i, err := t.str(i, fName, obj)
	if err != nil {
		return 0, err
	}
	i = t.skip(i)
	if i >= len(t.src) || t.src[i] != ':' {
		return 0, errSyntax
	}
	return t.skip(i + 1), nil
}

func hasLit(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// numberLen returns the length of the JSON number at the start of b, or 0.
func numberLen(b []byte) int {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return 0
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0
		}
	}
	return i
}

// str reads the string token at b[i] == '"' and records it.
func (t *tokenizer) str(i int, flags uint8, obj int32) (int, error) {
	if len(t.toks) >= t.maxStrings {
		return 0, errTooMany
	}
	b := t.src
	start := i
	i++
	escaped := false
	complexVal := false
	for {
		// Eight bytes at a time while none is a quote, a backslash or a control.
		for i+8 <= len(b) && plain8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			return 0, errSyntax
		}
		c := b[i]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return 0, errSyntax
		}
		if c == '\\' {
			escaped = true
			if i+1 >= len(b) {
				return 0, errSyntax
			}
			switch b[i+1] {
			case '"', '\\':
				complexVal = true
				i += 2
			case '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex4(b[i+2:i+6]) {
					return 0, errSyntax
				}
				if b[i+2] == '0' && b[i+3] == '0' && (b[i+4] == '2' && b[i+5] == '2' || b[i+4] == '5' && (b[i+5] == 'c' || b[i+5] == 'C')) {
					complexVal = true // \u0022 or \u005c
				}
				i += 6
			default:
				return 0, errSyntax
			}
			continue
		}
		i++
	}
	end := i + 1
	tok := jstr{raw0: int32(start), raw1: int32(end), obj: obj, flags: flags}
	if complexVal {
		tok.flags |= fComplex
	}
	if escaped {
		tok.flags |= fArena
		tok.v0 = int32(len(t.arena))
		t.arena = unescape(t.arena, b[start+1:end-1])
		tok.v1 = int32(len(t.arena))
	} else {
		tok.v0, tok.v1 = int32(start+1), int32(end-1)
	}
	t.toks = append(t.toks, tok)
	return end, nil
}

// plain8 reports whether none of the eight bytes in x is a quote, a backslash or
// below 0x20 (the SWAR tests of "Bit Twiddling Hacks": a byte below n
// sets its high bit in (x - n*0x01...) & ^x).
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := func(v uint64, n uint64) uint64 { return (v - n*ones) & ^v & highs }
	return below(x, 0x20)|below(x^('"'*ones), 1)|below(x^('\\'*ones), 1) == 0
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func hexVal(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// unescape appends the decoded body of a checked string token to dst, the
// way encoding/json decodes it: a lone surrogate becomes U+FFFD. Raw
// bytes, valid UTF-8 or not, are copied as they are.
func unescape(dst, body []byte) []byte {
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			j := i + 1
			for j < len(body) && body[j] != '\\' {
				j++
			}
			dst = append(dst, body[i:j]...)
			i = j
			continue
		}
		switch body[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hexVal(body[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					if r2 := hexVal(body[i+2 : i+6]); utf16.DecodeRune(r, r2) != utf8.RuneError {
						dst = utf8.AppendRune(dst, utf16.DecodeRune(r, r2))
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, body[i+1])
		}
		i += 2
	}
	return dst
}

// value returns a string's decoded value.
func (t *tokenizer) value(k *jstr) []byte {
	if k.flags&fArena != 0 {
		return t.arena[k.v0:k.v1]
	}
	return t.src[k.v0:k.v1]
}

// appendJSONString appends s as a JSON string, byte for byte as
// encoding/json.Marshal writes it: '<', '>' and '&' escaped for HTML,
// U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD
// (TestAppendJSONStringIsMarshal).
func appendJSONString[S ~string | ~[]byte](dst []byte, s S) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func decodeRune[S ~string | ~[]byte](s S) (rune, int) {
	if b, ok := any(s).([]byte); ok {
		return utf8.DecodeRune(b)
	}
	return utf8.DecodeRuneInString(string(s))
}
