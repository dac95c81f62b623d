package binview

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/warden-mcp/warden/internal/testbin"
)

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
// starts on line 9. It imports nothing: a cold build for another system
// compiles the runtime only (about 13 s of CPU, against 22 s with fmt and
// os), and every Go fixture of every package keeps to that, so the
// standard library compiled for a target serves them all.
const helloGo = `package main

// argc stands for a value the compiler cannot know, so that nothing
// below folds into a constant (a program without imports has no
// os.Args to read).
var argc = 1

//go:noinline
func main() {
	println("binview go fixture", argc, helper(3))
}

//go:noinline
func helper(n int) int { return n * 7 }
`

// gccFixture builds helloC with gcc and the given flags, once per
// toolchain (internal/testbin).
func gccFixture(t testing.TB, name string, flags ...string) string {
	t.Helper()
	return testbin.C(t, name, testbin.CProgram{File: "hello.c", Source: helloC, Flags: flags})
}

// goFixture builds helloGo for goos/goarch with extra ldflags, once per
// toolchain; cross builds skip under -short.
func goFixture(t testing.TB, name, goos, goarch string, ldflags string) string {
	t.Helper()
	return testbin.Go(t, name, helloProgram(goos, goarch, ldflags))
}

func helloProgram(goos, goarch, ldflags string) testbin.GoProgram {
	return testbin.GoProgram{
		Files:   map[string]string{"main.go": helloGo, "go.mod": "module example.com/hello\n\ngo 1.22\n"},
		GOOS:    goos,
		GOARCH:  goarch,
		Ldflags: ldflags,
	}
}

// strippedCompile is a stripped copy of the Go compiler: a 25 MB Go
// binary without a symbol table.
func strippedCompile(t testing.TB) string {
	t.Helper()
	src := filepath.Join(testGOROOT(), "pkg", "tool", runtime.GOOS+"_"+runtime.GOARCH, "compile")
	if _, err := os.Stat(src); err != nil {
		t.Skip("no compile tool")
	}
	return testbin.Derive(t, "compile.stripped", src, "strip", "-o", testbin.Out, testbin.In)
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
