package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/binview/isolate"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/internal/testbin"
)

// workerEnv makes the test binary act as "warden analyze-worker". When
// its value is a directory, the worker leaves a file there first, so a
// test can tell that an analysis ran in a child process.
const workerEnv = "WARDEN_CLI_TEST_ANALYZE_WORKER"

func TestMain(m *testing.M) {
	if v := os.Getenv(workerEnv); v != "" {
		if fi, err := os.Stat(v); err == nil && fi.IsDir() {
			os.WriteFile(filepath.Join(v, fmt.Sprintf("child-%d", os.Getpid())), nil, 0o600)
		}
		os.Exit(Run(context.Background(), []string{analyzeWorkerName}, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func gccHello(t *testing.T) string {
	t.Helper()
	return testbin.C(t, "hello", testbin.CProgram{File: "hello.c", Flags: []string{"-O2"}, Source: `#include <stdio.h>
const char *url = "https://example.org/update";
int main(void) { puts(url); return 0; }
`})
}

func TestInspect(t *testing.T) {
	p := gccHello(t)
	out, errOut, code := run(t, "", "inspect", p)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"hello: ELF 64-bit x86-64", "Hardening", "relro", "libc.so.6", "puts", "https://example.org/update", "build id"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, filepath.Dir(p)) {
		t.Error("the report names the directory")
	}
	out, _, code = run(t, "", "inspect", "--json", p)
	if code != ExitOK {
		t.Fatalf("--json exit %d", code)
	}
	var rep inspectReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Name != "hello" || rep.Format != binview.FormatELF || !strings.HasPrefix(rep.Entry, "0x") || len(rep.Hashes.SHA256) != 64 ||
		len(rep.Libraries) != 1 || rep.Libraries[0].Name != "libc.so.6" || len(rep.Notable) == 0 || rep.Toolchain.Language != "c" {
		t.Errorf("JSON report %+v", rep)
	}
}

func TestInspectErrors(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("just some text, not a program"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"inspect", filepath.Join(dir, "missing")}, "no such file"},
		{[]string{"inspect", text}, "unsupported_format"},
		{[]string{"inspect", "--max-file-size", "4", text}, "over --max-file-size"},
		{[]string{"inspect", "--raw", "mips", text}, "unsupported_arch"},
		{[]string{"inspect", "--raw", "x86-64", "--base", "zz", text}, "--base"},
		{[]string{"inspect", dir}, "not a regular file"},
	}
	for _, c := range cases {
		_, errOut, code := run(t, "", c.args...)
		if code != ExitError || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, code, errOut, c.want)
		}
	}
	out, _, code := run(t, "", "inspect", "--raw", "arm64", "--base", "0x4000", text)
	if code != ExitOK || !strings.Contains(out, "RAW 64-bit arm64") || !strings.Contains(out, "0x4000") {
		t.Errorf("raw: %d\n%s", code, out)
	}
}

// The hidden worker subcommand, run as a child by isolate.Runner (this
// test binary re-executed as "warden analyze-worker"), returns the same
// analysis as the engine in process.
func TestAnalyzeWorker(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := &isolate.Runner{Path: exe, Env: []string{workerEnv + "=1"}, Limits: isolate.Limits{Memory: isolate.DefaultMemory + raceMemory}}
	p := gccHello(t)
	data, _ := os.ReadFile(p)
	got, err := r.Analyze(context.Background(), data, nil)
	if err != nil {
		t.Fatalf("%v (%v)", err, errorsUnwrap(err))
	}
	want, err := binview.Analyze(context.Background(), data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hashes != want.Hashes || len(got.Symbols) != len(want.Symbols) || got.Entry != want.Entry {
		t.Errorf("isolated analysis differs: %+v", got.Hashes)
	}
	_, err = r.Analyze(context.Background(), []byte("text"), nil)
	if errcode.CodeOf(err) != binview.CodeUnsupportedFormat {
		t.Errorf("text: %v", err)
	}
	// The subcommand is hidden from help.
	out, _, _ := run(t, "", "--help")
	if strings.Contains(out, analyzeWorkerName) {
		t.Error("analyze-worker shows in help")
	}
	if isolated, err := isolatedAnalyzer(isolate.Limits{}); err != nil || isolated.Args[0] != analyzeWorkerName {
		t.Errorf("isolatedAnalyzer: %+v, %v", isolated, err)
	}
}

func errorsUnwrap(err error) error {
	if e, ok := errcode.As(err); ok {
		return e.Cause
	}
	return nil
}
