package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/tooltest"
)

type wordCountArgs struct {
	Text string `json:"text" desc:"Text to count words in" maxLength:"10000"`
	Min  int    `json:"min" default:"1" min:"1" max:"100" desc:"Shortest word to count"`
}

type wordCount struct {
	Words int `json:"words"`
}

// call invokes a tool the way a client would and returns what it reads.
func call(reg *tool.Registry, name, args string) *tooltest.CallResult {
	rep, err := tooltest.Invoke(context.Background(), reg, name, args, nil)
	if err != nil {
		panic(err)
	}
	return rep.Result
}

// A typed tool: the schema, argument checks and result shape come from
// the two structs.
func ExampleAdd() {
	reg := tool.NewRegistry()
	t := tool.Add(reg, tool.Def{
		Name:        "example_word_count",
		Description: "Count the words in a text.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     tool.Catalog{Category: "text", Trust: tool.TrustAuto},
	}, func(ctx context.Context, call *tool.Call, in wordCountArgs) (wordCount, error) {
		n := 0
		for _, w := range strings.Fields(in.Text) {
			if len(w) >= in.Min {
				n++
			}
		}
		return wordCount{Words: n}, nil
	})
	fmt.Println(string(t.InputSchema()))
	fmt.Println(string(call(reg, "example_word_count", `{"text":"to be or not"}`).StructuredContent))
	fmt.Println(call(reg, "example_word_count", `{"text":"x","min":0}`).Content[0].Text)
	// Output:
	// {"type":"object","properties":{"text":{"type":"string","description":"Text to count words in","maxLength":10000},"min":{"type":"integer","description":"Shortest word to count","default":1,"minimum":1,"maximum":100}},"required":["text"],"additionalProperties":false}
	// {"words":4}
	// invalid_params: parameter "min" must be at least 1
}

// A tool error carries a stable code and a short public message; any other
// error becomes internal_error and its cause stays in the server log.
func ExampleErrorf() {
	reg := tool.NewRegistry()
	tool.Add(reg, tool.Def{
		Name:        "example_lookup",
		Description: "Look a name up.",
		Annotations: tool.Annotations{ReadOnly: true},
		Catalog:     tool.Catalog{Category: "example", Trust: tool.TrustAuto},
	}, func(ctx context.Context, call *tool.Call, in struct {
		Name string `json:"name"`
	}) (string, error) {
		return "", tool.Errorf("name_not_found", "no entry is called %q", in.Name)
	})
	r := call(reg, "example_lookup", `{"name":"bob"}`)
	fmt.Println(r.IsError, r.Content[0].Text)
	fmt.Println(string(r.StructuredContent))
	// Output:
	// true name_not_found: no entry is called "bob"
	// {"errorCode":"name_not_found","errorMessage":"no entry is called \"bob\""}
}

// Warnings are advice attached to a result: structured under "warnings"
// and listed as text after it.
func ExampleCall_Warn() {
	reg := tool.NewRegistry()
	tool.Add(reg, tool.Def{
		Name:        "example_read",
		Description: "Read some bytes.",
		Annotations: tool.Annotations{ReadOnly: true},
		Catalog:     tool.Catalog{Category: "example", Trust: tool.TrustAuto},
	}, func(ctx context.Context, call *tool.Call, _ struct{}) (*tool.Result, error) {
		call.Warn("partial_read", "only 8 of 16 bytes are mapped")
		return &tool.Result{Content: []tool.Content{tool.Text("00 01 02 03 04 05 06 07")}}, nil
	})
	for _, c := range call(reg, "example_read", "").Content {
		fmt.Println(c.Text)
	}
	// Output:
	// 00 01 02 03 04 05 06 07
	// Warnings:
	// - partial_read: only 8 of 16 bytes are mapped
}

// A raw tool takes an explicit JSON Schema; arguments are validated
// against it before the handler sees them.
func ExampleAddRaw() {
	reg := tool.NewRegistry()
	tool.AddRaw(reg, tool.Def{
		Name:        "example_raw",
		Description: "Echo a color.",
		Annotations: tool.Annotations{ReadOnly: true},
		Catalog:     tool.Catalog{Category: "example", Trust: tool.TrustAuto},
	}, json.RawMessage(`{"type":"object","properties":{"color":{"enum":["red","green"]}},"required":["color"],"additionalProperties":false}`),
		func(ctx context.Context, call *tool.Call, args json.RawMessage) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{tool.Text(string(args))}}, nil
		})
	fmt.Println(call(reg, "example_raw", `{"color":"red"}`).Content[0].Text)
	fmt.Println(call(reg, "example_raw", `{"color":"blue"}`).Content[0].Text)
	// Output:
	// {"color":"red"}
	// invalid_params: parameter "color" fails the "enum" constraint
}

// A family claims a prefix: from then on only the family may register
// tools under it, so no other tool can pass itself off as one of its own.
func ExampleRegistry_Family() {
	reg := tool.NewRegistry()
	acme := reg.MustFamily("acme_")
	def := tool.Def{Name: "acme_scan", Description: "Scan the acme way.", Annotations: tool.Annotations{ReadOnly: true},
		Catalog: tool.Catalog{Category: "example", Trust: tool.TrustAuto}}
	t, _ := tool.New(def, func(context.Context, *tool.Call, struct{}) (string, error) { return "", nil })
	fmt.Println(acme.Register(t))
	def.Name = "acme_fake"
	t, _ = tool.New(def, func(context.Context, *tool.Call, struct{}) (string, error) { return "", nil })
	fmt.Println(reg.Register(t))
	// Output:
	// <nil>
	// tool acme_fake: prefix "acme_" is reserved for a tool family
}
