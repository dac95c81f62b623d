package cli

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/internal/repotest"
	"github.com/warden-mcp/warden/internal/toolset"
	"github.com/warden-mcp/warden/tool/tooltest"
)

// The production wiring must refuse loopback and metadata targets: no
// configuration reaches the fetcher's test allowances.
func TestProductionWiringRefusesPrivateTargets(t *testing.T) {
	if edition != "full" {
		t.Skip("the lean edition has no website scan")
	}
	w, err := wire(wireOptions{logger: discardLogger(), stateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{"http://127.0.0.1/", "http://localhost/", "http://[::1]/", "http://169.254.169.254/", "http://10.0.0.1/", "http://0x7f000001/"} {
		rep, err := tooltest.Invoke(context.Background(), w.reg, "microdefend_scan_website", `{"url":"`+url+`"}`, nil)
		if err != nil {
			t.Fatal(err)
		}
		code := rep.Result.ErrorCode()
		if !strings.HasPrefix(code, "blocked_") {
			t.Errorf("%s: %q, want a blocked_ code", url, code)
		}
	}
}

func TestWiredToolsPassTheHarness(t *testing.T) {
	w, err := wire(wireOptions{logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"keysweep_scan_text", "bininspect_open", "bininspect_view_list", "bininspect_view_close",
		"bininspect_view_set_active", "bininspect_eval", "bininspect_triage", "bininspect_sections", "bininspect_symbols",
		"bininspect_imports", "bininspect_exports", "bininspect_strings", "bininspect_memory_read",
		"bininspect_search_bytes", "bininspect_address_info", "bininspect_build_info"}
	if edition == "full" {
		names = append(names, "microdefend_scan_website")
	}
	for _, name := range names {
		if _, ok := w.reg.Lookup(name); !ok {
			t.Errorf("%s is not served", name)
		}
	}
	tooltest.Check(t, w.reg, &tooltest.Options{RequirePrivacy: true})
}

func TestEditionSelectsTools(t *testing.T) {
	w, err := wire(wireOptions{logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	_, hasSite := w.reg.Lookup("microdefend_scan_website")
	if edition == "lean" && hasSite {
		t.Error("the lean edition serves a tool that sends traffic")
	}
	if edition == "full" && !hasSite {
		t.Error("the full edition lacks the website scan")
	}
}

// The fetcher's widened policy (safehttp.Options.AllowPrivate and
// AllowPorts, and toolset.Deps.SafeHTTP that carries them) is set by warden
// scan site and nowhere else: no tool argument, configuration key, flag of
// serve or stdio, or other wiring can reach it. A new place that sets one
// of them fails this test.
func TestWidenedFetchIsCommandLineOnly(t *testing.T) {
	root := repotest.Root(t)
	setters := map[string]bool{"AllowPrivate": true, "AllowPorts": true, "SafeHTTP": true}
	allowed := map[string]bool{filepath.Join("internal", "cli", "scan_site.go"): true}
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "safehttp" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir // the package that defines them may use them
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		seen++
		ast.Inspect(f, func(n ast.Node) bool {
			var name string
			switch x := n.(type) {
			case *ast.KeyValueExpr: // Options{AllowPrivate: ...}
				if id, ok := x.Key.(*ast.Ident); ok {
					name = id.Name
				}
			case *ast.AssignStmt: // o.AllowPorts = ...
				for _, l := range x.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok && setters[sel.Sel.Name] {
						name = sel.Sel.Name
					}
				}
			case *ast.UnaryExpr: // &o.AllowPrivate, handed to a flag or a decoder
				if sel, ok := x.X.(*ast.SelectorExpr); ok && x.Op == token.AND {
					name = sel.Sel.Name
				}
			}
			if setters[name] && !allowed[rel] {
				t.Errorf("%s sets %s: only warden scan site may widen the fetch policy", rel, name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("parsed only %d files", seen)
	}
	// The configuration file knows no such key.
	cfg := filepath.Join(t.TempDir(), "warden.yaml")
	for _, key := range []string{"allow_private: true", "allow_ports: [3000]", "safehttp: {allow_private: true}"} {
		os.WriteFile(cfg, []byte(key+"\n"), 0o600)
		if _, err := loadConfig(cfg, func(string) string { return "" }); err == nil {
			t.Errorf("the configuration accepted %q", key)
		}
	}
	// serve and stdio have no such flag.
	for _, cmd := range []string{"serve", "stdio"} {
		_, errOut, code := run(t, "", cmd, "--allow-private")
		if code != ExitError || !strings.Contains(errOut, "unknown flag: --allow-private") {
			t.Errorf("%s --allow-private: exit %d %s", cmd, code, errOut)
		}
	}
}

// The served tool refuses a live loopback site on a high port, the one
// warden scan site reaches with its flags, and sends it nothing.
func TestServedToolRefusesTheDevSite(t *testing.T) {
	if edition != "full" {
		t.Skip("the lean edition has no website scan")
	}
	srv, hits := devSite(t)
	w, err := wire(wireOptions{logger: discardLogger(), stateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		`{"url":"` + srv.URL + `/"}`,
		`{"url":"` + srv.URL + `/","allow_private":true,"allowPrivate":true,"allow_port":` + sitePort(t, srv) + `}`,
	} {
		rep, err := tooltest.Invoke(context.Background(), w.reg, "microdefend_scan_website", args, nil)
		if err != nil {
			t.Fatal(err)
		}
		if code := rep.Result.ErrorCode(); code == "" {
			t.Errorf("%s: scanned", args)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the served tool sent %d requests to a loopback site", hits.Load())
	}
}

// TestCatalogParity: every built-in tool is registered once, under exactly
// one family prefix, with an object input schema, a trust tier and a
// documented category; and every documented category is used. (The tools
// reference, docs/tools.md, is held to the registry by
// TestToolsReferenceIsCurrent.)
func TestCatalogParity(t *testing.T) {
	w, err := wire(wireOptions{logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := w.reg.Tools()
	used := map[string]bool{}
	seen := map[string]bool{}
	for _, tl := range tools {
		if seen[tl.Name] {
			t.Errorf("%s is registered twice", tl.Name)
		}
		seen[tl.Name] = true
		families := 0
		for _, p := range toolset.Prefixes {
			if strings.HasPrefix(tl.Name, p) {
				families++
			}
		}
		if families != 1 {
			t.Errorf("%s is in %d families; want exactly one", tl.Name, families)
		}
		if _, ok := toolset.Categories[tl.Catalog.Category]; !ok {
			t.Errorf("%s: category %q is not in the documented list", tl.Name, tl.Catalog.Category)
		}
		used[tl.Catalog.Category] = true
		if tl.Catalog.Trust == "" {
			t.Errorf("%s has no trust tier", tl.Name)
		}
		var s struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(tl.InputSchema(), &s); err != nil || s.Type != "object" {
			t.Errorf("%s: input schema is not an object schema", tl.Name)
		}
	}
	if edition == "full" {
		for c := range toolset.Categories {
			if !used[c] {
				t.Errorf("documented category %q has no tool", c)
			}
		}
	}
	doc, err := os.ReadFile(filepath.Join(repotest.Root(t), "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	for c := range toolset.Categories {
		if !strings.Contains(string(doc), "`"+c+"`") {
			t.Errorf("category %q is not documented in docs/operations.md", c)
		}
	}
}
