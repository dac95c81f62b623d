package plugin

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pythonPlugin writes the scaffold's Python plugin, with extra tools in
// extra (Python source appended before the run line), and loads it.
func pythonPlugin(t *testing.T, extra string, tools []ToolSpec, l Limits) *Plugin {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the Python host cannot be tested")
	}
	dir := filepath.Join(t.TempDir(), "py")
	if err := New(dir, "py", ScaffoldOptions{Lang: "python"}); err != nil {
		t.Fatal(err)
	}
	if extra != "" {
		src, _ := os.ReadFile(filepath.Join(dir, "plugin.py"))
		s := strings.Replace(string(src), "\nif __name__ == \"__main__\":", extra+"\n\nif __name__ == \"__main__\":", 1)
		if err := os.WriteFile(filepath.Join(dir, "plugin.py"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
		m, rule := parseManifest(raw, nil)
		if rule != "" {
			t.Fatal(rule)
		}
		m.Tools = append(m.Tools, tools...)
		writeManifest(t, dir, m)
	}
	p, err := Load(context.Background(), dir, &Options{Limits: l, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

func TestPythonEcho(t *testing.T) {
	p := pythonPlugin(t, "", nil, Limits{})
	r := call(t, p, "py_echo", `{"text":"hello"}`)
	if r.IsError || !strings.Contains(string(r.Structured), `"text":"hello"`) {
		t.Fatalf("echo: %s %s", resultText(r), r.Structured)
	}
	if info, ok := InfoOf(toolOf(t, p, "py_echo")); !ok || !info.Trusted || info.Sandboxed {
		t.Fatalf("a Python plugin is listed as trusted, not sandboxed: %+v", info)
	}
}

const hostilePython = `
import os, socket


@dataclass
class NoArgs:
    pass


@wp.tool("py_loop")
def loop(call: wp.Call, args: NoArgs) -> EchoResult:
    while True:
        pass


@wp.tool("py_alloc")
def alloc(call: wp.Call, args: NoArgs) -> EchoResult:
    keep = []
    while True:
        keep.append(bytearray(16 << 20))


@wp.tool("py_env")
def env(call: wp.Call, args: NoArgs) -> EchoResult:
    return EchoResult(text=",".join(sorted(os.environ)))


@wp.tool("py_flood")
def flood(call: wp.Call, args: NoArgs) -> EchoResult:
    return EchoResult(text="A" * (4 << 20))


@wp.tool("py_noise")
def noise(call: wp.Call, args: NoArgs) -> EchoResult:
    import sys
    sys.__stdout__.write("not a protocol line\n")
    sys.__stdout__.flush()
    return EchoResult(text="x")


@wp.tool("py_ungranted")
def ungranted(call: wp.Call, args: NoArgs) -> EchoResult:
    call.view("functions")
    return EchoResult(text="read")
`

func TestPythonHostileCallsFailAlone(t *testing.T) {
	var specs []ToolSpec
	for _, n := range []string{"py_loop", "py_alloc", "py_env", "py_flood", "py_noise", "py_ungranted"} {
		specs = append(specs, ToolSpec{Name: n, Description: n, InputSchema: []byte(`{"type":"object"}`),
			Annotations: AnnotationSpec{ReadOnly: ptr(true), Destructive: ptr(false), Idempotent: ptr(true), OpenWorld: ptr(false)},
			Category:    "test", Trust: "auto", Scope: "global"})
	}
	p := pythonPlugin(t, hostilePython, specs, Limits{Timeout: 5 * time.Second, MemoryBytes: 256 << 20})
	for _, c := range []struct{ tool, code string }{
		{"py_loop", CodeTimeout},
		{"py_alloc", ""},
		{"py_flood", CodeOutputTooBig},
		{"py_noise", CodePluginError},
		{"py_ungranted", CodeNotGranted},
	} {
		r := call(t, p, c.tool, `{}`)
		if !r.IsError || (c.code != "" && r.ErrorCode != c.code) {
			t.Errorf("%s: %s %s", c.tool, resultText(r), r.Structured)
		}
		if r := call(t, p, "py_echo", `{"text":"ok"}`); r.IsError {
			t.Fatalf("echo after %s: %s", c.tool, resultText(r))
		}
	}
	// No environment is inherited.
	r := call(t, p, "py_env", `{}`)
	if strings.Contains(string(r.Structured), "PATH") || strings.Contains(string(r.Structured), "HOME") {
		t.Errorf("the child inherited an environment: %s", r.Structured)
	}
}

// A Python plugin carries its own copy of the kit (the scaffold writes it
// beside the plugin); the example's copy is the kit itself, so the two
// never drift apart.
func TestExamplePythonPluginCarriesTheKit(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "examples", "plugins", "binjapy", PythonKitFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, PythonKit) {
		t.Errorf("examples/plugins/binjapy/%s differs from plugin/kit/python/%s: copy the kit again", PythonKitFile, PythonKitFile)
	}
}
