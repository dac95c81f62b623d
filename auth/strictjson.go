package auth

import (
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/warden-mcp/warden/internal/jsonwalk"
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
// and refuses nesting beyond maxJSONDepth and duplicate member names at any
// depth. It uses the project's allocation-free walker over validated JSON.
func checkMembers(data []byte) error {
	if jsonwalk.Depth(data, maxJSONDepth) > maxJSONDepth {
		return errTooDeep
	}
	return noDuplicateMembers(data[jsonwalk.SkipSpace(data, 0):])
}

func noDuplicateMembers(v []byte) error {
	switch jsonwalk.Kind(v) {
	case "object":
		var names map[string]struct{}
		return jsonwalk.EachMember(v, func(rawKey, val []byte) error {
			name, ok := jsonwalk.Unquote(rawKey)
			if !ok {
				return errNotObject
			}
			if _, dup := names[name]; dup {
				return errDuplicateMember
			}
			if names == nil {
				names = make(map[string]struct{})
			}
			names[name] = struct{}{}
			return noDuplicateMembers(val)
		})
	case "array":
		return jsonwalk.EachElement(v, func(_ int, val []byte) error { return noDuplicateMembers(val) })
	}
	return nil
}
