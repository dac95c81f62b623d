package isolate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/errcode"
)

// The test binary re-executes itself as the child: childEnv selects
// what the child does.
const childEnv = "BINVIEW_ISOLATE_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "serve":
		out := os.Stdout
		os.Stdout = os.Stderr
		if err := Serve(context.Background(), os.Stdin, out); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	case "hog":
		// Allocate and touch memory until the address-space limit stops
		// the process.
		readRequest()
		for {
			b := make([]byte, 16<<20)
			for i := range b {
				b[i] = 1
			}
			hogged = append(hogged, b) // reachable, so the collector cannot give it back
		}
	case "spin":
		readRequest()
		n := 0
		for {
			n++
		}
	case "block":
		readRequest()
		select {}
	case "garbage":
		readRequest()
		os.Stdout.WriteString("this is not a snapshot")
		os.Exit(0)
	case "flood":
		readRequest()
		chunk := bytes.Repeat([]byte("x"), 1<<16)
		for {
			if _, err := os.Stdout.Write(chunk); err != nil {
				os.Exit(4)
			}
		}
	case "frames":
		// A code job's child that never stops reporting progress.
		readRequest()
		for {
			if err := writeFrame(os.Stdout, frameProgress, frameHeader{}, nil); err != nil {
				os.Exit(4)
			}
		}
	case "crash":
		readRequest()
		os.Stderr.WriteString("something went wrong\n")
		os.Exit(2)
	case "code":
		readRequest()
		os.Stdout.WriteString(errorMagic + "made_up_code\n")
		os.Exit(0)
	}
	os.Exit(5)
}

// readRequest consumes the request the way Serve does.
func readRequest() {
	if _, err := readHeader(os.Stdin); err != nil {
		os.Exit(6)
	}
}

func runner(t testing.TB, mode string, l Limits) *Runner {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("limits are tested on Linux")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var tail []byte
	t.Cleanup(func() {
		if t.Failed() && len(tail) > 0 {
			t.Logf("child stderr: %s", tail)
		}
	})
	return &Runner{Path: exe, Env: []string{childEnv + "=" + mode}, Limits: l, Stderr: func(b []byte) { tail = append([]byte(nil), b...) }}
}

func libc(t testing.TB) []byte {
	b, err := os.ReadFile("/lib/x86_64-linux-gnu/libc.so.6")
	if err != nil {
		t.Skip("no libc")
	}
	return b
}

// The child's analysis equals the in-process one.
func TestServeMatchesInProcess(t *testing.T) {
	data := libc(t)
	got, err := runner(t, "serve", Limits{Memory: 128<<20 + raceMemory}).Analyze(context.Background(), data, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := binview.Analyze(context.Background(), data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("isolated analysis differs (-in process +child):\n%s", d)
	}
	if _, err := binview.New("libc.so.6", data, got, nil); err != nil {
		t.Errorf("New: %v", err)
	}
}

func TestServePassesCodes(t *testing.T) {
	r := runner(t, "serve", Limits{Memory: DefaultMemory + raceMemory})
	_, err := r.Analyze(context.Background(), []byte("plain text, no executable"), nil)
	if errcode.CodeOf(err) != binview.CodeUnsupportedFormat {
		t.Errorf("text: %v", err)
	}
	_, err = r.Analyze(context.Background(), make([]byte, 100), &binview.Options{MaxFileSize: 10})
	if errcode.CodeOf(err) != binview.CodeFileTooLarge {
		t.Errorf("large: %v", err)
	}
	a, err := r.Analyze(context.Background(), []byte{0x90, 0xc3}, &binview.Options{Format: binview.FormatRaw, Arch: binview.ArchX86_64, Base: 0x1000})
	if err != nil || a.Arch != binview.ArchX86_64 || a.ImageBase != 0x1000 {
		t.Errorf("raw: %+v, %v", a, err)
	}
}

func reason(err error) string {
	e, ok := errcode.As(err)
	if !ok {
		return ""
	}
	r, _ := e.Details["reason"].(string)
	return e.Code + "/" + r
}

func TestLimits(t *testing.T) {
	cases := []struct {
		mode   string
		limits Limits
		want   string
	}{
		{"hog", Limits{Memory: 128 << 20}, binview.CodeAnalysisFailed + "/" + ReasonMemory},
		{"block", Limits{Wall: 500 * time.Millisecond}, binview.CodeAnalysisTimeout + "/" + ReasonWallClock},
		{"spin", Limits{CPU: time.Second, Wall: time.Minute}, binview.CodeAnalysisTimeout + "/" + ReasonCPU},
		{"garbage", Limits{}, binview.CodeAnalysisFailed + "/" + ReasonBadOutput},
		{"flood", Limits{MaxOutput: 1 << 20}, binview.CodeAnalysisFailed + "/" + ReasonTooLarge},
		{"crash", Limits{}, binview.CodeAnalysisFailed + "/" + ReasonCrashed},
		{"code", Limits{}, binview.CodeAnalysisFailed + "/" + ReasonBadOutput},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			_, err := runner(t, c.mode, c.limits).Analyze(context.Background(), []byte("\x7fELF"), nil)
			if got := reason(err); got != c.want {
				t.Errorf("%v (%v): got %s, want %s", err, errors.Unwrap(err), got, c.want)
			}
			// The public message never carries the child's words.
			if err != nil && strings.Contains(err.Error(), "something went wrong") {
				t.Errorf("child text leaked: %v", err)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := runner(t, "block", Limits{Wall: time.Minute})
	done := make(chan error, 1)
	go func() {
		_, err := r.Analyze(ctx, []byte("x"), nil)
		done <- err
	}()
	cancel()
	err := <-done
	if got := reason(err); got != binview.CodeAnalysisTimeout+"/"+ReasonCanceled {
		t.Errorf("canceled: %v (%s)", err, got)
	}
	if !errors.Is(err, &errcode.Error{Code: binview.CodeAnalysisTimeout}) {
		t.Errorf("errors.Is: %v", err)
	}
}

func TestProtocolRejectsBadRequests(t *testing.T) {
	var out bytes.Buffer
	for _, in := range []string{"", "nope", requestMagic + "\xff\xff\xff\xff", requestMagic + "\x00\x00\x00\x0b{\"bad\":true}"} {
		out.Reset()
		if err := Serve(context.Background(), strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out.String(), errorMagic+binview.CodeAnalysisFailed) {
			t.Errorf("request %q: %q", in, out.String())
		}
	}
}

// hogged holds the memory the hog child allocates.
var hogged [][]byte
