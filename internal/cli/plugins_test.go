package cli

import (
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/plugin"
)

var (
	binjaOnce sync.Once
	binjaDir  string
	binjaErr  error
)

// binjaPlugin builds the example plugin (examples/plugins/binja) with
// the local Go toolchain, once per test binary, into a plugin directory.
func binjaPlugin(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH: cannot build the example plugin")
	}
	binjaOnce.Do(func() {
		binjaDir, binjaErr = os.MkdirTemp("", "warden-binja-")
		if binjaErr != nil {
			return
		}
		src := filepath.Join("..", "..", "examples", "plugins", "binja")
		raw, err := os.ReadFile(filepath.Join(src, plugin.ManifestFile))
		if err != nil {
			binjaErr = err
			return
		}
		if binjaErr = os.WriteFile(filepath.Join(binjaDir, plugin.ManifestFile), raw, 0o644); binjaErr != nil {
			return
		}
		binjaErr = plugin.Build(context.Background(), src, &plugin.BuildOptions{OutDir: binjaDir})
	})
	if binjaErr != nil {
		t.Fatalf("building the example plugin: %v", binjaErr)
	}
	return binjaDir
}

// pluginServer wires a local server (stdio's controls) with the example
// plugin, a refused plugin beside it, and cfg's settings.
func pluginServer(t *testing.T, cfg Config) *wired {
	t.Helper()
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, plugin.ManifestFile), []byte(`{"name":"bininspect","version":"1","runtime":"wasm","module":"x.wasm","tools":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.StateDir = t.TempDir()
	cfg.Plugins.Dirs = []string{binjaPlugin(t), bad}
	cfg, err := cfg.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := openControls(context.Background(), cfg, discardLogger(), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctl.close)
	w, err := wire(wireOptions{logger: discardLogger(), stateDir: cfg.StateDir, controls: ctl, cfg: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.closePlugins)
	if len(w.pluginErrs) != 1 || !strings.Contains(w.pluginErrs[0].Error(), plugin.ManifestFile) ||
		!strings.Contains(w.pluginErrs[0].Error(), "built-in tools") {
		t.Fatalf("the bad plugin's refusal: %v", w.pluginErrs)
	}
	return w
}

func TestExamplePluginThroughTheServer(t *testing.T) {
	elf, err := os.ReadFile(gccHello(t))
	if err != nil {
		t.Fatal(err)
	}
	w := pluginServer(t, Config{Approvals: "client", Plugins: PluginsConfig{Grants: map[string][]string{"binja": {"view", "annotate"}}}})
	// Before a view is open, a view-scoped plugin tool answers as the
	// built-ins do.
	if r := callAs(t, w.srv, hostedAlice, "binja_count_functions", `{}`); r.code != "no_active_binary_view" {
		t.Fatalf("without a view: %s", r.raw)
	}
	r := callAs(t, w.srv, hostedAlice, "bininspect_open", `{"data_base64":"`+base64.StdEncoding.EncodeToString(elf)+`"}`)
	if r.code != "" {
		t.Fatalf("open: %s", r.raw)
	}
	view := r.str("view")
	r = callAs(t, w.srv, hostedAlice, "binja_count_functions", `{"view":"`+view+`"}`)
	if n, _ := r.structured["functions"].(float64); r.code != "" || n < 1 {
		t.Fatalf("count functions: %s", r.raw)
	}
	r = callAs(t, w.srv, hostedAlice, "binja_find_strings", `{"view":"`+view+`","query":"example.org"}`)
	if r.code != "" || !strings.Contains(r.raw, "https://example.org/update") {
		t.Fatalf("find strings: %s", r.raw)
	}
	r = callAs(t, w.srv, hostedAlice, "binja_set_comment", `{"view":"`+view+`","address":"main","text":"entry point"}`)
	if r.code != "" || r.structured["changed"] != true {
		t.Fatalf("set comment: %s", r.raw)
	}
	r = callAs(t, w.srv, hostedAlice, "bininspect_annotations", `{"view":"`+view+`"}`)
	if !strings.Contains(r.raw, "entry point") {
		t.Fatalf("the plugin's comment is not in the view's annotations: %s", r.raw)
	}
	// Another tenant's view of the same file carries none of it.
	callAs(t, w.srv, hostedCarol, "bininspect_open", `{"data_base64":"`+base64.StdEncoding.EncodeToString(elf)+`"}`)
	r = callAs(t, w.srv, hostedCarol, "bininspect_annotations", `{}`)
	if strings.Contains(r.raw, "entry point") {
		t.Fatalf("another tenant sees the comment: %s", r.raw)
	}
	// Arguments are checked before the plugin runs.
	if r := callAs(t, w.srv, hostedAlice, "binja_find_strings", `{"view":"`+view+`"}`); r.code != "invalid_params" {
		t.Fatalf("missing query: %s", r.raw)
	}
	// warden_status lists the plugin's tools with their plugin.
	r = callAs(t, w.srv, hostedAlice, "warden_status", `{}`)
	if !strings.Contains(r.raw, `\"plugin\":{\"name\":\"binja\"`) && !strings.Contains(r.raw, `"plugin":{"name":"binja"`) {
		t.Fatalf("warden_status does not name the plugin: %.600s", r.raw)
	}
}

// The gates apply to plugin tools as to built-ins.
func TestPluginToolsPassTheGates(t *testing.T) {
	w := pluginServer(t, Config{Tools: ToolsConfig{Disable: []string{"binja_find_strings"}}})
	if r := callAs(t, w.srv, hostedAlice, "binja_find_strings", `{"query":"x"}`); r.code != "tool_disabled" {
		t.Fatalf("disabled: %s", r.raw)
	}
	narrow := auth.Principal{Issuer: "https://idp.example", Tenant: "acme", Credential: "dave", Entitlements: []string{"bininspect_open"}}
	if r := callAs(t, w.srv, narrow, "binja_count_functions", `{}`); r.code != "forbidden" {
		t.Fatalf("not entitled: %s", r.raw)
	}
	// Not granted the view capability: the plugin's read is refused.
	if r := callAs(t, w.srv, hostedAlice, "bininspect_open", `{"data_base64":"`+snippet+`","format":"raw","arch":"arm64"}`); r.code != "" {
		t.Fatalf("open: %s", r.raw)
	}
	if r := callAs(t, w.srv, hostedAlice, "binja_count_functions", `{}`); r.code != plugin.CodeNotGranted {
		t.Fatalf("ungranted capability: %s", r.raw)
	}
	// A confirm tool asks first (approvals elicit): the stateless call
	// comes back asking for input, the plugin has not run.
	r := callAs(t, w.srv, hostedAlice, "binja_set_comment", `{"address":"0","text":"x"}`)
	if r.code == "" && r.structured["changed"] == true {
		t.Fatalf("a confirm tool ran without approval: %s", r.raw)
	}
}

// warden serve loads changed, new and removed plugins without a restart,
// and the registry tells clients (tools/list_changed).
func TestPluginsReload(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	parent := t.TempDir()
	for _, name := range []string{"alpha"} {
		if err := plugin.New(filepath.Join(parent, name), name, plugin.ScaffoldOptions{Lang: "python"}); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := Config{StateDir: t.TempDir(), Plugins: PluginsConfig{Dirs: []string{parent}}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	w, err := wire(wireOptions{logger: discardLogger(), cfg: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer w.closePlugins()
	changes := 0
	cancel := w.reg.Subscribe(func() { changes++ })
	defer cancel()
	has := func(name string) (*string, bool) {
		tl, ok := w.reg.Lookup(name)
		if !ok {
			return nil, false
		}
		return &tl.Description, true
	}
	if _, ok := has("alpha_echo"); !ok {
		t.Fatal("alpha_echo not loaded")
	}
	if errs := w.plugins.reload(context.Background()); len(errs) != 0 || changes != 0 {
		t.Fatalf("a reload with nothing changed: %v, %d changes", errs, changes)
	}
	// A changed manifest, a new plugin.
	mf := filepath.Join(parent, "alpha", plugin.ManifestFile)
	raw, _ := os.ReadFile(mf)
	if err := os.WriteFile(mf, []byte(strings.Replace(string(raw), "Return the text it is given, unchanged.", "Return the text, reloaded.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := plugin.New(filepath.Join(parent, "beta"), "beta", plugin.ScaffoldOptions{Lang: "python"}); err != nil {
		t.Fatal(err)
	}
	if errs := w.plugins.reload(context.Background()); len(errs) != 0 {
		t.Fatal(errs)
	}
	if d, ok := has("alpha_echo"); !ok || *d != "Return the text, reloaded." {
		t.Fatalf("alpha_echo after its manifest changed: %v", d)
	}
	if _, ok := has("beta_echo"); !ok || changes == 0 {
		t.Fatalf("beta_echo not loaded, or no change told (%d)", changes)
	}
	// A broken manifest keeps the last good version serving; a removed
	// plugin's tools go.
	bf := filepath.Join(parent, "beta", plugin.ManifestFile)
	if err := os.WriteFile(bf, []byte(`{"name":"beta"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(parent, "alpha")); err != nil {
		t.Fatal(err)
	}
	errs := w.plugins.reload(context.Background())
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), bf) {
		t.Fatalf("the broken manifest's refusal: %v", errs)
	}
	if _, ok := has("beta_echo"); !ok {
		t.Fatal("beta_echo stopped serving when its manifest broke")
	}
	if _, ok := has("alpha_echo"); ok {
		t.Fatal("alpha_echo still served after its plugin was removed")
	}
	r := callAs(t, w.srv, hostedAlice, "beta_echo", `{"text":"still"}`)
	if r.str("text") != "still" {
		t.Fatalf("beta_echo: %s", r.raw)
	}
	// A 2026-07-28 client caches the list for ttlMs, and has no session
	// to be told of a change: with plugins, no longer than they are
	// looked at (reload_interval, 2 s by default).
	list := w.srv.ServeMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), nil)
	if !strings.Contains(string(list), `"ttlMs":2000`) {
		t.Errorf("the tool list's cache hint with plugins: %.300s", list)
	}
}

// A plugin's host functions reach a built-in tool only where its caller
// could call that tool: switched off, it is refused to the plugin too.
func TestPluginHostFunctionsFollowTheBuiltinsGates(t *testing.T) {
	w := pluginServer(t, Config{Tools: ToolsConfig{Disable: []string{"bininspect_functions"}},
		Plugins: PluginsConfig{Grants: map[string][]string{"binja": {"view"}}}})
	if r := callAs(t, w.srv, hostedAlice, "bininspect_open", `{"data_base64":"`+snippet+`","format":"raw","arch":"arm64"}`); r.code != "" {
		t.Fatalf("open: %s", r.raw)
	}
	if r := callAs(t, w.srv, hostedAlice, "binja_count_functions", `{}`); r.code != "forbidden" || !strings.Contains(r.msg, "bininspect_functions") {
		t.Fatalf("a read through a switched-off tool: %s", r.raw)
	}
	// Reads through tools that are on still work.
	if r := callAs(t, w.srv, hostedAlice, "binja_find_strings", `{"query":"hello"}`); r.code != "" {
		t.Fatalf("find strings: %s", r.raw)
	}
}

// The Python example plugin, through the server, on a real view; its
// copy of the kit is the one warden plugin new writes.
func TestExamplePythonPluginThroughTheServer(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir, _ := filepath.Abs(filepath.Join("..", "..", "examples", "plugins", "binjapy"))
	kit, err := os.ReadFile(filepath.Join(dir, plugin.PythonKitFile))
	if err != nil || string(kit) != string(plugin.PythonKit) {
		t.Fatalf("the example's %s differs from plugin/kit/python's (copy it again)", plugin.PythonKitFile)
	}
	elf, err := os.ReadFile(gccHello(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Config{StateDir: t.TempDir(), Plugins: PluginsConfig{Dirs: []string{dir}, Grants: map[string][]string{"binjapy": {"view"}}}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := openControls(context.Background(), cfg, discardLogger(), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.close()
	w, err := wire(wireOptions{logger: discardLogger(), stateDir: cfg.StateDir, controls: ctl, cfg: cfg})
	if err != nil || len(w.pluginErrs) > 0 {
		t.Fatal(err, w.pluginErrs)
	}
	defer w.closePlugins()
	if r := callAs(t, w.srv, hostedAlice, "bininspect_open", `{"data_base64":"`+base64.StdEncoding.EncodeToString(elf)+`"}`); r.code != "" {
		t.Fatalf("open: %s", r.raw)
	}
	r := callAs(t, w.srv, hostedAlice, "binjapy_count_functions", `{}`)
	if n, _ := r.structured["functions"].(float64); r.code != "" || n < 1 {
		t.Fatalf("count functions: %s", r.raw)
	}
	r = callAs(t, w.srv, hostedAlice, "binjapy_find_strings", `{"query":"example.org"}`)
	if r.code != "" || !strings.Contains(r.raw, "https://example.org/update") {
		t.Fatalf("find strings: %s", r.raw)
	}
}
