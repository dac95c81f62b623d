package tooltest_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/tooltest"
)

func upperRegistry() *tool.Registry {
	reg := tool.NewRegistry()
	tool.Add(reg, tool.Def{
		Name:        "acme_upper",
		Description: "Upper-case a text.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     tool.Catalog{Category: "text", Trust: tool.TrustAuto},
	}, func(ctx context.Context, call *tool.Call, in struct {
		Text string `json:"text" maxLength:"100"`
	}) (string, error) {
		return strings.ToUpper(in.Text), nil
	})
	return reg
}

// Invoke calls a tool the way a client does and returns what it reads.
func ExampleInvoke() {
	rep, err := tooltest.Invoke(context.Background(), upperRegistry(), "acme_upper", `{"text":"quiet"}`, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Result.Content[0].Text)
	rep, _ = tooltest.Invoke(context.Background(), upperRegistry(), "acme_upper", `{"txt":"typo"}`, nil)
	fmt.Println(rep.Result.ErrorCode())
	// Output:
	// QUIET
	// invalid_params
}

// printer reports Check's findings; in a test, pass the *testing.T.
type printer struct{ n int }

func (p *printer) Helper() {}
func (p *printer) Errorf(format string, args ...any) {
	p.n++
	fmt.Printf(format+"\n", args...)
}

// Check holds every tool of a registry to the rules Warden's own tools
// meet. Call it from a test with the *testing.T.
func ExampleCheck() {
	var t printer
	tooltest.Check(&t, upperRegistry(), &tooltest.Options{
		Samples: map[string][]string{"acme_upper": {`{"text":"loud"}`}},
	})
	fmt.Println("findings:", t.n)
	// Output:
	// findings: 0
}
