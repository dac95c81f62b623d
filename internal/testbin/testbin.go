// Package testbin builds the programs tests measure against: Go programs
// (cross-compiled for other systems too), C programs compiled by gcc, and
// copies made from them by binutils (strip, objcopy).
//
// Each file is built once per toolchain into a cache that every test
// process shares, so the first `go test ./...` on a machine builds it and
// later runs, the race-detector run and the other packages that need the
// same file reuse it. The cache lives in $WARDEN_TEST_FIXTURES when set,
// else in warden-test-fixtures/<Go version> under os.UserCacheDir (on
// Linux ~/.cache/warden-test-fixtures/go1.26.8); deleting it is always
// safe. An entry is keyed by everything that shapes the file: the tool
// and its version, the arguments, the environment the recipe sets, the
// source files and the contents of the input files.
//
// Builds are serialised across processes by file locks: two test binaries
// that need the same file build it once, and Go builds for one target
// (GOOS/GOARCH) run one at a time, so the second reuses the standard
// library the first compiled into Go's build cache instead of compiling it
// again beside it. A file is built in a temporary directory and renamed
// into place, so no test ever reads half a file.
//
// A missing tool skips the test. A build that cannot finish well before
// the test binary's deadline (go test -timeout; the last 30 % of it is
// kept for the other tests) also skips it, saying so, rather than letting
// the whole package time out: what was compiled stays in Go's build cache
// and the next run finishes it.
package testbin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/internal/repotest"
)

// In and Out stand, in a recipe's arguments, for the path of its (first)
// input file and of the file it makes.
const (
	In  = "{in}"
	Out = "{out}"
)

// EnvDir names the environment variable that moves the cache.
const EnvDir = "WARDEN_TEST_FIXTURES"

// Recipe says how to make one file.
type Recipe struct {
	// Name is the file's name (a plain name, no directory). The file
	// keeps it, so a test that prints a file's base name sees it.
	Name string
	// Tool is the program that makes the file, looked up on PATH
	// ("go", "gcc", "strip", "objcopy"). A missing tool skips the test.
	Tool string
	// Args are the tool's arguments; In and Out inside them are replaced
	// by the input's and the output's paths.
	Args []string
	// Env is added to the tool's environment (after the process's own,
	// so it wins).
	Env []string
	// Files are written into the build directory, the tool's working
	// directory, before it runs (sources, go.mod).
	Files map[string]string
	// Inputs are files the tool reads; their contents are part of the
	// cache key. In names the first.
	Inputs []string
	// Lock names the lock held while the file is built. Recipes that
	// share a lock build one at a time across every test process. Zero:
	// a lock of the recipe's own.
	Lock string
}

// Build returns the path of the file r makes, building it on first use.
// It skips the test when r's tool is not installed or the build cannot
// finish before the test's deadline, and fails it when the build fails.
func Build(t testing.TB, r Recipe) string {
	t.Helper()
	p, err := TryBuild(t, r)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TryBuild is Build that returns the build's error instead of failing the
// test, for fixtures a machine may be unable to make (a 32-bit libc, say)
// whose tests then skip. It still skips when the tool is missing or time
// runs out.
func TryBuild(t testing.TB, r Recipe) (string, error) {
	t.Helper()
	if r.Name == "" || r.Name != filepath.Base(r.Name) || strings.HasPrefix(r.Name, ".") {
		t.Fatalf("testbin: bad file name %q", r.Name)
	}
	tool, version, err := toolVersion(r.Tool)
	if err != nil {
		t.Skipf("%s: %v", r.Tool, err)
	}
	key, err := r.key(version)
	if err != nil {
		return "", err
	}
	memo.Lock()
	e, ok := memo.entries[key]
	if !ok {
		e = &entry{}
		memo.entries[key] = e
	}
	memo.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.path != "" || e.err != nil {
		return e.path, e.err
	}
	path, err := build(deadline(t), tool, r, key)
	var skip *skipError
	if errors.As(err, &skip) { // not remembered: a later test may have more time
		uncacheable(t)
		t.Skip(err)
	}
	e.path, e.err = path, err
	return path, err
}

// memo keeps what this process built or failed to build.
var memo = struct {
	sync.Mutex
	entries map[string]*entry
}{entries: map[string]*entry{}}

type entry struct {
	mu   sync.Mutex
	path string
	err  error
}

// skipError is an error that skips the test rather than failing it.
type skipError struct{ msg string }

func (e *skipError) Error() string { return e.msg }

// started is about when the test binary started.
var started = time.Now()

// deadline is when a build must stop: the test binary's deadline less
// the time its other tests need, taken as 30 % of the binary's whole
// budget (3 minutes of go test's default 10) and at least a minute; zero
// without a deadline.
func deadline(t testing.TB) time.Time {
	d, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return time.Time{}
	}
	at, ok := d.Deadline()
	if !ok {
		return time.Time{}
	}
	return at.Add(-max(time.Minute, at.Sub(started)*3/10))
}

// uncacheable keeps go test from caching this test binary's result once a
// build was skipped for want of time: the next go test ./... must run the
// skipped tests, not replay this run's skips. The go command does not
// cache a run that read a file of the module modified less than two
// seconds before the run ended (files outside the module it does not
// check); this one, in the module's git-ignored .cache directory, is
// rewritten twice a second until the process exits.
func uncacheable(t testing.TB) {
	uncacheableOnce.Do(func() {
		dir := filepath.Join(repotest.Root(t), ".cache")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return
		}
		p := filepath.Join(dir, "testbin-incomplete-run")
		touch := func() { _ = os.WriteFile(p, []byte(time.Now().Format(time.RFC3339Nano)+"\n"), 0o644) }
		touch()
		go func() {
			for {
				time.Sleep(500 * time.Millisecond)
				touch()
			}
		}()
	})
}

var uncacheableOnce sync.Once

// Dir is the cache directory of this toolchain, made on first use.
func Dir() (string, error) {
	dirOnce.Do(func() {
		root := os.Getenv(EnvDir)
		if root == "" {
			base, err := os.UserCacheDir()
			if err != nil {
				base = filepath.Join(os.TempDir(), fmt.Sprintf("warden-%d", os.Getuid()))
			}
			root = filepath.Join(base, "warden-test-fixtures")
		}
		dir = filepath.Join(root, runtime.Version())
		if dirErr = os.MkdirAll(dir, 0o755); dirErr == nil {
			removeStaleBuilds(dir)
		}
	})
	return dir, dirErr
}

var (
	dirOnce sync.Once
	dir     string
	dirErr  error
)

// removeStaleBuilds removes the build directories a killed test process
// left behind (older than a day: none can still be in use).
func removeStaleBuilds(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".build-") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// build makes r's file under its lock unless another process already has.
func build(until time.Time, tool string, r Recipe, key string) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	final := filepath.Join(dir, key[:24], r.Name)
	if _, err := os.Stat(final); err == nil {
		return final, nil
	}
	lockName := r.Lock
	if lockName == "" {
		lockName = key[:24]
	}
	if err := os.MkdirAll(filepath.Join(dir, ".locks"), 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(dir, ".locks", lockName))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(final); err == nil { // built while we waited
		return final, nil
	}
	work, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	src, outDir := filepath.Join(work, "src"), filepath.Join(work, "out")
	for _, d := range []string{src, outDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return "", err
		}
	}
	for name, body := range r.Files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	out := filepath.Join(outDir, r.Name)
	in := ""
	if len(r.Inputs) > 0 {
		in = r.Inputs[0]
	}
	args := make([]string, len(r.Args))
	for i, a := range r.Args {
		args[i] = strings.ReplaceAll(strings.ReplaceAll(a, Out, out), In, in)
	}
	ctx := context.Background()
	if !until.IsZero() {
		if time.Until(until) <= 0 {
			return "", &skipError{fmt.Sprintf("no time left before the test deadline to build %s; the next run builds it", r.Name)}
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, until)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), r.Env...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", &skipError{fmt.Sprintf("building %s did not finish before the test deadline (%v spent); "+
				"what was compiled stays in Go's build cache and the next run finishes it", r.Name, time.Since(start).Round(time.Second))}
		}
		msg := log.String()
		if len(msg) > 4000 {
			msg = msg[:4000] + "…"
		}
		return "", fmt.Errorf("building %s: %s %s: %v\n%s", r.Name, r.Tool, strings.Join(args, " "), err, msg)
	}
	if _, err := os.Stat(out); err != nil {
		return "", fmt.Errorf("building %s: %s made no file", r.Name, r.Tool)
	}
	if err := os.Rename(outDir, filepath.Dir(final)); err != nil {
		if _, serr := os.Stat(final); serr == nil { // another process won the race
			return final, nil
		}
		return "", err
	}
	return final, nil
}

// key hashes everything that shapes r's file.
func (r Recipe) key(version string) (string, error) {
	h := sha256.New()
	field := func(s string) { fmt.Fprintf(h, "%d:%s", len(s), s) }
	field("testbin/1")
	field(r.Name)
	field(r.Tool)
	field(version)
	for _, list := range [][]string{r.Args, r.Env, keyEnv()} {
		field(fmt.Sprint(len(list)))
		for _, a := range list {
			field(a)
		}
	}
	names := make([]string, 0, len(r.Files))
	for n := range r.Files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		field(n)
		field(r.Files[n])
	}
	for _, p := range r.Inputs {
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		ih := sha256.New()
		_, err = io.Copy(ih, f)
		f.Close()
		if err != nil {
			return "", err
		}
		field(hex.EncodeToString(ih.Sum(nil)))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// keyEnv is the inherited environment that changes what the tools make.
func keyEnv() []string {
	var env []string
	for _, name := range []string{"GOEXPERIMENT", "GOAMD64", "GO386", "GOARM64", "GORISCV64", "GOPPC64", "CC", "CFLAGS", "LDFLAGS"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// toolVersion finds a tool and names its version, once per process.
func toolVersion(name string) (path, version string, err error) {
	v, _ := tools.LoadOrStore(name, sync.OnceValues(func() (toolInfo, error) {
		p, err := exec.LookPath(name)
		if err != nil {
			return toolInfo{}, errors.New("not installed")
		}
		args := []string{"--version"}
		if name == "go" {
			args = []string{"env", "GOVERSION", "GOROOT"}
		}
		out, err := exec.Command(p, args...).Output()
		if err != nil {
			if name == "go" {
				return toolInfo{}, fmt.Errorf("go env: %v", err)
			}
			return toolInfo{path: p, version: p}, nil // a tool without --version (sh)
		}
		first, _, _ := strings.Cut(string(out), "\n")
		if name == "go" {
			first = strings.Join(strings.Fields(string(out)), " ")
		}
		return toolInfo{path: p, version: first}, nil
	}))
	info, err := v.(func() (toolInfo, error))()
	return info.path, info.version, err
}

type toolInfo struct{ path, version string }

var tools sync.Map // name → func() (toolInfo, error)
