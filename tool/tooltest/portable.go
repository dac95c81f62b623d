package tooltest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Published schemas must keep to what every MCP client accepts, not only
// to valid JSON Schema: clients hand tool schemas to a model provider's
// function declarations, whose dialects take one type per schema and a
// short list of keywords, and the MCP Inspector lints the rest. A tool
// whose schema falls outside is refused by some of them or loses its
// constraints there. scripts/clients/check-schemas.mjs holds the same
// rules, and compiles every schema in the TypeScript SDK's validators.

// jsonTypes are the types a schema may state, one at a time.
var jsonTypes = []string{"object", "array", "string", "number", "integer", "boolean", "null"}

// portableKeywords are the keywords every client reads. Keywords that
// start with "x-" are extensions, which clients ignore.
var portableKeywords = []string{
	"type", "anyOf", "title", "description", "default", "enum", "const", "examples", "format",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern",
	"items", "minItems", "maxItems", "uniqueItems",
	"properties", "required", "additionalProperties",
	"$schema",
}

// checkPortable reports every part of a published schema outside the
// portable subset: a list of types, a schema with no type (it accepts
// anything, which a single-type dialect cannot say) unless it is an anyOf
// of single-type schemas, a boolean schema other than
// additionalProperties: false, a reference, a keyword outside
// portableKeywords, and an input array that does not say what its items
// are.
func checkPortable(t TB, name, which string, schema []byte) {
	t.Helper()
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		t.Errorf("%s: %s is not JSON: %v", name, which, err)
		return
	}
	input := which == "input schema"
	var walk func(path string, n any, depth int)
	report := func(path, format string, args ...any) {
		at := ""
		if path != "" {
			at = " at " + path
		}
		t.Errorf("%s: %s%s: %s", name, which, at, fmt.Sprintf(format, args...))
	}
	walk = func(path string, n any, depth int) {
		if depth > 64 {
			report(path, "nested more than 64 levels")
			return
		}
		s, ok := n.(map[string]any)
		if !ok {
			report(path, "%v where a schema object belongs (only additionalProperties may be false)", n)
			return
		}
		for k := range s {
			if !strings.HasPrefix(k, "x-") && !slices.Contains(portableKeywords, k) {
				report(path, "keyword %q is not one every client reads", k)
			}
		}
		switch typ := s["type"].(type) {
		case string:
			if !slices.Contains(jsonTypes, typ) {
				report(path, "type %q is not a JSON Schema type", typ)
			}
		case nil:
			branches, _ := s["anyOf"].([]any)
			if len(branches) == 0 {
				report(path, "no type: it accepts any value, which single-type dialects cannot say; state the type, or an anyOf of types")
			}
			for i, b := range branches {
				if bs, ok := b.(map[string]any); !ok || bs["type"] == nil {
					report(fmt.Sprintf("%s.anyOf[%d]", path, i), "an anyOf branch states no single type")
				}
			}
		default:
			report(path, "type is %v, a list: single-type dialects refuse it; use an anyOf of one type each", typ)
		}
		if input && s["type"] == "array" && s["items"] == nil {
			report(path, "an input array does not say what its items are")
		}
		if props, ok := s["properties"].(map[string]any); ok {
			for _, k := range slices.Sorted(mapKeys(props)) {
				walk(join(path, k), props[k], depth+1)
			}
		}
		if it, ok := s["items"]; ok {
			walk(path+"[]", it, depth+1)
		}
		if ap, ok := s["additionalProperties"]; ok && ap != false {
			walk(path+"{}", ap, depth+1)
		}
		if branches, ok := s["anyOf"].([]any); ok {
			for i, b := range branches {
				walk(fmt.Sprintf("%s.anyOf[%d]", path, i), b, depth+1)
			}
		}
	}
	walk("", root, 0)
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
