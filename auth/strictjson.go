package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

const maxJSONDepth = 16

var (
	errDuplicateMember = errors.New("duplicate JSON object member")
	errNotObject       = errors.New("not a JSON object")
	errTooDeep         = errors.New("JSON nested too deeply")
)

// decodeStrictObject decodes one JSON object into its top-level members. It
// refuses invalid UTF-8, anything encoding/json refuses (including trailing
// data), duplicate member names at any depth (compared after unescaping, so
// "a" and "\u0061" collide) and nesting beyond maxJSONDepth. Member names
// keep their exact case.
func decodeStrictObject(data []byte) (map[string]json.RawMessage, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("invalid UTF-8")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if m == nil { // "null"
		return nil, errNotObject
	}
	if err := checkMembers(data); err != nil {
		return nil, err
	}
	return m, nil
}

// checkMembers walks a document that encoding/json has already accepted
// and refuses duplicate member names and deep nesting. Because the syntax is
// known to be valid, a byte scan suffices: strings are skipped escape-aware,
// and a string is a member name exactly when it follows '{' or ',' inside an
// object.
func checkMembers(data []byte) error {
	type frame struct {
		object    bool
		expectKey bool
		names     map[string]struct{}
	}
	var stack []frame
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			if len(stack) == maxJSONDepth {
				return errTooDeep
			}
			stack = append(stack, frame{object: data[i] == '{', expectKey: data[i] == '{'})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := &stack[len(stack)-1]; top.object {
				top.expectKey = true
			}
		case '"':
			end := i + 1
			for data[end] != '"' {
				if data[end] == '\\' {
					end++
				}
				end++
			}
			if top := &stack[len(stack)-1]; top.object && top.expectKey {
				top.expectKey = false
				name, err := memberName(data[i : end+1])
				if err != nil {
					return err
				}
				if _, dup := top.names[name]; dup {
					return errDuplicateMember
				}
				if top.names == nil {
					top.names = make(map[string]struct{})
				}
				top.names[name] = struct{}{}
			}
			i = end
		}
	}
	return nil
}

// memberName unquotes a JSON string token.
func memberName(quoted []byte) (string, error) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var s string
	err := json.Unmarshal(quoted, &s)
	return s, err
}
