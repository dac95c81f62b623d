package isolate

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/funcs"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/internal/hostile"
)

// codeView opens data in process and gives it opts (with r as its
// CodeRunner when r is set).
func codeView(t testing.TB, data []byte, r *Runner, opts binview.Options) *binview.View {
	t.Helper()
	if r != nil {
		opts.CodeRunner = r
	}
	v, err := binview.Open(context.Background(), "f", data, &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

func waitRefs(t testing.TB, v *binview.View) binview.CodeState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, err := v.WaitCode(ctx, binview.CodeReferences)
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	return st
}

// The worker's functions, blocks, cross-references and call graph are
// the in-process analysis's, and the graph's lookups work on them.
func TestCodeMatchesInProcess(t *testing.T) {
	data := libc(t)
	r := runner(t, "serve", Limits{Memory: DefaultMemory + raceMemory})
	local := waitRefs(t, codeView(t, data, nil, binview.Options{}))
	v := codeView(t, data, r, binview.Options{})
	fst, err := v.WaitCode(context.Background(), binview.CodeFunctions)
	if err != nil || fst.Stage < binview.CodeFunctions {
		t.Fatalf("functions: %v %v", err, fst.Err)
	}
	remote := waitRefs(t, v)
	if remote.Err != nil || remote.Stage != binview.CodeReferences {
		t.Fatalf("isolated: stage %s, %v", remote.Stage, remote.Err)
	}
	if d := cmp.Diff(local.Functions, remote.Functions); d != "" {
		t.Errorf("functions differ (-in process +worker):\n%s", d)
	}
	if d := cmp.Diff(local.Graph, remote.Graph, cmpopts.IgnoreUnexported(funcs.Graph{})); d != "" {
		t.Errorf("graphs differ (-in process +worker):\n%s", d)
	}
	for _, fi := range local.Graph.Functions[:min(200, len(local.Graph.Functions))] {
		for _, b := range fi.Blocks {
			if d := cmp.Diff(local.Graph.XrefsFrom(b.Start), remote.Graph.XrefsFrom(b.Start)); d != "" {
				t.Fatalf("xrefs from %#x differ:\n%s", b.Start, d)
			}
		}
	}
	// The decoded graph has no slack in its slices.
	if remote.Graph.Bytes() > local.Graph.Bytes() || remote.Graph.Bytes() < local.Graph.Bytes()/2 {
		t.Errorf("footprints: worker %d, in process %d", remote.Graph.Bytes(), local.Graph.Bytes())
	}
}

// A limit the worker reaches comes back as analysis_limit naming it, and
// the function stages' results stay.
func TestCodeLimitCrossesTheBoundary(t *testing.T) {
	data := libc(t)
	r := runner(t, "serve", Limits{Memory: DefaultMemory + raceMemory})
	v := codeView(t, data, r, binview.Options{Limits: budget.Limits{Edges: 1000}})
	st := waitRefs(t, v)
	if l, ok := budget.IsLimit(st.Err); !ok || l != "edges" {
		t.Fatalf("want analysis_limit on edges, got stage %s, %v", st.Stage, st.Err)
	}
	if st.Stage != binview.CodeFunctions || len(st.Functions) < 3000 || st.Graph != nil {
		t.Errorf("stage %s, %d functions, graph %v", st.Stage, len(st.Functions), st.Graph != nil)
	}
	e, _ := errcode.As(st.Err)
	if e.Details["max"] != int64(1000) {
		t.Errorf("details %v", e.Details)
	}
}

// A worker that dies fails its view's analysis with a coded error, once;
// the view itself goes on answering.
func TestCodeWorkerDeath(t *testing.T) {
	data := libc(t)
	for _, c := range []struct {
		mode   string
		limits Limits
		want   string
	}{
		{"hog", Limits{Memory: 128 << 20}, binview.CodeAnalysisFailed + "/" + ReasonMemory},
		{"crash", Limits{}, binview.CodeAnalysisFailed + "/" + ReasonCrashed},
		{"garbage", Limits{}, binview.CodeAnalysisFailed + "/" + ReasonBadOutput},
		{"flood", Limits{MaxOutput: 1 << 20}, binview.CodeAnalysisFailed + "/" + ReasonBadOutput},
		{"frames", Limits{MaxOutput: 1 << 20}, binview.CodeAnalysisFailed + "/" + ReasonTooLarge},
		{"block", Limits{CPU: time.Second, Wall: 1500 * time.Millisecond}, binview.CodeAnalysisTimeout + "/" + ReasonWallClock},
	} {
		t.Run(c.mode, func(t *testing.T) {
			r := runner(t, c.mode, c.limits)
			opts := binview.Options{}
			if c.mode == "block" {
				opts.CodeTimeout = 100 * time.Millisecond // the wall clock is ten seconds more
			}
			v := codeView(t, data, r, opts)
			st, _ := v.WaitCode(context.Background(), binview.CodeReferences)
			if got := reason(st.Err); got != c.want {
				t.Fatalf("got %s (%v), want %s", got, st.Err, c.want)
			}
			if !st.Finished() || st.Stage != binview.CodePending {
				t.Errorf("state: stage %s, running %v", st.Stage, st.Running)
			}
			if _, ok := v.Symbol("malloc"); !ok {
				t.Error("the view stopped answering")
			}
		})
	}
}

// The worker the call flood runs in stays within its budget: the
// analysis stops with analysis_limit on bytes and the child's peak
// resident size stays under a ceiling the budget sets.
func TestCodeWorkerMemoryCeiling(t *testing.T) {
	if raceMemory > 0 {
		t.Skip("the race detector's shadow memory is not the analysis's")
	}
	const bytes = 48 << 20
	data := hostile.CallFlood(400_000)
	r := runner(t, "serve", Limits{})
	var peak int64
	r.onExit = func(ps *os.ProcessState) { peak = max(peak, maxRSS(ps)) }
	v := codeView(t, data, r, binview.Options{Limits: budget.Limits{Bytes: bytes}})
	st := waitRefs(t, v)
	if l, ok := budget.IsLimit(st.Err); !ok || l != "bytes" {
		t.Fatalf("want analysis_limit on bytes, got stage %s, %v", st.Stage, st.Err)
	}
	// The runtime, the file and its analysis, and twice the budget for
	// the collector's garbage.
	ceiling := int64(40<<20) + 2*int64(len(data)) + 2*bytes
	if peak == 0 || peak > ceiling {
		t.Errorf("the worker's peak RSS is %d MiB, ceiling %d MiB", peak>>20, ceiling>>20)
	}
	t.Logf("worker peak RSS %d MiB (ceiling %d MiB), %d functions", peak>>20, ceiling>>20, len(st.Functions))
}
