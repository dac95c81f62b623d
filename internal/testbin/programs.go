package testbin

import (
	"runtime"
	"strings"
	"testing"
)

// GoProgram is a Go main package to build.
type GoProgram struct {
	// Files are the package's files by name; "go.mod" defaults to
	// module example.com/fixture at go 1.22.
	Files map[string]string
	// GOOS and GOARCH name the target. Zero: the host's.
	GOOS, GOARCH string
	// Ldflags are the linker's flags ("-s -w" strips). Zero: none.
	Ldflags string
	// BuildMode is -buildmode ("pie"). Zero: the default.
	BuildMode string
}

// Go builds p with -trimpath and without cgo. A build for another system
// than the host's is skipped under -short: it compiles the runtime for
// that system (about 20 s of CPU on a cold build cache).
func Go(t testing.TB, name string, p GoProgram) string {
	t.Helper()
	return Build(t, p.recipe(t, name))
}

func (p GoProgram) recipe(t testing.TB, name string) Recipe {
	t.Helper()
	goos, goarch := p.GOOS, p.GOARCH
	if goos == "" {
		goos = runtime.GOOS
	}
	if goarch == "" {
		goarch = runtime.GOARCH
	}
	if testing.Short() && (goos != runtime.GOOS || goarch != runtime.GOARCH) {
		t.Skipf("cross-compiling for %s/%s is slow; skipped with -short", goos, goarch)
	}
	files := map[string]string{"go.mod": "module example.com/fixture\n\ngo 1.22\n"}
	for n, b := range p.Files {
		files[n] = b
	}
	args := []string{"build", "-trimpath", "-o", Out}
	if p.Ldflags != "" {
		args = append(args, "-ldflags="+p.Ldflags)
	}
	if p.BuildMode != "" {
		args = append(args, "-buildmode="+p.BuildMode)
	}
	env := []string{"GOOS=" + goos, "GOARCH=" + goarch, "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false",
		"GOWORK=off", "GOTOOLCHAIN=local"}
	if goarch == "arm" {
		env = append(env, "GOARM=7")
	}
	return Recipe{
		Name:  name,
		Tool:  "go",
		Args:  append(args, "."),
		Env:   env,
		Files: files,
		// One build per target at a time, across processes: the next
		// reuses the standard library the first put in the build cache.
		Lock: "go-" + goos + "-" + goarch,
	}
}

// CProgram is a C (or C++) program to compile with gcc.
type CProgram struct {
	// Compiler is the compiler's command. Zero: gcc.
	Compiler string
	// File is the source file's name. Zero: prog.c.
	File string
	// Source is the program.
	Source string
	// Flags are gcc's flags; the source file and -o come after them.
	Flags []string
}

// C compiles p with gcc (or p.Compiler).
func C(t testing.TB, name string, p CProgram) string {
	t.Helper()
	return Build(t, p.recipe(name))
}

// TryC is C that returns a failed compilation's error (for a fixture the
// machine may lack the libraries for) instead of failing the test.
func TryC(t testing.TB, name string, p CProgram) (string, error) {
	t.Helper()
	return TryBuild(t, p.recipe(name))
}

func (p CProgram) recipe(name string) Recipe {
	file := p.File
	if file == "" {
		file = "prog.c"
	}
	cc := p.Compiler
	if cc == "" {
		cc = "gcc"
	}
	args := append(append([]string{}, p.Flags...), "-o", Out, file)
	return Recipe{Name: name, Tool: cc, Args: args, Files: map[string]string{file: p.Source}}
}

// Derive makes a file from another with a host tool, such as a stripped
// copy: Derive(t, "hello.strip", hello, "strip", "-o", Out, In).
func Derive(t testing.TB, name, in, tool string, args ...string) string {
	t.Helper()
	if !strings.Contains(strings.Join(args, " "), Out) {
		t.Fatalf("testbin: Derive %s: the arguments do not name Out", name)
	}
	return Build(t, Recipe{Name: name, Tool: tool, Args: args, Inputs: []string{in}})
}
