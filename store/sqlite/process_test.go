package sqlite

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

const (
	helperEnv      = "WARDEN_SQLITE_HELPER_DIR"
	helperStartEnv = "WARDEN_SQLITE_HELPER_START" // unix nanoseconds to start at
)

// waitUntil sleeps until the shared start instant, so all processes
// contend for the file at once.
func waitUntil(unixNano string) {
	n, _ := strconv.ParseInt(unixNano, 10, 64)
	time.Sleep(time.Until(time.Unix(0, n)))
}

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
	waitUntil(os.Getenv(helperStartEnv))
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
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	var counts []int
	start := strconv.FormatInt(time.Now().Add(2*time.Second).UnixNano(), 10) // time to exec and open
	for range 2 {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperTakeRate$", "-test.count=1")
			cmd.Env = append(os.Environ(), helperEnv+"="+dir, helperStartEnv+"="+start)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("helper: %v\n%s", err, out)
				return
			}
			for _, line := range strings.Split(string(out), "\n") {
				if n, ok := strings.CutPrefix(line, "admitted="); ok {
					v, _ := strconv.Atoi(n)
					mu.Lock()
					total += v
					counts = append(counts, v)
					mu.Unlock()
					return
				}
			}
			t.Errorf("helper printed no count:\n%s", out)
		})
	}
	waitUntil(start)
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
	wg.Wait()
	total += mine
	t.Logf("admitted per process: this %d, children %v", mine, counts)
	if total != helperPolicy.Limit {
		t.Fatalf("three processes admitted %d in one instant, want exactly %d", total, helperPolicy.Limit)
	}
}
