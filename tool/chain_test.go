package tool

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The chain runs its stages outermost first, each seeing the outcome of
// the ones inside it.
func TestChainOrder(t *testing.T) {
	var order []string
	stage := func(name string) Middleware {
		return func(next Handler) Handler {
			return func(ctx context.Context, c *Call) Outcome {
				order = append(order, name+">")
				out := next(ctx, c)
				order = append(order, "<"+name)
				return out
			}
		}
	}
	tl := MustNew(t, "chained", func(context.Context, *Call, struct{}) (string, error) {
		order = append(order, "handler")
		return "ok", nil
	})
	h := Chain(Invoke, stage("a"), nil, stage("b"))
	if out := h(context.Background(), NewCall(tl, nil, CallEnv{})); out.Result == nil || out.Result.IsError {
		t.Fatalf("%+v", out)
	}
	if want := []string{"a>", "b>", "handler", "<b", "<a"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
}

// MustNew builds a typed tool with a test definition.
func MustNew[In any, Out any](t *testing.T, name string, fn Func[In, Out]) *Tool {
	t.Helper()
	tl, err := New(sampleDef(name), fn)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// A stage reads the arguments from the call, split once, in the client's
// order; a repeated name reads as its last value, as the old walks did.
func TestCallArguments(t *testing.T) {
	d := sampleDef("fetch")
	d.Catalog.TargetParam = "url"
	type in struct {
		URL   string `json:"url"`
		Depth int    `json:"depth" default:"1"`
	}
	tl, err := New(d, func(context.Context, *Call, in) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	c := NewCall(tl, json.RawMessage(`{"depth":2, "url":"https://a.example/", "url":"https://b.example/"}`), CallEnv{})
	var names []string
	for _, a := range c.ArgumentList() {
		names = append(names, a.Name)
	}
	if !slices.Equal(names, []string{"depth", "url", "url"}) {
		t.Errorf("members %v", names)
	}
	if got, ok := c.Target(); !ok || got != "https://b.example/" {
		t.Errorf("target %q %v", got, ok)
	}
	if v, ok := c.Argument("depth"); !ok || string(v) != "2" {
		t.Errorf("depth %s %v", v, ok)
	}
	if _, ok := c.StringArgument("depth"); ok {
		t.Error("a number read as a string")
	}
	for _, args := range []string{`[1]`, `{"url":`, ``} {
		c := NewCall(tl, json.RawMessage(args), CallEnv{})
		if c.ArgumentList() != nil {
			t.Errorf("%q: members %v", args, c.ArgumentList())
		}
		if _, ok := c.Target(); ok {
			t.Errorf("%q: a target", args)
		}
	}
	// Malformed arguments are refused by Invoke, whatever the stages did.
	if r := Invoke(context.Background(), NewCall(tl, json.RawMessage(`{"url":`), CallEnv{})).Result; r.ErrorCode != CodeInvalidParams {
		t.Errorf("malformed arguments: %+v", r)
	}
}

type namedView string

func (v namedView) ViewName() string { return string(v) }

// A family's view-scoped tools find their views through the family's own
// resolver; a stage's resolver on the call comes first; a tool outside the
// family has none.
func TestFamilyResolvesViews(t *testing.T) {
	reg := NewRegistry()
	fam := reg.MustFamily("bin_")
	fam.ResolveViews(func(_ context.Context, c *Call, handle string) (View, []Warning, error) {
		return namedView("family:" + handle + ":" + c.Session()), nil, nil
	})
	scoped := func(name string) *Tool {
		d := sampleDef(name)
		d.Scope = ViewScoped
		tl, err := New(d, func(_ context.Context, c *Call, _ struct{}) (string, error) {
			v, _ := c.View()
			return v.ViewName(), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	inFamily, outside := scoped("bin_name"), scoped("other_name")
	if err := fam.Register(inFamily); err != nil {
		t.Fatal(err)
	}
	reg.MustRegister(outside)
	text := func(r *Result) string { return r.Content[0].Text }
	if r := Invoke(context.Background(), NewCall(inFamily, json.RawMessage(`{"view":"v1"}`), CallEnv{Session: "s"})).Result; text(r) != "family:v1:s" {
		t.Errorf("family resolver: %+v", r)
	}
	c := NewCall(inFamily, nil, CallEnv{})
	c.SetViewResolver(func(context.Context, *Call, string) (View, []Warning, error) { return namedView("stage"), nil, nil })
	if r := Invoke(context.Background(), c).Result; text(r) != "stage" {
		t.Errorf("stage resolver: %+v", r)
	}
	if r := Invoke(context.Background(), NewCall(outside, nil, CallEnv{})).Result; r.ErrorCode != CodeNoActiveView || !strings.Contains(text(r), "no view is open") {
		t.Errorf("outside the family: %+v", r)
	}
}
