package tool

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Schemas are marshalled at registration, before a server answers its
// first call, and encoding/json spent most of a registry's build on them:
// each nested object's MarshalJSON went back through json.Marshal, and
// each level's output was validated and compacted again by the level
// above. appendJSON writes a schema in one pass, byte for byte what
// encoding/json writes for the struct (TestSchemaJSONMatchesEncodingJSON
// holds the two together, field by field, on every schema of the
// registry's tools); what it does not write itself (an unusual string, a
// number, a value of another type) it hands to encoding/json.

// MarshalJSON writes the schema as encoding/json would write its fields.
func (s *jsonSchema) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

// appendJSON appends the schema's JSON to b.
func (s *jsonSchema) appendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	key := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
	}
	str := func(name, v string) {
		if v != "" {
			key(name)
			b = appendJSONString(b, v)
		}
	}
	str("type", s.Type)
	if len(s.AnyOf) > 0 {
		key("anyOf")
		b = append(b, '[')
		for i, v := range s.AnyOf {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONValue(b, v)
		}
		b = append(b, ']')
	}
	raw := func(name string, v json.RawMessage) {
		if len(v) > 0 {
			key(name)
			b = appendJSONRaw(b, v)
		}
	}
	num := func(name string, v any) {
		key(name)
		b = appendJSONValue(b, v)
	}
	str("x-warden-kind", s.Kind)
	str("format", s.Format)
	str("description", s.Description)
	raw("default", s.Default)
	raw("enum", s.Enum)
	if s.Minimum != nil {
		num("minimum", *s.Minimum)
	}
	if s.Maximum != nil {
		num("maximum", *s.Maximum)
	}
	if s.MinLength != nil {
		num("minLength", *s.MinLength)
	}
	if s.MaxLength != nil {
		num("maxLength", *s.MaxLength)
	}
	str("pattern", s.Pattern)
	if s.Items != nil {
		key("items")
		b = s.Items.appendJSON(b)
	}
	if s.MinItems != nil {
		num("minItems", *s.MinItems)
	}
	if s.MaxItems != nil {
		num("maxItems", *s.MaxItems)
	}
	if s.Properties != nil {
		key("properties")
		b = append(b, '{')
		for i, name := range s.Properties.names {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, name)
			b = append(b, ':')
			if v := s.Properties.values[i]; v != nil {
				b = v.appendJSON(b)
			} else {
				b = append(b, "null"...)
			}
		}
		b = append(b, '}')
	}
	if len(s.Required) > 0 {
		key("required")
		b = appendJSONValue(b, s.Required)
	}
	if s.AdditionalProperties != nil {
		key("additionalProperties")
		b = appendJSONValue(b, s.AdditionalProperties)
	}
	str("x-mcp-header", s.Header)
	str("x-warden-privacy", s.Privacy)
	return append(b, '}')
}

// appendJSONValue appends v's JSON: the types schemas hold written
// directly, anything else through encoding/json.
func appendJSONValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return appendJSONString(b, v)
	case []string:
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		return append(b, ']')
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case bool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case *jsonSchema:
		if v == nil {
			return append(b, "null"...)
		}
		return v.appendJSON(b)
	}
	out, err := json.Marshal(v)
	if err != nil {
		// Only a value encoding/json refuses (a NaN bound): the
		// schema's own json.Marshal reported it before, as a
		// registration error; keep the document well-formed.
		return append(b, "null"...)
	}
	return append(b, out...)
}

// appendJSONString appends s quoted. Printable ASCII that needs no escape
// (encoding/json also escapes <, > and &) is copied; anything else goes
// through encoding/json, for the same escapes.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			out, _ := json.Marshal(s)
			return append(b, out...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONRaw appends a raw value as encoding/json writes a
// json.RawMessage: compact, with <, > and & escaped in strings. Values
// made by json.Marshal are already so; others go through it.
func appendJSONRaw(b []byte, v json.RawMessage) []byte {
	if bytes.ContainsAny(v, " \t\r\n<>&") || bytes.Contains(v, []byte("\u2028")) || bytes.Contains(v, []byte("\u2029")) {
		out, err := json.Marshal(v)
		if err == nil {
			return append(b, out...)
		}
	}
	return append(b, v...)
}
