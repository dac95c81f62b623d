package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type nested struct {
	Depth int    `json:"depth" default:"1" min:"0" max:"4" desc:"How deep"`
	Label string `json:"label,omitempty" maxLength:"8"`
}

type sampleArgs struct {
	Text    string         `json:"text" desc:"Text to scan" minLength:"1" maxLength:"10"`
	Mode    string         `json:"mode" default:"fast" enum:"fast,deep" desc:"Scan mode"`
	Limit   int            `json:"limit" default:"10" min:"1" max:"100"`
	Ratio   float64        `json:"ratio,omitempty" min:"0" max:"1"`
	Tags    []string       `json:"tags,omitempty" maxItems:"3"`
	Opts    *nested        `json:"opts,omitempty"`
	Code    string         `json:"code,omitempty" pattern:"[A-Z]{3}"`
	Flag    bool           `json:"flag,omitempty"`
	Count   uint8          `json:"count,omitempty"`
	Name    NonEmptyString `json:"name,omitempty"`
	Region  string         `json:"region,omitempty" header:"Region"`
	Ignored string         `json:"-"`
}

type sampleOut struct {
	Echo  string `json:"echo"`
	Limit int    `json:"limit"`
}

func sampleDef(name string) Def {
	return Def{
		Name:        name,
		Description: "A sample tool for tests.",
		Annotations: Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     Catalog{Category: "test", Trust: TrustAuto},
	}
}

func TestInputSchema(t *testing.T) {
	tl, err := New(sampleDef("sample"), func(ctx context.Context, c *Call, in sampleArgs) (sampleOut, error) {
		return sampleOut{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(tl.InputSchema(), &got); err != nil {
		t.Fatal(err)
	}
	if got["additionalProperties"] != false || got["type"] != "object" {
		t.Errorf("root not closed: %s", tl.InputSchema())
	}
	if diff := cmp.Diff([]any{"text"}, got["required"]); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	props := got["properties"].(map[string]any)
	mode := props["mode"].(map[string]any)
	if mode["default"] != "fast" || mode["description"] != "Scan mode" {
		t.Errorf("mode lost default or description: %v", mode)
	}
	if props["limit"].(map[string]any)["maximum"] != 100.0 {
		t.Errorf("limit bounds missing: %v", props["limit"])
	}
	if props["region"].(map[string]any)["x-mcp-header"] != "Region" {
		t.Errorf("header annotation missing: %v", props["region"])
	}
	opts := props["opts"].(map[string]any)
	if opts["additionalProperties"] != false || opts["required"] != nil {
		t.Errorf("nested object: %v", opts)
	}
	if _, ok := props["Ignored"]; ok {
		t.Error(`json:"-" field published`)
	}
	if len(tl.HeaderParams()) != 1 || tl.HeaderParams()[0].Header != "Region" {
		t.Errorf("header params: %+v", tl.HeaderParams())
	}
	var out map[string]any
	if err := json.Unmarshal(tl.OutputSchema(), &out); err != nil {
		t.Fatalf("output schema: %v: %s", err, tl.OutputSchema())
	}
	if _, ok := out["properties"].(map[string]any)["warnings"]; !ok {
		t.Errorf("output schema lacks reserved warnings: %s", tl.OutputSchema())
	}
}

func TestListingAnnotationsAlwaysSent(t *testing.T) {
	d := sampleDef("plain")
	d.Annotations = Annotations{}
	d.Catalog.Trust = TrustConfirm
	tl, err := New(d, func(ctx context.Context, c *Call, in struct{}) (string, error) { return "ok", nil })
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Annotations map[string]any `json:"annotations"`
	}
	if err := json.Unmarshal(tl.Listing(), &l); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if v, ok := l.Annotations[k]; !ok || v != false {
			t.Errorf("%s = %v, %v; want explicit false", k, v, ok)
		}
	}
	if string(tl.InputSchema()) != `{"type":"object","properties":{},"additionalProperties":false}` {
		t.Errorf("empty args schema: %s", tl.InputSchema())
	}
}

func invoke(t *testing.T, tl *Tool, args string) *Result {
	t.Helper()
	return Run(context.Background(), tl, CallEnv{}, json.RawMessage(args)).Result
}

func TestArgumentChecking(t *testing.T) {
	var got sampleArgs
	called := 0
	tl, err := New(sampleDef("sample"), func(ctx context.Context, c *Call, in sampleArgs) (sampleOut, error) {
		called++
		got = in
		return sampleOut{Echo: in.Text, Limit: in.Limit}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		args, want string
	}{
		{`{}`, `missing required parameter "text"`},
		{`[]`, `arguments must be a JSON object`},
		{`"x"`, `arguments must be a JSON object`},
		{`{"text":1}`, `parameter "text" must be a string`},
		{`{"text":""}`, `parameter "text" must be at least 1 characters long`},
		{`{"text":"abcdefghijk"}`, `parameter "text" must be at most 10 characters long`},
		{`{"text":"a","bogus":1}`, `unexpected parameter "bogus"; the parameters are text, mode, limit, ratio, tags, opts, code, flag, count, name, region`},
		{`{"text":"a","text":"b"}`, `parameter "text" given twice`},
		{`{"text":"a","mode":"slow"}`, `parameter "mode" must be one of: fast, deep`},
		{`{"text":"a","limit":0}`, `parameter "limit" must be at least 1`},
		{`{"text":"a","limit":101}`, `parameter "limit" must be at most 100`},
		{`{"text":"a","limit":1.5}`, `parameter "limit" must be an integer`},
		{`{"text":"a","limit":"5"}`, `parameter "limit" must be an integer`},
		{`{"text":"a","ratio":2}`, `parameter "ratio" must be at most 1`},
		{`{"text":"a","tags":["a","b","c","d"]}`, `parameter "tags" must have at most 3 items`},
		{`{"text":"a","tags":[1]}`, `parameter "tags[0]" must be a string`},
		{`{"text":"a","opts":{"depth":9}}`, `parameter "opts.depth" must be at most 4`},
		{`{"text":"a","opts":{"nope":1}}`, `unexpected parameter "opts.nope"; the parameters of "opts" are depth, label`},
		{`{"text":"a","code":"abc"}`, `parameter "code" does not match the required pattern`},
		{`{"text":"a","flag":"true"}`, `parameter "flag" must be a boolean`},
		{`{"text":"a","count":300}`, `parameter "count" is out of range`},
		{`{"text":"a","count":-1}`, `parameter "count" must be at least 0`},
		{`{"text":"a","name":"   "}`, `parameter "name" must not be empty`},
		{`{"text":null}`, `parameter "text" is required and cannot be null`},
		{`{"text":"a",` + strings.Repeat(" ", 3) + `"` + strings.Repeat("k", 100) + `":1}`, `unexpected parameter "` + strings.Repeat("k", 64) + `…"; the parameters are text, mode, limit, ratio, tags, opts, code, flag, count, name, region`},
	}
	for _, tc := range bad {
		r := invoke(t, tl, tc.args)
		if !r.IsError || r.ErrorCode != CodeInvalidParams {
			t.Errorf("%s: not an invalid_params error: %+v", tc.args, r)
			continue
		}
		if want := "invalid_params: " + tc.want; r.Content[0].Text != want {
			t.Errorf("%s:\n got %q\nwant %q", tc.args, r.Content[0].Text, want)
		}
	}
	if called != 0 {
		t.Fatalf("handler ran %d times on bad input", called)
	}
	r := invoke(t, tl, `{"text":"héllo","mode":null,"opts":{},"count":2.0}`)
	if r.IsError {
		t.Fatalf("good input refused: %s", r.Content[0].Text)
	}
	want := sampleArgs{Text: "héllo", Mode: "fast", Limit: 10, Opts: &nested{Depth: 1}, Count: 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded args (-want +got):\n%s", diff)
	}
	if string(r.Structured) != `{"echo":"héllo","limit":10}` || r.Content[0].Text != string(r.Structured) {
		t.Errorf("result: %s / %q", r.Structured, r.Content[0].Text)
	}
}

func TestErrorsAndPanics(t *testing.T) {
	cases := []struct {
		name    string
		fn      Func[struct{}, map[string]int]
		code    string
		message string
	}{
		{"tool error", func(context.Context, *Call, struct{}) (map[string]int, error) {
			return nil, &Error{Code: "thing_missing", Message: "no such thing", Details: map[string]any{"id": 7}}
		}, "thing_missing", "no such thing"},
		{"plain error", func(context.Context, *Call, struct{}) (map[string]int, error) {
			return nil, errors.New("open /secret/path: permission denied")
		}, CodeInternal, "the tool failed; the server log has the cause"},
		{"panic", func(context.Context, *Call, struct{}) (map[string]int, error) {
			panic("boom /internal/detail")
		}, CodeInternal, "the tool failed; the server log has the cause"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tl, err := New(sampleDef("errs"), tc.fn)
			if err != nil {
				t.Fatal(err)
			}
			r := invoke(t, tl, `{}`)
			if !r.IsError || r.Content[0].Text != tc.code+": "+tc.message {
				t.Fatalf("got %+v", r)
			}
			var sc map[string]any
			if err := json.Unmarshal(r.Structured, &sc); err != nil {
				t.Fatalf("structured: %v", err)
			}
			if sc["errorCode"] != tc.code || sc["errorMessage"] != tc.message {
				t.Errorf("structured = %v", sc)
			}
			if strings.Contains(string(r.Structured), "/secret") || strings.Contains(string(r.Structured), "/internal") {
				t.Errorf("cause leaked: %s", r.Structured)
			}
		})
	}
	// A tool with an output schema gets the text alone.
	tl, err := New(sampleDef("typed_err"), func(context.Context, *Call, struct{}) (sampleOut, error) {
		return sampleOut{}, Errorf("bad_thing", "it went wrong")
	})
	if err != nil {
		t.Fatal(err)
	}
	r := invoke(t, tl, `{}`)
	if !r.IsError || r.Structured != nil || r.Content[0].Text != "bad_thing: it went wrong" {
		t.Errorf("typed error result: %+v", r)
	}
}

func TestWarnings(t *testing.T) {
	tl, err := New(sampleDef("warns"), func(ctx context.Context, c *Call, in struct{}) (sampleOut, error) {
		c.Warn("partial_read", "only 10 of 20 bytes were mapped")
		return sampleOut{Echo: "x"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r := invoke(t, tl, ``)
	want := `{"echo":"x","limit":0,"warnings":[{"code":"partial_read","message":"only 10 of 20 bytes were mapped"}]}`
	if string(r.Structured) != want {
		t.Errorf("structured:\n got %s\nwant %s", r.Structured, want)
	}
	if len(r.Content) != 2 || !strings.Contains(r.Content[1].Text, "partial_read: only 10 of 20 bytes") {
		t.Errorf("warning text: %+v", r.Content)
	}
}

func TestRegistrationRefusals(t *testing.T) {
	ok := func(context.Context, *Call, struct{}) (string, error) { return "", nil }
	cases := []struct {
		name string
		def  Def
		want string
	}{
		{"no trust", Def{Name: "a", Description: "d", Catalog: Catalog{Category: "c"}}, "no trust decision"},
		{"bad name", Def{Name: "a b", Description: "d", Catalog: Catalog{Category: "c", Trust: TrustAuto}}, "want 1-64"},
		{"long name", Def{Name: strings.Repeat("a", 65), Description: "d", Catalog: Catalog{Category: "c", Trust: TrustAuto}}, "want 1-64"},
		{"no description", Def{Name: "a", Catalog: Catalog{Category: "c", Trust: TrustAuto}}, "description required"},
		{"no category", Def{Name: "a", Description: "d", Catalog: Catalog{Trust: TrustAuto}}, "category required"},
		{"contradiction", Def{Name: "a", Description: "d", Annotations: Annotations{ReadOnly: true, Destructive: true}, Catalog: Catalog{Category: "c", Trust: TrustAuto}}, "contradict"},
	}
	for _, tc := range cases {
		_, err := New(tc.def, ok)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	type badDefault struct {
		N int `json:"n" default:"500" max:"10"`
	}
	if _, err := New(sampleDef("x"), func(context.Context, *Call, badDefault) (string, error) { return "", nil }); err == nil {
		t.Error("default outside its own bounds accepted")
	}
	type badOut struct {
		Warnings []string `json:"warnings"`
	}
	if _, err := New(sampleDef("x"), func(context.Context, *Call, struct{}) (badOut, error) { return badOut{}, nil }); err == nil {
		t.Error("output declaring reserved warnings accepted")
	}
	type chanArg struct {
		C chan int `json:"c"`
	}
	if _, err := New(sampleDef("x"), func(context.Context, *Call, chanArg) (string, error) { return "", nil }); err == nil {
		t.Error("underivable argument type accepted")
	}

	reg := NewRegistry()
	tl, _ := New(sampleDef("keysweep_fake"), ok)
	other := NewRegistry()
	if err := other.Register(tl); err != nil {
		t.Errorf("a registry that claimed no family reserved a prefix: %v", err)
	}
	fam := reg.MustFamily("keysweep_")
	if err := reg.Register(tl); err == nil {
		t.Error("tool registered under a claimed family prefix")
	}
	tl2, _ := New(sampleDef("KeySweep_fake"), ok)
	if err := reg.Register(tl2); err == nil {
		t.Error("prefix check is case-sensitive")
	}
	if err := fam.Register(tl); err != nil {
		t.Errorf("family registration: %v", err)
	}
	if _, err := reg.Family("keysweep_x_"); err == nil {
		t.Error("an overlapping prefix was claimed")
	}
	if _, err := reg.Family("keysweep_"); err == nil {
		t.Error("a prefix was claimed twice")
	}
	if err := fam.Register(tl); err == nil {
		t.Error("duplicate name accepted")
	}
}

func TestRegistryNotifiesChanges(t *testing.T) {
	reg := NewRegistry()
	n := 0
	cancel := reg.Subscribe(func() { n++ })
	tl, _ := New(sampleDef("one"), func(context.Context, *Call, struct{}) (string, error) { return "", nil })
	reg.MustRegister(tl)
	reg.Remove("one")
	cancel()
	reg.MustRegister(tl)
	if n != 2 {
		t.Errorf("notified %d times, want 2", n)
	}
	tools, _ := reg.Tools()
	if len(tools) != 1 || tools[0].Name != "one" {
		t.Errorf("tools = %v", tools)
	}
}

func TestRawTool(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":5},"who":{"type":"string","x-mcp-header":"Who"}},"required":["n"],"additionalProperties":false}`)
	var seen json.RawMessage
	tl, err := NewRaw(sampleDef("raw"), schema, func(ctx context.Context, c *Call, args json.RawMessage) (*Result, error) {
		seen = args
		return &Result{Content: []Content{Text("ok")}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]string{
		`{}`:            `invalid_params: missing required parameter "n"`,
		`{"n":9}`:       `invalid_params: parameter "n" fails the "maximum" constraint`,
		`{"n":1,"x":2}`: `invalid_params: unexpected parameter "x"; the parameters are n, who`,
	} {
		if r := invoke(t, tl, args); !r.IsError || r.Content[0].Text != want {
			t.Errorf("%s: got %q want %q", args, r.Content[0].Text, want)
		}
	}
	if r := invoke(t, tl, `{"n":3}`); r.IsError || string(seen) != `{"n":3}` {
		t.Errorf("valid raw call: %+v %s", r, seen)
	}
	if len(tl.HeaderParams()) != 1 {
		t.Errorf("raw header params: %+v", tl.HeaderParams())
	}
	if _, err := NewRaw(sampleDef("raw2"), json.RawMessage(`{"type":"array"}`), nil); err == nil {
		t.Error("nil handler accepted")
	}
	if _, err := NewRaw(sampleDef("raw3"), json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`), func(context.Context, *Call, json.RawMessage) (*Result, error) { return nil, nil }); err == nil {
		t.Error("remote $ref was accepted (it must never be fetched)")
	}
}

func TestQuotaToolsMustBegin(t *testing.T) {
	d := sampleDef("metered")
	d.Catalog.ConsumesQuota = true
	lazy, _ := New(d, func(ctx context.Context, c *Call, _ struct{}) (string, error) { return "free work", nil })
	if r := invoke(t, lazy, `{}`); r.ErrorCode != CodeInternal {
		t.Errorf("a quota tool that never called Begin returned %+v", r)
	}
	admitted := 0
	admit := func(ctx context.Context) (context.Context, error) {
		admitted++
		if admitted > 1 {
			return ctx, Errorf("quota_exceeded", "monthly scans used up")
		}
		return ctx, nil
	}
	run := func(tl *Tool) *Result {
		c := NewCall(tl, nil, CallEnv{})
		c.SetAdmission(admit)
		return Invoke(context.Background(), c).Result
	}
	good, _ := New(d, func(ctx context.Context, c *Call, _ struct{}) (string, error) {
		if _, err := c.Begin(ctx); err != nil {
			return "", err
		}
		c.Begin(ctx) // a second call does nothing
		return "paid work", nil
	})
	if r := run(good); r.IsError || admitted != 1 {
		t.Errorf("admitted call: %+v (admissions %d)", r, admitted)
	}
	if r := run(good); r.ErrorCode != "quota_exceeded" {
		t.Errorf("refused admission: %+v", r)
	}
}

// An unexpected parameter's message lists the valid names, for typed and
// raw tools alike, nested objects included, and bounded: a model that
// guessed a name reads the right one in the same answer.
func TestUnexpectedParameterListsNames(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"target":{"type":"string"},"opts":{"type":"object","properties":{"depth":{"type":"integer"},"a/b":{"type":"string"}},"additionalProperties":false},"list":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}},"additionalProperties":false}}},"additionalProperties":false}`)
	rawTool, err := NewRaw(sampleDef("raw_names"), raw, func(ctx context.Context, c *Call, args json.RawMessage) (*Result, error) {
		return &Result{Content: []Content{Text("ok")}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	none, err := New(sampleDef("none"), func(ctx context.Context, c *Call, _ struct{}) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	type wide struct {
		A01 string `json:"alpha_parameter_01,omitempty"`
		A02 string `json:"alpha_parameter_02,omitempty"`
		A03 string `json:"alpha_parameter_03,omitempty"`
		A04 string `json:"alpha_parameter_04,omitempty"`
		A05 string `json:"alpha_parameter_05,omitempty"`
		A06 string `json:"alpha_parameter_06,omitempty"`
		A07 string `json:"alpha_parameter_07,omitempty"`
		A08 string `json:"alpha_parameter_08,omitempty"`
		A09 string `json:"alpha_parameter_09,omitempty"`
		A10 string `json:"alpha_parameter_10,omitempty"`
		A11 string `json:"alpha_parameter_11,omitempty"`
		A12 string `json:"alpha_parameter_12,omitempty"`
		A13 string `json:"alpha_parameter_13,omitempty"`
		A14 string `json:"alpha_parameter_14,omitempty"`
		A15 string `json:"alpha_parameter_15,omitempty"`
		A16 string `json:"alpha_parameter_16,omitempty"`
		A17 string `json:"alpha_parameter_17,omitempty"`
		A18 string `json:"alpha_parameter_18,omitempty"`
	}
	many, err := New(sampleDef("many"), func(ctx context.Context, c *Call, _ wide) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	var first16 []string
	for i := 1; i <= 16; i++ {
		first16 = append(first16, fmt.Sprintf("alpha_parameter_%02d", i))
	}
	for _, c := range []struct {
		tl         *Tool
		args, want string
	}{
		{rawTool, `{"targt":"x"}`, `unexpected parameter "targt"; the parameters are list, opts, target`},
		{rawTool, `{"opts":{"dept":1}}`, `unexpected parameter "opts.dept"; the parameters of "opts" are a/b, depth`},
		{rawTool, `{"list":[{"k":"a"},{"j":"b"}]}`, `unexpected parameter "list.1.j"; the parameters of "list.1" are k`},
		{none, `{"x":1}`, `unexpected parameter "x"; this tool takes no parameters`},
		{many, `{"x":1}`, `unexpected parameter "x"; the parameters are ` + strings.Join(first16, ", ") + ` and 2 more`},
	} {
		r := invoke(t, c.tl, c.args)
		if want := "invalid_params: " + c.want; !r.IsError || r.Content[0].Text != want {
			t.Errorf("%s %s:\n got %q\nwant %q", c.tl.Name, c.args, r.Content[0].Text, want)
		}
	}
}
