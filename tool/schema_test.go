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
