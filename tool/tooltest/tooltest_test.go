package tooltest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/warden-mcp/warden/tool"
)

type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func def(name string) tool.Def {
	return tool.Def{Name: name, Description: "A tool.", Annotations: tool.Annotations{ReadOnly: true}, Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto}}
}

type echoArgs struct {
	Msg string `json:"msg" maxLength:"10"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

func goodRegistry() *tool.Registry {
	reg := tool.NewRegistry()
	tool.Add(reg, def("echo"), func(ctx context.Context, c *tool.Call, in echoArgs) (echoOut, error) {
		c.Progress(1, 1, "done")
		return echoOut{Echo: in.Msg}, nil
	})
	return reg
}

func TestCheckPassesGoodTools(t *testing.T) {
	var r recorder
	Check(&r, goodRegistry(), &Options{Samples: map[string][]string{"echo": {`{"msg":"hi"}`}}})
	if len(r.errs) > 0 {
		t.Errorf("good registry failed: %v", r.errs)
	}
}

func TestCheckFindsFaults(t *testing.T) {
	reg := tool.NewRegistry()
	tool.AddRaw(reg, def("open_schema"), json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`),
		func(context.Context, *tool.Call, json.RawMessage) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{tool.Text("ok")}}, nil
		})
	tool.Add(reg, def("crashes"), func(context.Context, *tool.Call, struct{}) (string, error) {
		var m map[string]int
		//lint:ignore SA5000 the tool must crash: Check has to report it
		m["x"] = 1 // nil map write: panics
		return "", nil
	})
	tool.Add(reg, def("stubborn"), func(ctx context.Context, c *tool.Call, in echoArgs) (string, error) {
		time.Sleep(300 * time.Millisecond) // ignores ctx
		return "late", nil
	})
	var r recorder
	Check(&r, reg, &Options{Samples: map[string][]string{"stubborn": {`{"msg":"x"}`}, "missing": {`{}`}}, CancelWithin: 100 * time.Millisecond})
	joined := strings.Join(r.errs, "\n")
	for _, want := range []string{
		"open_schema: input schema is not closed",
		"open_schema: an undeclared parameter was accepted",
		"crashes: empty arguments crashed the handler",
		"stubborn {\"msg\":\"x\"}: a cancelled call did not return",
		"samples given for missing",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing finding %q in:\n%s", want, joined)
		}
	}
}

func TestInvokeReturnsTheClientView(t *testing.T) {
	rep, err := Invoke(context.Background(), goodRegistry(), "echo", `{"msg":"hello"}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Error != nil || rep.Result.IsError || rep.Result.ResultType != "complete" {
		t.Fatalf("reply: %s", rep.Raw)
	}
	if string(rep.Result.StructuredContent) != `{"echo":"hello"}` {
		t.Errorf("structured: %s", rep.Result.StructuredContent)
	}
	if len(rep.Notifications) != 1 || !strings.Contains(string(rep.Notifications[0]), `"notifications/progress"`) {
		t.Errorf("notifications: %s", rep.Notifications)
	}
	rep, err = Invoke(context.Background(), goodRegistry(), "echo", `{"msg":"far too long a message"}`, nil)
	if err != nil || rep.Result.ErrorCode() != tool.CodeInvalidParams {
		t.Errorf("bad args: %v %s", err, rep.Raw)
	}
	rep, err = Invoke(context.Background(), goodRegistry(), "nope", `{}`, nil)
	if err != nil || rep.Error == nil || rep.Error.Code != -32602 {
		t.Errorf("unknown tool: %v %s", err, rep.Raw)
	}
}

func TestCheckFindsUntaggedResultStrings(t *testing.T) {
	type out struct {
		Tagged   string            `json:"tagged" privacy:"url"`
		Untagged string            `json:"untagged"`
		List     []string          `json:"list"`
		ByName   map[string]string `json:"by_name" privacy:"plain"`
		Count    int               `json:"count"`
	}
	reg := tool.NewRegistry()
	tool.Add(reg, def("acme_out"), func(ctx context.Context, c *tool.Call, _ struct{}) (out, error) { return out{}, nil })
	r := &recorder{}
	Check(r, reg, &Options{RequirePrivacy: true})
	got := strings.Join(r.errs, "\n")
	for _, want := range []string{"result field untagged carries no privacy kind", "result field list[] carries no privacy kind"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing finding %q in:\n%s", want, got)
		}
	}
	for _, notWant := range []string{"tagged carries", "by_name", "count", "warnings"} {
		if strings.Contains(got, " "+notWant) {
			t.Errorf("false finding about %s in:\n%s", notWant, got)
		}
	}
}

type namedView string

func (v namedView) ViewName() string { return string(v) }

func TestCheckReachesTheArgumentsOfViewScopedTools(t *testing.T) {
	reg := tool.NewRegistry()
	d := def("scoped")
	d.Scope = tool.ViewScoped
	tool.Add(reg, d, func(ctx context.Context, c *tool.Call, in echoArgs) (string, error) {
		v, _ := c.View()
		return v.ViewName() + ": " + in.Msg, nil
	})
	// Without a resolver, Check holds the tool to refusing a call that has
	// no view; with one, to its argument checks.
	if r := (&recorder{}); func() bool { Check(r, reg, nil); return len(r.errs) > 0 }() {
		t.Errorf("no resolver: %v", r.errs)
	}
	resolve := func(context.Context, *tool.Call, string) (tool.View, []tool.Warning, error) {
		return namedView("a.bin"), nil, nil
	}
	r := &recorder{}
	Check(r, reg, &Options{ResolveView: resolve, Samples: map[string][]string{"scoped": {`{"msg":"hi"}`}}})
	if len(r.errs) > 0 {
		t.Errorf("with a resolver: %v", r.errs)
	}
	// A tool that accepts an undeclared parameter is caught only past the view.
	lax := tool.NewRegistry()
	tool.AddRaw(lax, d, json.RawMessage(`{"type":"object"}`), func(context.Context, *tool.Call, json.RawMessage) (*tool.Result, error) {
		return &tool.Result{Content: []tool.Content{tool.Text("ok")}}, nil
	})
	r = &recorder{}
	Check(r, lax, &Options{ResolveView: resolve})
	if !strings.Contains(strings.Join(r.errs, "\n"), "an undeclared parameter was accepted") {
		t.Errorf("the open schema of a view-scoped tool went unnoticed: %v", r.errs)
	}
}

// Schemas that are valid JSON Schema but that some clients refuse are
// findings: a list of types, an untyped value, an unread keyword, a
// boolean schema, an input array without items. Typed tools, integer
// expressions and any-value results among them, publish none.
func TestCheckFindsUnportableSchemas(t *testing.T) {
	reg := tool.NewRegistry()
	ok := func(context.Context, *tool.Call, json.RawMessage) (*tool.Result, error) {
		return &tool.Result{Content: []tool.Content{tool.Text("ok")}}, nil
	}
	tool.AddRaw(reg, def("unportable"), json.RawMessage(`{"type":"object","properties":{`+
		`"length":{"type":["integer","string"]},`+
		`"anything":{"description":"any value"},`+
		`"choice":{"oneOf":[{"type":"string"},{"type":"integer"}]},`+
		`"list":{"type":"array"},`+
		`"open":{"type":"object","additionalProperties":true},`+
		`"mixed":{"anyOf":[{"type":"string"},{"minimum":1}]}`+
		`},"additionalProperties":false}`), ok)
	type typedArgs struct {
		Address tool.Address    `json:"address"`
		Length  *tool.IntExpr   `json:"length,omitempty" relative:"address" min:"1" max:"64"`
		Raw     json.RawMessage `json:"raw,omitempty"`
		Tags    []string        `json:"tags,omitempty"`
	}
	type typedOut struct {
		Value json.RawMessage `json:"value" privacy:"plain"`
	}
	tool.Add(reg, def("portable"), func(context.Context, *tool.Call, typedArgs) (typedOut, error) { return typedOut{}, nil })
	var r recorder
	Check(&r, reg, nil)
	var got []string
	for _, e := range r.errs {
		if strings.Contains(e, "schema") && !strings.Contains(e, "compile") {
			got = append(got, e)
		}
	}
	want := []string{
		`unportable: input schema at anything: no type: it accepts any value, which single-type dialects cannot say; state the type, or an anyOf of types`,
		`unportable: input schema at choice: keyword "oneOf" is not one every client reads`,
		`unportable: input schema at choice: no type: it accepts any value, which single-type dialects cannot say; state the type, or an anyOf of types`,
		`unportable: input schema at length: type is [integer string], a list: single-type dialects refuse it; use an anyOf of one type each`,
		`unportable: input schema at list: an input array does not say what its items are`,
		`unportable: input schema at mixed.anyOf[1]: an anyOf branch states no single type`,
		`unportable: input schema at mixed.anyOf[1]: no type: it accepts any value, which single-type dialects cannot say; state the type, or an anyOf of types`,
		`unportable: input schema at open{}: true where a schema object belongs (only additionalProperties may be false)`,
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	// An author who needs oneOf says so.
	r = recorder{}
	Check(&r, reg, &Options{AllowUnportableSchemas: true})
	for _, e := range r.errs {
		if strings.Contains(e, "schema at") {
			t.Errorf("reported with AllowUnportableSchemas: %s", e)
		}
	}
}
