package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzStrictJSON checks the duplicate-refusing decoder against two
// references: encoding/json (whatever the decoder accepts, encoding/json
// decodes to the same members) and a slow walker over json.Decoder tokens
// (both agree on duplicate members and depth).
func FuzzStrictJSON(f *testing.F) {
	for _, s := range readSeeds(f) {
		for i, part := range strings.Split(string(bytes.TrimSpace(s.Data)), ".") {
			if b, err := b64.DecodeString(part); err == nil && i < 2 {
				f.Add(b)
			}
		}
	}
	for _, s := range []string{`{"a":{"b":[{"c":1,"c":2}]}}`, `{"a\"b":1,"a\u0022b":2}`, `{"a":"{\"a\":1}","b":[",","a"]}`, `null`, `[{}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeStrictObject(data)
		var ref map[string]json.RawMessage
		refErr := json.Unmarshal(data, &ref)
		if err == nil {
			if refErr != nil {
				t.Fatalf("strict accepted what encoding/json refuses: %v", refErr)
			}
			if len(ref) != len(m) {
				t.Fatalf("member count %d, encoding/json %d", len(m), len(ref))
			}
		}
		if refErr != nil || ref == nil || !utf8.Valid(data) {
			return
		}
		slow := referenceWalk(data)
		if (err == nil) != (slow == nil) || errors.Is(err, errDuplicateMember) != errors.Is(slow, errDuplicateMember) {
			t.Fatalf("decodeStrictObject: %v, reference walk: %v", err, slow)
		}
	})
}

// referenceWalk is the obvious, slow duplicate check over json.Decoder
// tokens, kept as the oracle for checkMembers.
func referenceWalk(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // a number too large for float64 is still JSON
	var walk func(depth int) error
	walk = func(depth int) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		if depth+1 > maxJSONDepth {
			return errTooDeep
		}
		seen := map[string]bool{}
		for dec.More() {
			if d == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				if seen[k.(string)] {
					return errDuplicateMember
				}
				seen[k.(string)] = true
			}
			if err := walk(depth + 1); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return walk(0)
}
