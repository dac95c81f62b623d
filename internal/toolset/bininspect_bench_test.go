package toolset

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/viewstore"

	"github.com/warden-mcp/warden/internal/benchcpu"
)

// goCompiler is the benchmarks' large file: the Go toolchain's compile
// binary (about 25 MB, a Go binary with symbols).
func goCompiler(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOTOOLDIR").Output()
	if err != nil {
		b.Skip("go command not found")
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "compile")
	if _, err := os.Stat(p); err != nil {
		b.Skip("no compile binary")
	}
	return p
}

// BenchmarkOpen measures bininspect_open of the Go compiler by path, as a
// client sees it: cold (nothing cached: read, hash, analyse, index),
// from the store's analysis cache (what a second replica does), and
// reopened in the same process.
func BenchmarkOpen(b *testing.B) {
	src := goCompiler(b)
	dir := filepath.Dir(src)
	args := `{"path":"compile"}`
	b.Run("cold", func(b *testing.B) {
		cpu := int64(benchcpu.Process())
		for b.Loop() {
			s := benchServer(b, BinaryOptions{Roots: []string{dir}, MaxFileSize: 512 << 20})
			s.mustB(b, "bininspect_open", args)
		}
		reportCPU(b, cpu)
	})
	store := viewstore.NewMemory(0)
	benchServer(b, BinaryOptions{Store: store, Roots: []string{dir}, MaxFileSize: 512 << 20}).mustB(b, "bininspect_open", args)
	b.Run("store-cached", func(b *testing.B) {
		cpu := int64(benchcpu.Process())
		for b.Loop() {
			s := benchServer(b, BinaryOptions{Store: store, Roots: []string{dir}, MaxFileSize: 512 << 20})
			s.mustB(b, "bininspect_open", args)
		}
		reportCPU(b, cpu)
	})
	s := benchServer(b, BinaryOptions{Roots: []string{dir}, MaxFileSize: 512 << 20})
	s.mustB(b, "bininspect_open", args)
	b.Run("process-cached", func(b *testing.B) {
		cpu := int64(benchcpu.Process())
		for b.Loop() {
			s.mustB(b, "bininspect_open", args)
		}
		reportCPU(b, cpu)
	})
}

// BenchmarkResolvedCall measures a view-scoped call end to end through
// the protocol engine: the handle opened and checked, the row read and
// the use recorded, the address expression evaluated, the result shaped.
func BenchmarkResolvedCall(b *testing.B) {
	dir := filepath.Dir(goCompiler(b))
	s := benchServer(b, BinaryOptions{Roots: []string{dir}, MaxFileSize: 512 << 20})
	view := s.mustB(b, "bininspect_open", `{"path":"compile"}`).str("view")
	args := `{"view":"` + view + `","expression":"main.main+0x10"}`
	b.ReportAllocs()
	cpu := int64(benchcpu.Process())
	for b.Loop() {
		s.mustB(b, "bininspect_eval", args)
	}
	reportCPU(b, cpu)
}

// reportCPU reports the CPU time per operation since cpu0.
func reportCPU(b *testing.B, cpu0 int64) {
	if cpu0 > 0 {
		b.ReportMetric(float64(int64(benchcpu.Process())-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

func benchServer(b *testing.B, o BinaryOptions) *server { return newServer(b, newViews(b, o)) }

func (s *server) mustB(_ *testing.B, name, args string) reply { return s.must(as(alice), name, args) }
