package kit_test

import (
	"fmt"
	"strings"

	"github.com/warden-mcp/warden/plugin/kit"
)

type shoutArgs struct {
	Text string `json:"text" desc:"What to shout." maxLength:"1000"`
}

type shoutResult struct {
	Text string `json:"text"`
}

// A plugin tool is a typed handler; Dispatch is what the WebAssembly
// export runs for the host, and a test can call it natively.
func ExampleAdd() {
	kit.Add("demo_shout", func(c *kit.Call, in shoutArgs) (shoutResult, error) {
		if in.Text == "" {
			return shoutResult{}, &kit.Error{Code: "empty_text", Message: "nothing to shout"}
		}
		return shoutResult{Text: strings.ToUpper(in.Text)}, nil
	})
	fmt.Println(string(kit.Dispatch("demo_shout", []byte(`{"text":"hello"}`))))
	fmt.Println(string(kit.Dispatch("demo_shout", []byte(`{"text":""}`))))
	fmt.Println(string(kit.Dispatch("demo_other", []byte(`{}`))))
	// Output:
	// {"result":{"text":"HELLO"}}
	// {"error":{"code":"empty_text","message":"nothing to shout"}}
	// {"error":{"code":"unknown_tool","message":"this plugin has no tool demo_other"}}
}

// Describe is what warden plugin build writes into the manifest.
func ExampleDescribe() {
	kit.Add("demo_len", func(c *kit.Call, in shoutArgs) (int, error) { return len(in.Text), nil })
	fmt.Println(strings.Contains(string(kit.Describe()), `"name":"demo_len","input_schema":{"type":"object"`))
	// Output: true
}
