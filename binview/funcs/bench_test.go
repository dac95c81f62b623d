package funcs

import (
	"context"
	"os"
	"testing"

	"github.com/warden-mcp/warden/binview/internal/bintest"
)

func benchStage(b *testing.B, img *Image, stage Stage) {
	b.Helper()
	b.ReportAllocs()
	var n int
	for b.Loop() {
		a, err := New(img, nil)
		if err != nil {
			b.Fatal(err)
		}
		if stage == StageBlocks {
			g, err := a.Graph(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			n = len(g.Functions)
		} else {
			res, err := a.Run(context.Background(), stage)
			if err != nil {
				b.Fatal(err)
			}
			n = len(res.Functions)
		}
	}
	b.ReportMetric(float64(n), "functions")
}

// BenchmarkMetadataLibc is the fast stage on the system libc: symbols and
// .eh_frame only.
func BenchmarkMetadataLibc(b *testing.B) {
	if _, err := os.Stat(libcPath); err != nil {
		b.Skip(err)
	}
	benchStage(b, elfImage(b, libcPath), StageMetadata)
}

// BenchmarkFullStatic runs every stage (blocks, xrefs, call graph) on the
// stripped gcc -O2 static build.
func BenchmarkFullStatic(b *testing.B) {
	benchStage(b, elfImage(b, bintest.Build(b, bintest.StaticStrip)), StageBlocks)
}

// BenchmarkDescentStaticNoUnwind is the function list of a stripped
// static gcc build without unwind tables or CET landing pads: descent and
// every heuristic, over glibc's code.
func BenchmarkDescentStaticNoUnwind(b *testing.B) {
	benchStage(b, elfImage(b, bintest.Build(b, bintest.StaticNoCETNoEH)), StageDescent)
}

// BenchmarkDescentCompile is the function list of the Go compiler from
// pclntab hints and recursive descent.
func BenchmarkDescentCompile(b *testing.B) {
	benchStage(b, goImage(b, goTool(b, "compile")), StageDescent)
}

// BenchmarkMetadataCompile is the Go compiler's function list from
// pclntab hints alone.
func BenchmarkMetadataCompile(b *testing.B) {
	benchStage(b, goImage(b, goTool(b, "compile")), StageMetadata)
}

// BenchmarkFullCompile runs every stage on the Go compiler.
func BenchmarkFullCompile(b *testing.B) {
	benchStage(b, goImage(b, goTool(b, "compile")), StageBlocks)
}
