package tool

import (
	"encoding/json"
	"reflect"
	"testing"
)

// plainSchema is jsonSchema without its MarshalJSON: encoding/json writes
// it by reflection, which is what appendJSON must match.
type plainSchema jsonSchema

// schemaJSONArgs exercises every field of a schema and every escape a
// string may need.
type schemaJSONArgs struct {
	Text    string            `json:"text" desc:"Text <with> & \"quotes\", a \\ and a tab\t; naïve — \u2028 line" minLength:"1" maxLength:"10"`
	Mode    string            `json:"mode" default:"fast & <slow>" enum:"fast & <slow>,deep"`
	Limit   int               `json:"limit" default:"10" min:"-5" max:"100"`
	Ratio   float64           `json:"ratio,omitempty" min:"0.000001" max:"1e21"`
	Tiny    float64           `json:"tiny,omitempty" min:"0.0000001" max:"12345678.5"`
	Tags    []string          `json:"tags,omitempty" minItems:"1" maxItems:"3"`
	Labels  map[string]string `json:"labels,omitempty"`
	Opts    *nested           `json:"opts,omitempty"`
	Many    []nested          `json:"many,omitempty"`
	Code    string            `json:"code,omitempty" pattern:"^[A-Z]{3}<>$"`
	Flag    bool              `json:"flag,omitempty" default:"true"`
	Raw     json.RawMessage   `json:"raw,omitempty" default:"{\"a\": [1, 2], \"b\": \"<x>\"}"`
	Where   Address           `json:"where,omitempty"`
	Region  string            `json:"region,omitempty" header:"Region"`
	Ignored string            `json:"-"`
}

type schemaJSONOut struct {
	Echo    string             `json:"echo" privacy:"plain" desc:"What was said."`
	Secret  string             `json:"secret" privacy:"secret"`
	Nested  *nested            `json:"nested,omitempty"`
	Counts  map[string]int     `json:"counts"`
	Rows    []schemaJSONOutRow `json:"rows"`
	Unicode string             `json:"unicode" desc:"日本語 and an emoji 🙂"`
}

type schemaJSONOutRow struct {
	Address string `json:"address" privacy:"plain"`
	Size    uint64 `json:"size"`
}

// walkSchema calls fn on s and every schema inside it.
func walkSchema(s *jsonSchema, fn func(*jsonSchema)) {
	if s == nil {
		return
	}
	fn(s)
	walkSchema(s.Items, fn)
	for _, v := range s.AnyOf {
		walkSchema(v, fn)
	}
	if s.Properties != nil {
		for _, v := range s.Properties.values {
			walkSchema(v, fn)
		}
	}
	if a, ok := s.AdditionalProperties.(*jsonSchema); ok {
		walkSchema(a, fn)
	}
}

// appendJSON writes every schema node exactly as encoding/json writes
// the struct, so that published schemas did not change when it replaced
// it; a field added to jsonSchema and not to appendJSON fails here.
func TestSchemaJSONMatchesEncodingJSON(t *testing.T) {
	var roots []*jsonSchema
	for _, typ := range []reflect.Type{reflect.TypeFor[schemaJSONArgs](), reflect.TypeFor[sampleArgs](), reflect.TypeFor[schemaJSONOut]()} {
		n, err := deriveNode(typ, "", map[reflect.Type]bool{})
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, schemaValue(n, nil, inputSchema), schemaValue(n, nil, outputSchema))
	}
	roots = append(roots, warningsSchema(),
		&jsonSchema{Type: "", AdditionalProperties: false, Properties: &properties{}, Required: []string{"a<b"}},
		&jsonSchema{AnyOf: []*jsonSchema{{Type: "integer"}, {Type: "string", Privacy: "secret"}}, Items: &jsonSchema{}, Enum: json.RawMessage(`["a","b"]`)},
		&jsonSchema{Default: json.RawMessage(`"\u2028"`), Description: "\x01\x7f\xff bad utf-8"})
	nodes := 0
	for _, root := range roots {
		walkSchema(root, func(s *jsonSchema) {
			nodes++
			want, err := json.Marshal((*plainSchema)(s))
			if err != nil {
				t.Fatal(err)
			}
			got := s.appendJSON(nil)
			if string(got) != string(want) {
				t.Errorf("appendJSON:\n%s\nencoding/json:\n%s", got, want)
			}
			if via, err := json.Marshal(s); err != nil || string(via) != string(want) {
				t.Errorf("json.Marshal through MarshalJSON: %v\n%s\nwant\n%s", err, via, want)
			}
		})
	}
	if nodes < 40 {
		t.Errorf("only %d schema nodes compared", nodes)
	}
}
