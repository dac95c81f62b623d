package cli

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serveBanner runs warden serve with args and returns what it printed up
// to the client configurations.
func serveBanner(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0", "--log-level", "error", "--state-dir", t.TempDir()}, args...), strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	var out strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "Connect without a token") || strings.HasPrefix(sc.Text(), "Development token") {
			break
		}
		out.WriteString(sc.Text() + "\n")
	}
	cancel()
	go io.Copy(io.Discard, pr)
	<-done
	return out.String()
}

// With unsafe tools on, the start banner says so and names them; with
// them off it says nothing about them. warden stdio says it on stderr.
func TestBannerNamesUnsafeTools(t *testing.T) {
	w, err := wire(wireOptions{logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := w.reg.Tools()
	var unsafe []string
	for _, tl := range tools {
		if tl.Catalog.Unsafe {
			unsafe = append(unsafe, tl.Name)
		}
	}
	if len(unsafe) == 0 {
		t.Skip("this edition has no unsafe tool")
	}
	allow := filepath.Join(t.TempDir(), "warden.yaml")
	if err := os.WriteFile(allow, []byte("tools:\n  allow_unsafe: ["+unsafe[0]+"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string // "" means no line about unsafe tools
	}{
		{nil, ""},
		{[]string{"--unsafe"}, "Unsafe tools are on (--unsafe): " + strings.Join(unsafe, ", ") + ". They send traffic or change state.\n"},
		{[]string{"--config", allow}, "Unsafe tools are on (tools.allow_unsafe): " + unsafe[0] + ". They send traffic or change state.\n"},
	} {
		banner := serveBanner(t, c.args...)
		if !strings.Contains(banner, "Profile: ") {
			t.Fatalf("%v: no banner:\n%s", c.args, banner)
		}
		got := ""
		if i := strings.Index(banner, "Unsafe tools"); i >= 0 {
			got = banner[i:]
			got = got[:strings.IndexByte(got, '\n')+1]
		}
		if got != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.args, got, c.want)
		}
	}

	// warden stdio: stdout is the protocol's, so the log says it.
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr strings.Builder
	go func() {
		done <- Run(ctx, []string{"stdio", "--unsafe", "--log-level", "warn", "--state-dir", t.TempDir()}, pr, io.Discard, &stderr)
	}()
	pw.Close()
	<-done
	if !strings.Contains(stderr.String(), "Unsafe tools are on (--unsafe): "+strings.Join(unsafe, ", ")) {
		t.Errorf("warden stdio --unsafe logged:\n%s", stderr.String())
	}
}
