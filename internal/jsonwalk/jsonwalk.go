// Package jsonwalk walks JSON text that has already been checked with
// json.Valid, without allocating: object members, array elements, raw
// values. It is what lets the protocol codec and argument checking name the
// offending member, refuse duplicates and bound nesting cheaply. On text
// that is not valid JSON the functions stay in bounds but their answers are
// meaningless.
package jsonwalk

import (
	"encoding/json"
	"unicode/utf8"
)

// SkipSpace returns the index of the first byte at or after b[i] that is
// not JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipValue returns the index just past the value that starts at b[i].
func SkipValue(b []byte, i int) int {
	i = SkipSpace(b, i)
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = SkipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

// SkipString returns the index just past the string that starts at b[i].
func SkipString(b []byte, i int) int {
	i++
	for i < len(b) {
		switch b[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i + 1
		}
		i++
	}
	return i
}

// EachMember calls fn for every member of the JSON object b, with the raw
// key (quotes included) and raw value. b must be a valid JSON object.
func EachMember(b []byte, fn func(rawKey, val []byte) error) error {
	i := SkipSpace(b, 0)
	i++ // '{'
	for {
		i = SkipSpace(b, i)
		if i >= len(b) || b[i] == '}' {
			return nil
		}
		ks := i
		i = SkipString(b, i)
		key := b[ks:i]
		i = SkipSpace(b, i)
		i++ // ':'
		i = SkipSpace(b, i)
		vs := i
		i = SkipValue(b, i)
		if err := fn(key, b[vs:i]); err != nil {
			return err
		}
		i = SkipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}

// EachElement calls fn for every element of the JSON array b.
func EachElement(b []byte, fn func(idx int, val []byte) error) error {
	i := SkipSpace(b, 0)
	i++ // '['
	for n := 0; ; n++ {
		i = SkipSpace(b, i)
		if i >= len(b) || b[i] == ']' {
			return nil
		}
		vs := i
		i = SkipValue(b, i)
		if err := fn(n, b[vs:i]); err != nil {
			return err
		}
		i = SkipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}

// Unquote decodes a raw JSON string. The common case, no escapes and valid
// UTF-8, costs one allocation.
func Unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	simple := true
	for _, c := range body {
		if c == '\\' || c < 0x20 {
			simple = false
			break
		}
	}
	if simple && utf8.Valid(body) {
		return string(body), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// Kind names the JSON type of a raw value by its first byte.
func Kind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// IsNull reports whether a raw value is the literal null, with no space
// around it.
func IsNull(raw []byte) bool {
	return len(raw) == 4 && string(raw) == "null"
}

// Depth returns the deepest nesting of objects and arrays in b, stopping
// early once it passes limit.
func Depth(b []byte, limit int) int {
	depth, max := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = SkipString(b, i) - 1
		case '{', '[':
			depth++
			if depth > max {
				max = depth
				if max > limit {
					return max
				}
			}
		case '}', ']':
			depth--
		}
	}
	return max
}
