package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/internal/benchcpu"
)

// hostedWire is a hosted server on its own SQLite state directory whose
// analyses run in a child (this test binary as analyze-worker).
func hostedWire(b *testing.B, state string, roots ...string) *wired {
	b.Helper()
	cfg, _ := Config{Listen: "0.0.0.0:8787", StateDir: state}.withDefaults()
	cfg.Bininspect.Roots = roots
	cfg.Bininspect.AnalysisMemoryBytes = 1<<30 + raceMemory
	ctl, err := openControls(context.Background(), cfg, discardLogger(), false, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ctl.close)
	w, err := wire(wireOptions{logger: discardLogger(), stateDir: state, controls: ctl, cfg: cfg, isolateEnv: []string{workerEnv + "=1"}})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkHostedOpen measures bininspect_open of the Go compiler (about
// 25 MB) on a hosted server: cold, analysed in a child process under
// limits and cached in SQLite; and on a second server on the same store,
// which builds the view from the cached analysis.
func BenchmarkHostedOpen(b *testing.B) {
	out, err := exec.Command("go", "env", "GOTOOLDIR").Output()
	if err != nil {
		b.Skip("go command not found")
	}
	dir := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(dir, "compile")); err != nil {
		b.Skip("no compile binary")
	}
	p := hostedAlice
	p.Entitlements = []string{"*"}
	open := func(b *testing.B, w *wired) {
		r := callAs(b, w.srv, p, "bininspect_open", `{"path":"compile"}`)
		if r.code != "" {
			b.Fatalf("open: %s", r.raw)
		}
	}
	b.Run("cold-child", func(b *testing.B) {
		var cpu int64
		for b.Loop() {
			b.StopTimer()
			w := hostedWire(b, b.TempDir(), dir)
			b.StartTimer()
			c := int64(benchcpu.Process())
			open(b, w)
			cpu += int64(benchcpu.Process()) - c
		}
		b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
	})
	state := b.TempDir()
	open(b, hostedWire(b, state, dir))
	b.Run("second-replica", func(b *testing.B) {
		var cpu int64
		for b.Loop() {
			b.StopTimer()
			w := hostedWire(b, state, dir)
			b.StartTimer()
			c := int64(benchcpu.Process())
			open(b, w)
			cpu += int64(benchcpu.Process()) - c
		}
		b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
	})
}
