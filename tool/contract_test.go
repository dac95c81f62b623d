package tool

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// Each test here holds one promise of the SDK that a review found broken:
// the published schemas say exactly what the decoder enforces, results are
// well-formed MCP whatever a handler returns, and a call ends when its
// handler returns.

func TestPublishedPatternIsAnchored(t *testing.T) {
	type args struct {
		Code string `json:"code" pattern:"[A-Z]{3}"`
	}
	tl, err := New(sampleDef("pat"), func(ctx context.Context, c *Call, in args) (string, error) { return "ok", nil })
	if err != nil {
		t.Fatal(err)
	}
	sch := compileForTest(t, tl.InputSchema())
	for _, v := range []string{"ABC", "xABCx", "ABCD", "AB", "xABC", "ABCx", ""} {
		a := `{"code":"` + v + `"}`
		dec := !invoke(t, tl, a).IsError
		if got := schemaAccepts(sch, a); got != dec {
			t.Errorf("%q: schema accepts=%v, decoder accepts=%v (schema %s)", v, got, dec, tl.InputSchema())
		}
	}
}

func TestOutputPatternPublishedWhole(t *testing.T) {
	type out struct {
		Code string `json:"code" pattern:"[A-Z]{2,}"`
	}
	tl, err := New(sampleDef("outpat"), func(ctx context.Context, c *Call, in struct{}) (out, error) { return out{Code: "AB"}, nil })
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			Pattern string `json:"pattern"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tl.OutputSchema(), &s); err != nil {
		t.Fatalf("output schema: %v: %s", err, tl.OutputSchema())
	}
	if got := s.Properties["code"].Pattern; got != "^(?:[A-Z]{2,})$" {
		t.Errorf("output pattern published as %q: %s", got, tl.OutputSchema())
	}
}

func TestOutputObjectsStayOpen(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type out struct {
		In  inner   `json:"in"`
		All []inner `json:"all"`
	}
	tl, err := New(sampleDef("open"), func(ctx context.Context, c *Call, in struct{}) (out, error) { return out{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(tl.OutputSchema()), `"additionalProperties":false`) {
		t.Errorf("an output object is closed, so a client with a cached schema would refuse a later field: %s", tl.OutputSchema())
	}
	// A result with a field the schema does not know still validates.
	sch := compileForTest(t, tl.OutputSchema())
	if !schemaAccepts(sch, `{"in":{"n":1,"later":true},"all":[],"added_in_v2":"x"}`) {
		t.Error("a grown result fails the published output schema")
	}
}

func TestWarningsMergeIntoAnyWellFormedObject(t *testing.T) {
	tl, err := New(sampleDef("nl"), func(ctx context.Context, c *Call, in struct{}) (*Result, error) {
		c.Warn("partial_read", "short")
		return &Result{Structured: json.RawMessage("{\"a\": 1}\n")}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r := invoke(t, tl, `{}`)
	if r.IsError {
		t.Fatalf("a result whose JSON ends in a newline failed: %+v", r)
	}
	var got map[string]any
	if err := json.Unmarshal(r.Structured, &got); err != nil {
		t.Fatalf("structured content is not JSON: %v: %q", err, r.Structured)
	}
	if got["a"] != 1.0 || got["warnings"] == nil {
		t.Errorf("merged = %s", r.Structured)
	}
}

func TestEmptyTextResultKeepsItsText(t *testing.T) {
	tl, err := New(sampleDef("empty"), func(ctx context.Context, c *Call, in struct{}) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	b, err := invoke(t, tl, `{}`).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `{"type":"text","text":""}`) {
		t.Errorf("an empty text result is not a text block with text: %s", b)
	}
}

func TestStructuredOnlyResultAlsoGivesText(t *testing.T) {
	tl, err := New(sampleDef("sonly"), func(ctx context.Context, c *Call, in struct{}) (*Result, error) {
		return &Result{Structured: json.RawMessage(`{"n":1}`)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r := invoke(t, tl, `{}`)
	if len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != `{"n":1}` {
		t.Errorf("content = %+v, want the structured JSON as text", r.Content)
	}
}

func TestErrorDetailsReachEveryClient(t *testing.T) {
	refusal := &Error{Code: "rate_limit_exceeded", Message: "slow down", Details: map[string]any{"retryAfterSeconds": 3}}
	withOut, err := New(sampleDef("with_out"), func(context.Context, *Call, struct{}) (sampleOut, error) { return sampleOut{}, refusal })
	if err != nil {
		t.Fatal(err)
	}
	// As writing-tools.md and operations-storage.md show it: one text
	// block, the details a JSON line after the message.
	r := invoke(t, withOut, `{}`)
	if len(r.Content) != 1 || r.Content[0].Text != "rate_limit_exceeded: slow down\n{\"retryAfterSeconds\":3}" {
		t.Errorf("a tool with an output schema answered %+v, want the details as a JSON line in the one text block", r.Content)
	}
	noOut, err := New(sampleDef("no_out"), func(context.Context, *Call, struct{}) (string, error) { return "", refusal })
	if err != nil {
		t.Fatal(err)
	}
	if r := invoke(t, noOut, `{}`); !strings.Contains(string(r.Structured), `"details":{"retryAfterSeconds":3}`) {
		t.Errorf("structured error = %s", r.Structured)
	}
}

func TestCallEndsWhenHandlerReturns(t *testing.T) {
	type left struct {
		ctxErr error
		view   bool
	}
	got := make(chan left, 1)
	release := make(chan struct{})
	d := sampleDef("leaver")
	d.Scope = ViewScoped
	tl, err := New(d, func(ctx context.Context, c *Call, in struct{}) (string, error) {
		go func() {
			<-release
			_, hasView := c.View()
			got <- left{ctx.Err(), hasView}
		}()
		return "done", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r := runWithView(tl, fakeBinary{}, `{}`).Result
	if r.IsError {
		t.Fatal(r.Content)
	}
	close(release)
	select {
	case l := <-got:
		if l.ctxErr == nil || l.view {
			t.Errorf("after the handler returned, its goroutine saw ctx.Err()=%v and a view=%v; want cancelled and none", l.ctxErr, l.view)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the left-behind goroutine never reported")
	}
}

func TestRawNullIsAbsent(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"opt":{"type":"string"}},"required":["n"],"additionalProperties":false}`)
	var mu sync.Mutex
	var seen string
	tl, err := NewRaw(sampleDef("rawnull"), schema, func(ctx context.Context, c *Call, args json.RawMessage) (*Result, error) {
		mu.Lock()
		seen = string(args)
		mu.Unlock()
		return &Result{Content: []Content{Text("ok")}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := invoke(t, tl, `{"n":1,"opt":null}`); r.IsError {
		t.Fatalf("null for an optional raw parameter was refused: %+v", r.Content)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(seen, "opt") {
		t.Errorf("handler saw the null member: %s", seen)
	}
	if r := invoke(t, tl, `{"n":null}`); !r.IsError {
		t.Error("null for a required raw parameter was accepted")
	}
}

// patternArgs builds an arguments type whose one field carries pattern p.
func patternArgs(p string) reflect.Type {
	return reflect.StructOf([]reflect.StructField{{
		Name: "Code", Type: reflect.TypeFor[string](),
		Tag: reflect.StructTag(`json:"code" pattern:` + strconv.Quote(p)),
	}})
}

// FuzzPatternAgreement holds the published pattern and the decoder to the
// same answer for random patterns and values, with an independent JSON
// Schema validator as the referee.
func FuzzPatternAgreement(f *testing.F) {
	for _, s := range [][2]string{
		{"[A-Z]{3}", "xABCx"}, {"[A-Z]{2,}", "AB"}, {"a|b", "ab"}, {"^a", "ab"}, {"a$", "ba"},
		{"(ab)*", "abab"}, {"[0-9]+", "12a"}, {`\d+\.\d+`, "1.5"}, {"x?", ""}, {".*", "any\nthing"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, value string) {
		if len(pattern) > 64 || !utf8.ValidString(value) || !utf8.ValidString(pattern) {
			return
		}
		root, err := deriveObject(patternArgs(pattern))
		if err != nil {
			return // a pattern the SDK refuses at registration
		}
		sch := compileForTest(t, schemaOf(root))
		args, _ := json.Marshal(map[string]string{"code": value})
		in := reflect.New(patternArgs(pattern)).Elem()
		dec := decodeArgs(root, args, in, &decodeEnv{}) == nil
		if got := schemaAccepts(sch, string(args)); got != dec {
			t.Fatalf("pattern %q, value %q: schema accepts=%v, decoder accepts=%v (%s)", pattern, value, got, dec, schemaOf(root))
		}
	})
}

func TestPatternsMustBePortable(t *testing.T) {
	for _, p := range []string{`(?i)abc`, `\Aabc`, `abc\z`, `[[:alpha:]]+`, `\Qa.b\E`, `\pL`, `(?P<x>a)`, `(?s).`} {
		if _, err := deriveObject(patternArgs(p)); err == nil {
			t.Errorf("pattern %q uses syntax ECMA-262 (JSON Schema's dialect) lacks, yet was accepted", p)
		}
	}
	for _, p := range []string{`[A-Z]{3}`, `\p{L}+`, `(?:ab)+`, `(?<year>\d{4})`, `a|b`, `[^\s]`} {
		if _, err := deriveObject(patternArgs(p)); err != nil {
			t.Errorf("portable pattern %q refused: %v", p, err)
		}
	}
}
