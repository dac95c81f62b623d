// Command findstrings is the plug-in example of Binary Ninja's guide to
// writing MCP tools, written for Warden: a tool that finds strings in the
// active binary view. It shows what a view-scoped tool needs and nothing
// else: the server resolves the view before the handler runs (from the
// call's view handle, the session's active view or the caller's only
// view), so the handler reads call.View() and does its work.
//
// The same tool registers unchanged in any Warden server that serves
// binary views (its views embed *binview.View). Run on its own it serves
// one file over stdio:
//
//	go run ./examples/findstrings /usr/bin/true
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

type findArgs struct {
	Contains  string `json:"contains" minLength:"1" maxLength:"256" desc:"Text the strings must contain, ignoring case."`
	MinLength int    `json:"min_length" default:"4" min:"1" max:"4096" desc:"Ignore strings shorter than this many characters."`
	Limit     int    `json:"limit" default:"50" min:"1" max:"1000" desc:"Return at most this many strings."`
}

// Found is one string that matched.
type Found struct {
	Address string `json:"address" privacy:"plain" desc:"Where the string starts, hex."`
	Section string `json:"section,omitempty" privacy:"plain"`
	Text    string `json:"text" privacy:"plain" desc:"The match with up to 64 bytes either side: a long run of text (Go packs its strings together) is shown around the match."`
}

// FindResult is the tool's result.
type FindResult struct {
	Matches []Found `json:"matches"`
}

// Register adds the plug-in's tool to reg, under its own name prefix.
func Register(reg *tool.Registry) error {
	fam, err := reg.Family("findstrings_")
	if err != nil {
		return err
	}
	t, err := tool.New(tool.Def{
		Name:        "findstrings_find",
		Title:       "Find strings",
		Description: "Find the strings in the active binary view that contain a text, ignoring case, with their addresses.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     tool.Catalog{Category: "binary", Trust: tool.TrustAuto},
		Scope:       tool.ViewScoped,
	}, find)
	if err != nil {
		return err
	}
	return fam.Register(t)
}

func find(ctx context.Context, call *tool.Call, in findArgs) (FindResult, error) {
	v, _ := call.View() // resolved by the server: never nil here
	bv, ok := v.(interface{ BinaryView() *binview.View })
	if !ok {
		return FindResult{}, &tool.Error{Code: "not_a_binary", Message: "the active view is not a binary"}
	}
	view := bv.BinaryView()
	strs, cut := view.Strings()
	if cut {
		call.Warn("truncated", "the file has more strings than the view extracts; later ones are not searched")
	}
	needle := strings.ToLower(in.Contains)
	res := FindResult{Matches: []Found{}}
	for i, s := range strs {
		if i%4096 == 0 && ctx.Err() != nil {
			return FindResult{}, ctx.Err()
		}
		if s.Chars() < in.MinLength {
			continue
		}
		text, _ := view.StringText(s, 64<<10)
		at := strings.Index(strings.ToLower(text), needle)
		if at < 0 {
			continue
		}
		if len(res.Matches) == in.Limit {
			call.Warn("truncated", fmt.Sprintf("more than %d strings match; raise limit or narrow contains", in.Limit))
			break
		}
		addr := s.Addr
		if s.Encoding == "ascii" {
			addr += uint64(at) // one byte per character
		}
		lo, hi := max(at-64, 0), min(at+len(needle)+64, len(text))
		res.Matches = append(res.Matches, Found{Address: binview.Hex(addr), Section: s.Section,
			Text: strings.ToValidUTF8(text[lo:hi], "\uFFFD")})
	}
	return res, nil
}

// oneView is the resolver of a server that serves a single open file:
// every call acts on it.
func oneView(v tool.View) tool.ViewResolver {
	return func(context.Context, *tool.Call, string) (tool.View, []tool.Warning, error) { return v, nil, nil }
}

func serve(ctx context.Context, path string, in io.Reader, out io.Writer) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	v, err := binview.Open(ctx, filepath.Base(path), data, &binview.Options{MaxFileSize: binview.LocalMaxFileSize})
	if err != nil {
		return err
	}
	reg := tool.NewRegistry()
	if err := Register(reg); err != nil {
		return err
	}
	opts := &mcp.Options{Middleware: []tool.Middleware{tool.ResolveViews(oneView(v))}}
	return mcp.NewServer(reg, opts).ServeStdio(ctx, in, out, nil)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: findstrings FILE")
		os.Exit(2)
	}
	if err := serve(context.Background(), os.Args[1], os.Stdin, os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "findstrings:", err)
		os.Exit(1)
	}
}
