package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"
)

const maxJSONDepth = 16

var (
	errDuplicateMember = errors.New("duplicate JSON object member")
	errNotObject       = errors.New("not a JSON object")
	errTooDeep         = errors.New("JSON nested too deeply")
)

// decodeStrictObject decodes one JSON object into its top-level members. It
// refuses invalid UTF-8, duplicate member names at any depth (compared after
// unescaping, so "a" and "\u0061" collide), nesting beyond maxJSONDepth and
// trailing data. Member names keep their exact case.
func decodeStrictObject(data []byte) (map[string]json.RawMessage, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("invalid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	if err := walkObject(dec, 1); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// walkObject consumes the members of an object whose '{' was read.
func walkObject(dec *json.Decoder, depth int) error {
	if depth > maxJSONDepth {
		return errTooDeep
	}
	seen := make(map[string]struct{})
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return errNotObject
		}
		if _, dup := seen[key]; dup {
			return errDuplicateMember
		}
		seen[key] = struct{}{}
		if err := walkValue(dec, depth); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

func walkValue(dec *json.Decoder, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		return walkObject(dec, depth+1)
	case '[':
		if depth+1 > maxJSONDepth {
			return errTooDeep
		}
		for dec.More() {
			if err := walkValue(dec, depth+1); err != nil {
				return err
			}
		}
		_, err := dec.Token() // ']'
		return err
	}
	return errors.New("unexpected JSON delimiter")
}
