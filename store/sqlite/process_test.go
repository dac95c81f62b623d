package sqlite

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

const helperEnv = "WARDEN_SQLITE_HELPER_DIR"

var (
	helperPolicy = limits.RatePolicy{Limit: 120, Window: time.Minute}
	helperNow    = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
)

// TestHelperTakeRate is not a test on its own: TestProcessesShareOneFile
// runs the test binary again with helperEnv set, and this function then
// takes 150 decisions on the shared file and prints how many were admitted.
func TestHelperTakeRate(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	s, err := Open(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Say so, and start when the parent closes stdin: all three processes
	// then contend for the file at once.
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	admitted := 0
	for range 150 {
		d, err := s.TakeRate(t.Context(), "transport:hot", helperNow, helperPolicy)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			admitted++
		}
	}
	fmt.Printf("admitted=%d\n", admitted)
}

// TestProcessesShareOneFile: three OS processes (this one and two
// children) deciding on one key in one state directory at the same instant
// admit exactly the limit between them, through SQLite's file locks.
func TestProcessesShareOneFile(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		t.Skip("in helper")
	}
	dir := t.TempDir()
	s, err := Open(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Start two helpers and wait until each has opened the store; then
	// release them and decide in this process too.
	type helper struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		lines  *bufio.Scanner
		stderr *bytes.Buffer
	}
	var helpers []helper
	for range 2 {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperTakeRate$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+dir)
		h := helper{cmd: cmd, stderr: &bytes.Buffer{}}
		cmd.Stderr = h.stderr
		if h.stdin, err = cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		h.lines = bufio.NewScanner(out)
		helpers = append(helpers, h)
	}
	// line reads h's output up to a line with prefix and returns the rest.
	line := func(h helper, prefix string) (string, bool) {
		for h.lines.Scan() {
			if rest, ok := strings.CutPrefix(h.lines.Text(), prefix); ok {
				return rest, true
			}
		}
		return "", false
	}
	for _, h := range helpers {
		if _, ok := line(h, "ready"); !ok {
			t.Fatalf("helper did not get ready: %v\n%s", h.cmd.Wait(), h.stderr)
		}
	}
	for _, h := range helpers {
		h.stdin.Close()
	}
	mine := 0
	for range 150 {
		d, err := s.TakeRate(t.Context(), "transport:hot", helperNow, helperPolicy)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			mine++
		}
	}
	total := mine
	var counts []int
	for _, h := range helpers {
		n, ok := line(h, "admitted=")
		if err := h.cmd.Wait(); err != nil || !ok {
			t.Fatalf("helper: %v, count %q\n%s", err, n, h.stderr)
		}
		v, _ := strconv.Atoi(n)
		total += v
		counts = append(counts, v)
	}
	t.Logf("admitted per process: this %d, children %v", mine, counts)
	if total != helperPolicy.Limit {
		t.Fatalf("three processes admitted %d in one instant, want exactly %d", total, helperPolicy.Limit)
	}
}
