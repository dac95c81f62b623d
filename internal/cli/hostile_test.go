package cli

import (
	"context"
	"encoding/base64"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/internal/hostile"
	"github.com/warden-mcp/warden/mcp"
)

// serverHeap is this process's heap objects, live and not yet swept.
func serverHeap() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// pollCode calls a code tool until the analysis it needs has ended (the
// tools answer analysis_incomplete while it runs).
func pollCode(t *testing.T, srv *mcp.Server, name, args string) toolReply {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		r := callAs(t, srv, hostedAlice, name, args)
		if r.code != "" && r.code != "analysis_incomplete" || !strings.Contains(r.raw, "analysis_incomplete") || time.Now().After(deadline) {
			return r
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The reports, through a hosted server: the code analysis of a hostile
// file runs in the worker (a child per stage), a limit it reaches fails
// the call that needed it with analysis_limit, and the server's own heap
// holds no more than what the budget lets the worker send back.
func TestHostedCodeAnalysisInTheWorker(t *testing.T) {
	if raceMemory > 0 {
		t.Skip("the race detector's shadow memory is not the analysis's")
	}
	const bytes = 48 << 20
	state, marks := t.TempDir(), t.TempDir()
	cfg, err := Config{Listen: "0.0.0.0:8787", StateDir: state}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Bininspect.AnalysisLimits = AnalysisLimitsConfig{Bytes: bytes, OutputBytes: 1 << 20}
	ctl, err := openControls(context.Background(), cfg, discardLogger(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.close()
	w, err := wire(wireOptions{logger: discardLogger(), stateDir: state, controls: ctl, cfg: cfg, isolateEnv: []string{workerEnv + "=" + marks}})
	if err != nil {
		t.Fatal(err)
	}
	open := func(data []byte) string {
		r := callAs(t, w.srv, hostedAlice, "bininspect_open", `{"data_base64":"`+base64.StdEncoding.EncodeToString(data)+`"}`)
		if r.code != "" {
			t.Fatalf("open: %s", r.raw)
		}
		return `"view":"` + r.str("view") + `"`
	}

	// The call flood: in process its analysis reaches 110 MiB before
	// its references; here the worker stops at the byte limit.
	calls := open(hostile.CallFlood(200_000))
	runtime.GC()
	base := serverHeap()
	var peak atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			if h := serverHeap() - base; h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	r := pollCode(t, w.srv, "bininspect_xrefs", `{`+calls+`,"address":"0x401005"}`)
	close(stop)
	if r.code != budget.Code || !strings.Contains(r.msg, "bytes limit") {
		t.Fatalf("xrefs on the call flood: %.400s", r.raw)
	}
	children, _ := os.ReadDir(marks)
	if len(children) < 2 { // the parse, the function stages
		t.Errorf("%d children: the code analysis ran in the server", len(children))
	}
	if p := peak.Load(); p > bytes {
		t.Errorf("the server's heap grew by %d MiB, the budget is %d MiB", p>>20, bytes>>20)
	}
	t.Logf("server heap peak +%d MiB while the worker analysed", peak.Load()>>20)

	// A giant block: the worker analyses it, and its graph passes the
	// output limit.
	block := open(hostile.GiantBlock(60_000))
	r = pollCode(t, w.srv, "bininspect_function_graph", `{`+block+`,"function":"main"}`)
	if r.code != budget.Code || !strings.Contains(r.msg, "output limit") {
		t.Errorf("graph of the giant block: %.400s", r.raw)
	}
	if more, _ := os.ReadDir(marks); len(more) < len(children)+3 {
		t.Errorf("%d children more for the giant block, want its parse and two code jobs", len(more)-len(children))
	}
}

// bininspect.analysis_limits reaches the budget; values out of range are
// refused at start-up.
func TestAnalysisLimitsConfig(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/warden.yaml"
	os.WriteFile(path, []byte("bininspect:\n  analysis_limits:\n    bytes: 33554432\n    output_bytes: 65536\n    blocks: 1000\n"), 0o600)
	cfg, err := loadConfig(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err = cfg.withDefaults(); err != nil {
		t.Fatal(err)
	}
	l := cfg.Bininspect.AnalysisLimits.limits()
	if l.Bytes != 32<<20 || l.Output != 64<<10 || l.Blocks != 1000 || l.WithDefaults().Edges != budget.DefaultEdges {
		t.Errorf("limits %+v", l)
	}
	bo, err := binaryOptions(wireOptions{cfg: cfg, stateDir: t.TempDir(), logger: discardLogger()})
	if err != nil || bo.AnalysisLimits != l {
		t.Errorf("wired limits %+v, %v", bo.AnalysisLimits, err)
	}
	for _, bad := range []AnalysisLimitsConfig{{Bytes: -1}, {Bytes: 1 << 20}, {OutputBytes: 1024}, {Edges: -5}} {
		c, _ := Config{}.withDefaults()
		c.Bininspect.AnalysisLimits = bad
		if _, err := c.withDefaults(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
