package isolate

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/internal/testbin"
)

// strippedCompile reads a stripped copy of the Go compiler (25 MB), made
// once per toolchain (internal/testbin).
func strippedCompile(tb testing.TB) []byte {
	tb.Helper()
	src := filepath.Join(testGOROOT(), "pkg", "tool", runtime.GOOS+"_"+runtime.GOARCH, "compile")
	out := testbin.Derive(tb, "compile.stripped", src, "strip", "-o", testbin.Out, testbin.In)
	b, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// The default limits fit the analysis of a large real binary.
func TestDefaultLimitsFitALargeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("25 MB binary")
	}
	data := strippedCompile(t)
	r := runner(t, "serve", Limits{Memory: DefaultMemory + raceMemory})
	a, err := r.Analyze(context.Background(), data, nil)
	if err != nil {
		t.Fatalf("%v (%v)", err, reason(err))
	}
	if len(a.GoFunctions) < 10000 {
		t.Errorf("%d Go functions", len(a.GoFunctions))
	}
}

// The hosted open: a child analyses, the parent decodes the snapshot and
// builds the view.
func BenchmarkIsolatedOpen(b *testing.B) {
	for _, c := range []struct {
		name string
		data func(testing.TB) []byte
	}{{"GoCompiler", strippedCompile}, {"Libc", libc}} {
		b.Run(c.name, func(b *testing.B) {
			data := c.data(b)
			r := runner(b, "serve", Limits{Memory: DefaultMemory + raceMemory})
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				a, err := r.Analyze(context.Background(), data, nil)
				if err != nil {
					b.Fatal(err)
				}
				v, err := binview.New("x", data, a, nil)
				if err != nil {
					b.Fatal(err)
				}
				_ = v.Triage()
			}
		})
	}
}
