package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The published schema and the argument decoder are derived from the same
// struct walk; these tests hold them to agreeing, using an independent
// JSON Schema 2020-12 validator as the referee. Two documented leniencies
// are excluded: null for an optional parameter means absent (the schema
// does not advertise null), and repeated member names (invisible to a
// schema validator) are refused by the decoder.

func compileForTest(t testing.TB, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("urn:test", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("urn:test")
	if err != nil {
		t.Fatalf("published schema does not compile: %v\n%s", err, schema)
	}
	return sch
}

func schemaAccepts(sch *jsonschema.Schema, args string) bool {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		return false
	}
	return sch.Validate(inst) == nil
}

var candidateValues = []string{
	`"a"`, `""`, `"   "`, `"abcdefghijk"`, `"ABC"`, `"xABCx"`, `"ABCD"`, `"xABC"`, `"abc"`, `"fast"`, `"deep"`, `"slow"`, `"héllo"`,
	`0`, `1`, `-1`, `2.0`, `1.5`, `0.5`, `100`, `101`, `255`, `256`, `1e2`, `-0`,
	`true`, `false`, `[]`, `["a"]`, `["a","b","c","d"]`, `[1]`, `{}`, `{"depth":2}`, `{"depth":9}`,
	`{"label":"abcdefghi"}`, `{"x":1}`,
}

func TestSchemaMatchesDecoder(t *testing.T) {
	tl, err := New(sampleDef("sample"), func(ctx context.Context, c *Call, in sampleArgs) (string, error) {
		return "ok", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sch := compileForTest(t, tl.InputSchema())
	fields := []string{"text", "mode", "limit", "ratio", "tags", "opts", "code", "flag", "count", "name", "region", "bogus"}
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(args string) {
		r := invoke(t, tl, args)
		dec := !r.IsError
		if got := schemaAccepts(sch, args); got != dec {
			t.Errorf("disagreement on %s: schema accepts=%v, decoder accepts=%v (%v)", args, got, dec, r.Content)
		}
	}
	// Every field with every candidate, beside a valid text.
	for _, f := range fields {
		for _, v := range candidateValues {
			if f == "text" {
				check(`{"text":` + v + `}`)
			} else {
				check(`{"text":"a","` + f + `":` + v + `}`)
			}
		}
	}
	// Random combinations.
	for i := 0; i < 3000; i++ {
		var parts []string
		used := map[string]bool{}
		for j := rng.IntN(5); j >= 0; j-- {
			f := fields[rng.IntN(len(fields))]
			if used[f] {
				continue
			}
			used[f] = true
			parts = append(parts, fmt.Sprintf("%q:%s", f, candidateValues[rng.IntN(len(candidateValues))]))
		}
		check("{" + strings.Join(parts, ",") + "}")
	}
}

func TestOutputSchemaDescribesResults(t *testing.T) {
	type item struct {
		ID   string  `json:"id"`
		Size float64 `json:"size,omitempty"`
	}
	type out struct {
		Items []item          `json:"items"`
		Total int             `json:"total"`
		Extra json.RawMessage `json:"extra,omitempty"`
	}
	tl, err := New(sampleDef("outs"), func(ctx context.Context, c *Call, in struct{}) (out, error) {
		c.Warn("truncated", "list cut at 2")
		return out{Items: []item{{ID: "a"}, {ID: "b", Size: 2}}, Total: 9}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sch := compileForTest(t, tl.OutputSchema())
	r := invoke(t, tl, `{}`)
	if !schemaAccepts(sch, string(r.Structured)) {
		t.Errorf("result %s does not match its output schema %s", r.Structured, tl.OutputSchema())
	}
}

func FuzzArguments(f *testing.F) {
	for _, s := range []string{`{}`, `{"text":"a"}`, `{"text":"a","opts":{"depth":3}}`, `{"text":"a","tags":["x"]}`, `[]`, `null`, `{"text":"\u00e9"}`} {
		f.Add(s)
	}
	tl, err := New(sampleDef("sample"), func(ctx context.Context, c *Call, in sampleArgs) (string, error) {
		return "ok", nil
	})
	if err != nil {
		f.Fatal(err)
	}
	sch := compileForTest(f, tl.InputSchema())
	f.Fuzz(func(t *testing.T, args string) {
		r := Run(context.Background(), tl, CallEnv{}, json.RawMessage(args)).Result
		if r == nil {
			t.Fatal("nil result")
		}
		if !json.Valid([]byte(args)) {
			if !r.IsError {
				t.Fatalf("invalid JSON accepted: %q", args)
			}
			return
		}
		if r.IsError && r.ErrorCode != CodeInvalidParams {
			t.Fatalf("unexpected error code %s for %q", r.ErrorCode, args)
		}
		// Outside the documented leniencies, the decoder and the schema agree.
		if strings.Contains(args, "null") || hasDuplicateKeys(args) || strings.Contains(args, `\`) {
			return
		}
		if dec, sv := !r.IsError, schemaAccepts(sch, args); dec != sv {
			t.Fatalf("disagreement on %q: decoder %v schema %v (%v)", args, dec, sv, r.Content)
		}
	})
}

func hasDuplicateKeys(s string) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	var walk func() bool
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, _ := dec.Token()
				ks, _ := k.(string)
				if seen[ks] {
					return true
				}
				seen[ks] = true
				if walk() {
					return true
				}
			}
			_, _ = dec.Token()
		case json.Delim('['):
			for dec.More() {
				if walk() {
					return true
				}
			}
			_, _ = dec.Token()
		}
		return false
	}
	return walk()
}

// The kinds whose natural schema is not one type are published as an
// anyOf of single-type schemas, which every client accepts, not as a list
// of types or an untyped schema: an integer expression as integer (with
// its bounds) or string, and any value as its six types, the input form's
// array saying what its items are.
func TestPublishedSchemasArePortable(t *testing.T) {
	type args struct {
		Address Address         `json:"address"`
		Length  IntExpr         `json:"length" relative:"address" min:"1" max:"64" desc:"How many bytes."`
		Base    IntExpr         `json:"base,omitempty" default:"4096"`
		Raw     json.RawMessage `json:"raw,omitempty"`
	}
	type out struct {
		Value json.RawMessage `json:"value" privacy:"plain"`
	}
	tl, err := New(sampleDef("kinds"), func(ctx context.Context, c *Call, in args) (out, error) { return out{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	props := func(schema []byte) map[string]json.RawMessage {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(schema, &s); err != nil {
			t.Fatal(err)
		}
		return s.Properties
	}
	in, outp := props(tl.InputSchema()), props(tl.OutputSchema())
	for _, c := range []struct {
		name string
		got  json.RawMessage
		want string
	}{
		{"length", in["length"], `{"anyOf":[{"type":"integer","minimum":1,"maximum":64},{"type":"string"}],"x-warden-kind":"integer-expression","description":"How many bytes."}`},
		{"base", in["base"], `{"anyOf":[{"type":"integer","minimum":0},{"type":"string"}],"x-warden-kind":"integer-expression","default":4096}`},
		{"raw", in["raw"], `{"anyOf":[{"type":"object"},{"type":"array","items":{"anyOf":[{"type":"object"},{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"}]}},{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"}]}`},
		{"value", outp["value"], `{"anyOf":[{"type":"object"},{"type":"array"},{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"}],"x-warden-privacy":"plain"}`},
	} {
		if string(c.got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, c.got, c.want)
		}
	}
	// The schema and the decoder still agree on integers and strings.
	sch := compileForTest(t, tl.InputSchema())
	for _, a := range []string{`{"address":"1","length":1}`, `{"address":"1","length":64}`, `{"address":"1","length":"0x10"}`,
		`{"address":"1","length":65}`, `{"address":"1","length":0}`, `{"address":"1","length":true}`, `{"address":"1","length":[1]}`,
		`{"address":"1","length":1,"raw":[[1],{"a":null}]}`, `{"address":"1","length":1,"raw":"x"}`} {
		r := invoke(t, tl, a)
		if dec, sv := !r.IsError, schemaAccepts(sch, a); dec != sv && !strings.Contains(a, "[[") {
			t.Errorf("%s: decoder %v, schema %v (%v)", a, dec, sv, r.Content)
		}
	}
}
