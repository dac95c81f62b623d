package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/tooltest"
)

// marker is a string this test binary carries, for the tool to find.
var marker = "findstrings-marker: the Quick Brown Fox"

// The plug-in runs against a real view: this test's own executable.
func TestFindInARealView(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	v, err := binview.Open(context.Background(), filepath.Base(exe), data, &binview.Options{MaxFileSize: binview.LocalMaxFileSize})
	if err != nil {
		t.Skipf("this platform's executable does not open: %v", err)
	}
	reg := tool.NewRegistry()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	tooltest.Check(t, reg, &tooltest.Options{RequirePrivacy: true})
	opts := &tooltest.InvokeOptions{ServerOptions: &mcp.Options{Middleware: []tool.Middleware{tool.ResolveViews(oneView(v))}}}
	rep, err := tooltest.Invoke(context.Background(), reg, "findstrings_find", `{"contains":"QUICK BROWN FOX","min_length":8}`, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Result == nil || rep.Result.IsError {
		t.Fatalf("reply: %s", rep.Raw)
	}
	var res FindResult
	if err := json.Unmarshal(rep.Result.StructuredContent, &res); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range res.Matches {
		if !strings.Contains(m.Text, marker) {
			continue
		}
		// The address is the match's own, also inside a run of text.
		addr, err := strconv.ParseUint(strings.TrimPrefix(m.Address, "0x"), 16, 64)
		if b, _ := v.Bytes(addr, 15); err != nil || string(b) != "Quick Brown Fox" {
			t.Errorf("at %s: %q %v", m.Address, b, err)
		}
		found = true
	}
	if !found {
		t.Errorf("the marker was not found: %s", rep.Raw)
	}
	// Without a resolver the server answers no_active_binary_view itself.
	rep, _ = tooltest.Invoke(context.Background(), reg, "findstrings_find", `{"contains":"x"}`, nil)
	if code := rep.Result.ErrorCode(); code != tool.CodeNoActiveView {
		t.Errorf("no view: %s", rep.Raw)
	}
	_ = marker[:1] // keep the marker in the binary
}
