package binview

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/warden-mcp/warden/binview/internal/bintest"
)

// Test fixtures are built at test time, once per test binary, in a
// temporary directory that TestMain removes.
var fixtureDir string

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "binview-fixtures-")
	if err != nil {
		panic(err)
	}
	fixtureDir = d
	code := m.Run()
	os.RemoveAll(d)
	bintest.Cleanup()
	os.Exit(code)
}

// helloC is the C program the ELF fixtures are built from: a few
// imports (printf, strcpy, malloc), a global, a string and an exported
// function.
const helloC = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int counter = 42;
const char banner[] = "binview fixture: http://example.com/payload";

__attribute__((noinline)) int add_numbers(int a, int b) { return a + b + counter; }

int main(int argc, char **argv) {
	char buf[64];
	strcpy(buf, argc > 1 ? argv[1] : "none");
	char *p = malloc(32);
	snprintf(p, 32, "%s", buf);
	printf("%s %d %s\n", banner, add_numbers(argc, 2), p);
	free(p);
	return 0;
}
`

// helloGo is the Go program the Go fixtures are built from. main.main
// starts on line 9.
const helloGo = `package main

import (
	"fmt"
	"os"
)

//go:noinline
func main() {
	fmt.Println("binview go fixture", len(os.Args), helper(3))
}

//go:noinline
func helper(n int) int { return n * 7 }
`

var fixtures struct {
	mu    sync.Mutex
	built map[string]string
	errs  map[string]error
}

// fixture builds (once) and returns the path of the fixture called
// name with the given build function, or skips the test when the
// build's tool is missing.
func fixture(t testing.TB, name string, build func(dir, out string) error) string {
	t.Helper()
	fixtures.mu.Lock()
	defer fixtures.mu.Unlock()
	if fixtures.built == nil {
		fixtures.built, fixtures.errs = map[string]string{}, map[string]error{}
	}
	if p, ok := fixtures.built[name]; ok {
		return p
	}
	if err, ok := fixtures.errs[name]; ok {
		t.Skipf("fixture %s: %v", name, err)
	}
	dir := filepath.Join(fixtureDir, name+".d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(fixtureDir, name)
	if err := build(dir, out); err != nil {
		fixtures.errs[name] = err
		t.Skipf("fixture %s: %v", name, err)
	}
	fixtures.built[name] = out
	return out
}

func run(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return &buildError{cmd: name + " " + strings.Join(args, " "), out: string(out), err: err}
	}
	return nil
}

type buildError struct {
	cmd, out string
	err      error
}

func (e *buildError) Error() string { return e.cmd + ": " + e.err.Error() + "\n" + e.out }

// gccFixture builds helloC with gcc and the given flags.
func gccFixture(t testing.TB, name string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	return fixture(t, name, func(dir, out string) error {
		src := filepath.Join(dir, "hello.c")
		if err := os.WriteFile(src, []byte(helloC), 0o644); err != nil {
			return err
		}
		return run(dir, nil, "gcc", append(append([]string{}, flags...), "-o", out, src)...)
	})
}

// goFixture builds helloGo for goos/goarch with extra ldflags.
func goFixture(t testing.TB, name, goos, goarch string, ldflags string) string {
	t.Helper()
	if testing.Short() && (goos != runtime.GOOS || goarch != runtime.GOARCH) {
		t.Skip("cross builds skipped in -short mode")
	}
	return fixture(t, name, func(dir, out string) error {
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(helloGo), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/hello\n\ngo 1.22\n"), 0o644); err != nil {
			return err
		}
		gobin := filepath.Join(testGOROOT(), "bin", "go")
		args := []string{"build", "-trimpath", "-o", out}
		if ldflags != "" {
			args = append(args, "-ldflags="+ldflags)
		}
		return run(dir, []string{"GOOS=" + goos, "GOARCH=" + goarch, "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false"}, gobin, append(args, ".")...)
	})
}

// strippedCompile is a stripped copy of the Go compiler: a 25 MB Go
// binary without a symbol table.
func strippedCompile(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("strip"); err != nil {
		t.Skip("strip not installed")
	}
	src := filepath.Join(testGOROOT(), "pkg", "tool", runtime.GOOS+"_"+runtime.GOARCH, "compile")
	if _, err := os.Stat(src); err != nil {
		t.Skip("no compile tool")
	}
	return fixture(t, "compile.stripped", func(dir, out string) error {
		return run(dir, nil, "strip", "-o", out, src)
	})
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// openFile opens a fixture in process with generous limits.
func openFile(t testing.TB, path string, opts *Options) *View {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if opts.MaxFileSize == 0 {
		opts.MaxFileSize = LocalMaxFileSize
	}
	v, err := Open(context.Background(), path, readFile(t, path), opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", filepath.Base(path), err)
	}
	return v
}

// stdlibTestdata returns a file from the standard library's debug/*
// testdata, or skips.
func stdlibTestdata(t testing.TB, pkg, name string) string {
	t.Helper()
	p := filepath.Join(testGOROOT(), "src", "debug", pkg, "testdata", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no %s testdata %s", pkg, name)
	}
	return p
}

func check(t testing.TB, v *View, name string) Check {
	t.Helper()
	for _, c := range v.Hardening() {
		if c.Name == name {
			return c
		}
	}
	return Check{}
}

func osWriteFile(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }
