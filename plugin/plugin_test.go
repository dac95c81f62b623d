package plugin

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/tool"
)

// buildWasm compiles the Go plugin in src (a package of this module) to
// dir/module once per test binary.
var built sync.Map // src -> *buildResult

type buildResult struct {
	once sync.Once
	wasm []byte
	err  error
	out  string
}

func buildWasm(t testing.TB, src string) []byte {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH: cannot build a WebAssembly plugin")
	}
	v, _ := built.LoadOrStore(src, &buildResult{})
	r := v.(*buildResult)
	r.once.Do(func() {
		out := filepath.Join(os.TempDir(), "warden-plugin-test-"+filepath.Base(src)+"-"+time.Now().Format("150405.000000")+".wasm")
		defer os.Remove(out)
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, ".")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		b, err := cmd.CombinedOutput()
		r.out, r.err = string(b), err
		if err == nil {
			r.wasm, r.err = os.ReadFile(out)
		}
	})
	if r.err != nil {
		t.Fatalf("building %s: %v\n%s", src, r.err, r.out)
	}
	return r.wasm
}

func ptr(b bool) *bool { return &b }

// hostileDir writes the hostile plugin (module and manifest) to a
// temporary directory, its schemas asked of the module.
func hostileDir(t testing.TB) string {
	t.Helper()
	wasm := buildWasm(t, "testdata/hostile")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hostile.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	desc, err := describe(context.Background(), filepath.Join(dir, "hostile.wasm"))
	if err != nil {
		t.Fatalf("describe: %v", err)
	}
	m := Manifest{Name: "hostile", Version: "1.0.0", Runtime: RuntimeWasm, Module: "hostile.wasm"}
	for _, d := range desc {
		m.Tools = append(m.Tools, ToolSpec{
			Name: d.Name, Description: "Misbehaves: " + d.Name, InputSchema: d.Input, OutputSchema: d.Output,
			Annotations: AnnotationSpec{ReadOnly: ptr(true), Destructive: ptr(false), Idempotent: ptr(true), OpenWorld: ptr(false)},
			Category:    "test", Trust: "auto", Scope: "global", Capabilities: []string{CapLog},
		})
	}
	writeManifest(t, dir, &m)
	return dir
}

func writeManifest(t testing.TB, dir string, m *Manifest) {
	t.Helper()
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func loadHostile(t testing.TB, l Limits) *Plugin {
	t.Helper()
	p, err := Load(context.Background(), hostileDir(t), &Options{Limits: l})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

func toolOf(t testing.TB, p *Plugin, name string) *tool.Tool {
	t.Helper()
	for _, tt := range p.Tools() {
		if tt.Name == name {
			return tt
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// call runs one call of the plugin's tool name and returns its result.
func call(t testing.TB, p *Plugin, name, args string) *tool.Result {
	t.Helper()
	out := tool.Run(context.Background(), toolOf(t, p, name), tool.CallEnv{Session: "s1"}, json.RawMessage(args))
	if out.Result == nil {
		t.Fatalf("%s: no result (interrupt %v)", name, out.Interrupt)
	}
	return out.Result
}

func resultText(r *tool.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func TestEchoAndSchemas(t *testing.T) {
	p := loadHostile(t, Limits{})
	echo := toolOf(t, p, "hostile_echo")
	if !strings.Contains(string(echo.InputSchema()), `"text"`) {
		t.Fatalf("input schema not derived from the argument struct: %s", echo.InputSchema())
	}
	r := call(t, p, "hostile_echo", `{"text":"hello"}`)
	if r.IsError || !strings.Contains(string(r.Structured), `"text":"hello"`) {
		t.Fatalf("echo: %+v %s", r, r.Structured)
	}
	// Arguments are checked before the plugin runs.
	r = call(t, p, "hostile_echo", `{"text":1}`)
	if !r.IsError || r.ErrorCode != tool.CodeInvalidParams {
		t.Fatalf("bad argument: want invalid_params, got %+v", r)
	}
	if !strings.Contains(string(echo.Listing()), `"dev.warden/plugin":{`) {
		t.Fatalf("listing does not name the plugin: %s", echo.Listing())
	}
}

// TestInstancesArePerCaller: a plugin's globals carry over between one
// caller's calls (the instance is reused) but never into another's.
func TestInstancesArePerCaller(t *testing.T) {
	p := loadHostile(t, Limits{})
	run := func(key string) string {
		c := tool.NewCall(toolOf(t, p, "hostile_counter"), json.RawMessage(`{}`), tool.CallEnv{})
		c.SetCaller(tool.Caller{Key: key})
		out := tool.Invoke(context.Background(), c)
		var r struct{ Text string }
		_ = json.Unmarshal(out.Result.Structured, &r)
		return r.Text
	}
	if a, b := run("alice"), run("alice"); a != "x" || b != "xx" {
		t.Fatalf("alice's calls: %q %q", a, b)
	}
	if c := run("bob"); c != "x" {
		t.Fatalf("bob saw alice's state: %q", c)
	}
}

func TestHostileCallsFailAlone(t *testing.T) {
	p := loadHostile(t, Limits{Timeout: 8 * time.Second, MemoryBytes: 64 << 20, OutputBytes: 1 << 20})
	cases := []struct {
		tool string
		code string
		msg  string
	}{
		{"hostile_alloc", "", ""}, // memory ceiling or a Go out-of-memory exit: either ends the call alone
		{"hostile_exit", tool.CodeInternal, "this call only"},
		{"hostile_oob", tool.CodeInternal, "this call only"},
		{"hostile_flood", CodeOutputTooBig, "output cap"},
		{"hostile_bad_pointer", CodePluginError, "outside the module's memory"},
		{"hostile_short_buffer", CodePluginError, "shorter than the reply"},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			start := time.Now()
			r := call(t, p, c.tool, `{}`)
			if !r.IsError {
				t.Fatalf("want an error, got %s", r.Structured)
			}
			if c.code != "" && r.ErrorCode != c.code {
				t.Fatalf("code %q, want %q (%s)", r.ErrorCode, c.code, resultText(r))
			}
			if c.code == "" && r.ErrorCode != CodeMemory && r.ErrorCode != tool.CodeInternal {
				t.Fatalf("code %q (%s)", r.ErrorCode, resultText(r))
			}
			if !strings.Contains(resultText(r), c.msg) {
				t.Fatalf("message %q lacks %q", resultText(r), c.msg)
			}
			if strings.Contains(resultText(r), "wasm stack") || strings.Contains(resultText(r), "/") && c.code != CodeTimeout {
				t.Fatalf("message leaks internals: %q", resultText(r))
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("took %v", time.Since(start))
			}
			// The plugin keeps serving.
			if r := call(t, p, "hostile_echo", `{"text":"still here"}`); r.IsError {
				t.Fatalf("echo after %s: %s", c.tool, resultText(r))
			}
		})
	}
}

func TestLoopTimesOut(t *testing.T) {
	p := loadHostile(t, Limits{Timeout: 5 * time.Second})
	start := time.Now()
	r := call(t, p, "hostile_loop", `{}`)
	if r.ErrorCode != CodeTimeout || !strings.Contains(resultText(r), "plugin_timeout") {
		t.Fatalf("a loop: %s", resultText(r))
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("stopped after %v", d)
	}
	if r := call(t, p, "hostile_echo", `{"text":"x"}`); r.IsError {
		t.Fatalf("echo after a loop: %s", resultText(r))
	}
}

func TestHostileHostCallsGetErrors(t *testing.T) {
	p := loadHostile(t, Limits{})
	r := call(t, p, "hostile_bad_request", `{}`)
	txt := string(r.Structured)
	for _, want := range []string{CodeBadHostCall, "unknown host function", CodeNotGranted} {
		if !strings.Contains(txt, want) {
			t.Errorf("bad requests: %s lacks %q", txt, want)
		}
	}
	r = call(t, p, "hostile_out_of_turn", `{}`)
	if r.IsError || !strings.Contains(string(r.Structured), "refused") {
		t.Fatalf("out of turn: %s %s", resultText(r), r.Structured)
	}
	r = call(t, p, "hostile_init_reply", `{}`)
	if !strings.Contains(string(r.Structured), CodeHostOutOfTurn) {
		t.Fatalf("a host call at start-up: %s", r.Structured)
	}
}

func TestCancelledCallStops(t *testing.T) {
	p := loadHostile(t, Limits{Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	out := tool.Run(ctx, toolOf(t, p, "hostile_loop"), tool.CallEnv{}, json.RawMessage(`{}`))
	if out.Result == nil || !out.Result.IsError {
		t.Fatalf("a cancelled loop: %+v", out)
	}
}

// A call whose context ends as it finishes never leaves a closed
// instance in the pool for the caller's next call.
func TestCancelledInstanceNotReused(t *testing.T) {
	p := loadHostile(t, Limits{})
	for i := 0; i < 20; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		tool.Run(ctx, toolOf(t, p, "hostile_echo"), tool.CallEnv{}, json.RawMessage(`{"text":"x"}`))
		if r := call(t, p, "hostile_echo", `{"text":"y"}`); r.IsError {
			t.Fatalf("round %d: the next call failed: %s", i, resultText(r))
		}
	}
}
