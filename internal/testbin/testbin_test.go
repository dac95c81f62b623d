package testbin

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if os.Getenv("TESTBIN_HELPER") == "" {
		d, err := os.MkdirTemp("", "testbin-test-")
		if err != nil {
			panic(err)
		}
		os.Setenv(EnvDir, d)
		code := m.Run()
		os.RemoveAll(d)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// counting is a recipe whose tool appends a line to count each time it
// runs, then writes the output after a pause.
func counting(t *testing.T, count, pause string) Recipe {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	return Recipe{Name: "out.txt", Tool: "sh",
		Args:  []string{"-c", `echo run >> "$COUNT"; sleep "$PAUSE"; cat input.txt > "$0"`, Out},
		Env:   []string{"COUNT=" + count, "PAUSE=" + pause},
		Files: map[string]string{"input.txt": "hello"}}
}

func runs(t *testing.T, count string) int {
	t.Helper()
	b, err := os.ReadFile(count)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("run"))
}

func TestBuildsOnceAndKeepsTheName(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	r := counting(t, count, "0")
	p := Build(t, r)
	if filepath.Base(p) != "out.txt" {
		t.Errorf("path %s does not keep the name", p)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "hello" {
		t.Fatalf("read %q, %v", b, err)
	}
	if q := Build(t, r); q != p {
		t.Errorf("second build at %s, first at %s", q, p)
	}
	// A new process (no memo) finds the file in the cache.
	memo.Lock()
	memo.entries = map[string]*entry{}
	memo.Unlock()
	if q := Build(t, r); q != p {
		t.Errorf("after forgetting, built at %s", q)
	}
	if n := runs(t, count); n != 1 {
		t.Errorf("the tool ran %d times, want 1", n)
	}
	// Any change to what shapes the file makes another.
	r.Files = map[string]string{"input.txt": "bye"}
	if q := Build(t, r); q == p {
		t.Error("a changed source reused the old file")
	} else if b, _ := os.ReadFile(q); string(b) != "bye" {
		t.Errorf("rebuilt file holds %q", b)
	}
}

func TestInputsArePartOfTheKey(t *testing.T) {
	if _, err := exec.LookPath("cp"); err != nil {
		t.Skip("no cp")
	}
	in := filepath.Join(t.TempDir(), "in")
	os.WriteFile(in, []byte("one"), 0o644)
	a := Derive(t, "copy", in, "cp", In, Out)
	os.WriteFile(in, []byte("two"), 0o644)
	b := Derive(t, "copy", in, "cp", In, Out)
	if a == b {
		t.Fatal("a changed input reused the old copy")
	}
	if got, _ := os.ReadFile(b); string(got) != "two" {
		t.Errorf("copy holds %q", got)
	}
}

func TestFailureSaysWhy(t *testing.T) {
	r := Recipe{Name: "never", Tool: "sh", Args: []string{"-c", "echo no such header >&2; exit 3"}}
	_, err := TryBuild(t, r)
	if err == nil || !strings.Contains(err.Error(), "no such header") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("error %v", err)
	}
	if _, again := TryBuild(t, r); again == nil || again.Error() != err.Error() {
		t.Errorf("second try: %v", again)
	}
}

func TestMissingToolSkips(t *testing.T) {
	var skipped bool
	t.Run("inner", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Build(t, Recipe{Name: "x", Tool: "warden-no-such-tool", Args: []string{Out}})
	})
	if !skipped {
		t.Error("a missing tool did not skip")
	}
}

func TestNoTimeLeftSkipsWithoutBuilding(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	r := counting(t, count, "0")
	r.Name = "late.txt"
	key, err := r.key("v")
	if err != nil {
		t.Fatal(err)
	}
	_, err = build(time.Now().Add(-time.Second), "sh", r, key)
	var skip *skipError
	if !errors.As(err, &skip) {
		t.Fatalf("err %v, want a skip", err)
	}
	if runs(t, count) != 0 {
		t.Error("built although no time was left")
	}
}

// Test processes that want one file at once build it once.
func TestProcessesShareOneBuild(t *testing.T) {
	if os.Getenv("TESTBIN_HELPER") != "" {
		Build(t, counting(t, os.Getenv("TESTBIN_COUNT"), "0.3"))
		return
	}
	count := filepath.Join(t.TempDir(), "count")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	outs := make([][]byte, 4)
	for i := range errs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestProcessesShareOneBuild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "TESTBIN_HELPER=1", "TESTBIN_COUNT="+count)
			outs[i], errs[i] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	if n := runs(t, count); n != 1 {
		t.Errorf("4 processes ran the tool %d times, want 1", n)
	}
}

func ExampleGo() {
	// In a test:
	//	hello := testbin.Go(t, "hello-arm64", testbin.GoProgram{
	//		Files:  map[string]string{"main.go": "package main\n\nfunc main() { println(\"hi\") }\n"},
	//		GOOS:   "linux",
	//		GOARCH: "arm64",
	//	})
	fmt.Println("built once per toolchain, shared by every test process")
	// Output: built once per toolchain, shared by every test process
}

type deadlined struct {
	testing.TB
	at time.Time
}

func (d deadlined) Deadline() (time.Time, bool) { return d.at, !d.at.IsZero() }

// Builds stop with 30 % of the test binary's budget left for its other
// tests, and at least a minute.
func TestBuildsLeaveTimeForTheOtherTests(t *testing.T) {
	for _, c := range []struct{ budget, left time.Duration }{
		{10 * time.Minute, 3 * time.Minute},
		{2 * time.Minute, time.Minute},
		{time.Hour, 18 * time.Minute},
	} {
		got := deadline(deadlined{t, started.Add(c.budget)})
		if want := started.Add(c.budget - c.left); !got.Equal(want) {
			t.Errorf("budget %v: builds stop %v after the start, want %v", c.budget, got.Sub(started), want.Sub(started))
		}
	}
	if !deadline(deadlined{t, time.Time{}}).IsZero() {
		t.Error("no deadline, yet builds stop")
	}
}
