// Command binja is an example Warden plugin in Go: the three tools of
// Binary Ninja's MCP guide, count the functions of the active view, find
// strings in it and set a comment, written against the plugin kit.
//
// Build it with `warden plugin build .` (or GOOS=wasip1 GOARCH=wasm go
// build -buildmode=c-shared -o binja.wasm .) and serve it with
// `warden serve --plugins DIR --plugin-grant binja=view,annotate`.
package main

import (
	"strings"

	"github.com/warden-mcp/warden/plugin/kit"
)

type countArgs struct {
	Query string `json:"query,omitempty" desc:"Count only functions whose name contains this text (case-insensitive)." maxLength:"256"`
}

type countResult struct {
	Functions int    `json:"functions" desc:"How many functions the view has (matching query, when given)."`
	Stage     string `json:"stage" desc:"The code-analysis stage the count reflects."`
}

type findArgs struct {
	Query string `json:"query" desc:"Text the strings must contain (case-insensitive)." minLength:"1" maxLength:"256"`
	Limit int    `json:"limit,omitempty" desc:"At most this many strings." default:"20" min:"1" max:"200"`
}

type foundString struct {
	Address string `json:"address"`
	Section string `json:"section"`
	Text    string `json:"text"`
}

type findResult struct {
	Strings []foundString `json:"strings"`
	Total   int           `json:"total" desc:"How many strings match, beyond those returned."`
}

type commentArgs struct {
	Address string `json:"address" desc:"Where the comment goes (an address expression: main+0x10)." minLength:"1" maxLength:"256"`
	Text    string `json:"text" desc:"The comment." minLength:"1" maxLength:"4096"`
}

type commentResult struct {
	Address string `json:"address"`
	Changed bool   `json:"changed"`
}

func init() {
	kit.Add("binja_count_functions", countFunctions)
	kit.Add("binja_find_strings", findStrings)
	kit.Add("binja_set_comment", setComment)
}

func countFunctions(c *kit.Call, in countArgs) (countResult, error) {
	var page struct {
		Total int    `json:"total"`
		Stage string `json:"stage"`
	}
	req := map[string]any{"limit": 1}
	if q := strings.TrimSpace(in.Query); q != "" {
		req["query"] = q
	}
	if err := c.View("functions", req, &page); err != nil {
		return countResult{}, err
	}
	return countResult{Functions: page.Total, Stage: page.Stage}, nil
}

func findStrings(c *kit.Call, in findArgs) (findResult, error) {
	var page struct {
		Items []foundString `json:"items"`
		Total int           `json:"total"`
	}
	if err := c.View("strings", map[string]any{"query": in.Query, "limit": in.Limit, "preview_bytes": 256}, &page); err != nil {
		return findResult{}, err
	}
	_ = c.Log("info", "found strings")
	return findResult{Strings: append([]foundString{}, page.Items...), Total: page.Total}, nil
}

func setComment(c *kit.Call, in commentArgs) (commentResult, error) {
	var r commentResult
	if err := c.Annotate("comment_set", map[string]string{"address": in.Address, "text": in.Text}, &r); err != nil {
		return commentResult{}, err
	}
	return r, nil
}

func main() {}
