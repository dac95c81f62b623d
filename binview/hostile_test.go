package binview

import (
	"context"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/binview/funcs"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/internal/benchcpu"
	"github.com/warden-mcp/warden/internal/hostile"
)

// The shapes of files that took servers down, at sizes a test can
// afford, each under a budget scaled down with it: what is asserted is
// that the work stops at the budget's limit, fails only its own call
// with analysis_limit naming the limit, and holds no more memory than
// the budget allows.

// heapObjects is the heap's object bytes, live and not yet swept.
func heapObjects() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// heapPeak runs f and returns how far the heap grew above its size
// before f at the highest point seen (sampled every half millisecond,
// without stopping the world).
func heapPeak(f func()) int64 {
	runtime.GC()
	base := heapObjects()
	var peak atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if h := heapObjects() - base; h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Microsecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	if h := heapObjects() - base; h > peak.Load() {
		peak.Store(h)
	}
	return peak.Load()
}

// heapCeiling is what an analysis under a budget of bytes may hold at
// its peak: twice the budget (the collector lets garbage reach the live
// heap's size before it runs), the file's view, and the runtime's slack.
func heapCeiling(bytes int64, file int) int64 { return 2*bytes + 4*int64(file) + 16<<20 }

func openHostile(t testing.TB, data []byte, opts *Options) *View {
	t.Helper()
	v, err := Open(context.Background(), "hostile", data, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

func wantLimit(t testing.TB, err error, limit string) {
	t.Helper()
	got, ok := budget.IsLimit(err)
	if !ok || got != limit {
		t.Fatalf("want analysis_limit on %s, got %v", limit, err)
	}
	if e, _ := errcode.As(err); e.Details["max"] == nil || e.Message == "" {
		t.Fatalf("the error does not say the limit's value: %+v", e)
	}
}

// A flood of calls to the next instruction (the 64 MiB upload that took
// the hosted server down with bininspect_xrefs): every instruction
// starts a function. The analysis stops at its byte limit with
// analysis_limit, within a memory ceiling the limit sets, and the view
// goes on answering.
func TestCallFloodStaysWithinItsBudget(t *testing.T) {
	const bytes = 32 << 20
	data := hostile.CallFlood(300_000)
	v := openHostile(t, data, &Options{Limits: budget.Limits{Bytes: bytes}})
	var st CodeState
	peak := heapPeak(func() { st, _ = v.WaitCode(context.Background(), CodeReferences) })
	wantLimit(t, st.Err, "bytes")
	if !st.Finished() || st.Stage >= CodeReferences || st.Graph != nil {
		t.Errorf("stage %s, running %v, graph %v", st.Stage, st.Running, st.Graph != nil)
	}
	if c := heapCeiling(bytes, len(data)); peak > c {
		t.Errorf("the heap grew by %d MiB at its peak, ceiling %d MiB", peak>>20, c>>20)
	}
	if st.Progress.Bytes < bytes || st.Progress.Bytes > bytes+1<<20 {
		t.Errorf("counted at most %d bytes, limit %d", st.Progress.Bytes, int64(bytes))
	}
	if _, err := v.Disassemble(hostile.TextAddr, 4, nil); err != nil {
		t.Errorf("the view stopped answering: %v", err)
	}
	t.Logf("peak %d MiB, %d functions when it stopped", peak>>20, len(st.Functions))
}

// One basic block of movs (the 10 MB file whose function graph took the
// server down in WriteDOT): the analysis holds one block, and drawing it
// stops at the output limit, counted as the instructions are decoded,
// with analysis_limit.
func TestGiantBlockGraphStaysWithinItsOutput(t *testing.T) {
	const output = 1 << 20
	data := hostile.GiantBlock(150_000)
	v := openHostile(t, data, &Options{Limits: budget.Limits{Output: output}})
	st, err := v.WaitCode(context.Background(), CodeReferences)
	if err != nil || st.Err != nil || st.Stage != CodeReferences {
		t.Fatalf("references: %v %v", err, st.Err)
	}
	var cfgErr error
	peak := heapPeak(func() { _, cfgErr = v.FunctionGraph(st, nil, hostile.TextAddr, disasm.Intel) })
	wantLimit(t, cfgErr, "output")
	if c := int64(2*output + 8<<20); peak > c {
		t.Errorf("drawing grew the heap by %d MiB, ceiling %d MiB", peak>>20, c>>20)
	}
	// Under the default limit, a block that fits draws, and its DOT stays
	// under the limit it was drawn with.
	small := openHostile(t, hostile.GiantBlock(2000), nil)
	st, _ = small.WaitCode(context.Background(), CodeReferences)
	cfg, err := small.FunctionGraph(st, nil, hostile.TextAddr, disasm.Intel)
	if err != nil {
		t.Fatal(err)
	}
	if dot := cfg.DOT(); len(dot) == 0 || int64(len(dot)) > cfg.MaxOutput {
		t.Errorf("DOT of %d bytes, limit %d", len(dot), cfg.MaxOutput)
	}
	cfg.MaxOutput = 4096
	if err := cfg.WriteDOT(discard{}); err == nil {
		t.Error("WriteDOT past its limit")
	} else {
		wantLimit(t, err, "output")
	}
	if err := cfg.WriteSVG(discard{}); err == nil {
		t.Error("WriteSVG past its limit")
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// A symbol table of hundreds of thousands of names (the 54 MB table a
// local analysis spent 84 s on against its 30 s timeout): the analysis
// checks its context while it reads the table, so once cancelled it
// stops at once rather than after reading it all. What it does after the
// cancellation is measured in this process's CPU time, which other work
// on the machine does not inflate.
func TestSymbolFloodStopsWhenCancelled(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector multiplies CPU time")
	}
	data := hostile.SymbolFlood(600_000, 24)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var atCancel atomic.Int64
	start := benchcpu.Process()
	go func() {
		// Cancel once the table is being read: 60 ms of CPU in.
		for benchcpu.Process()-start < 60*time.Millisecond {
			time.Sleep(200 * time.Microsecond)
		}
		atCancel.Store(int64(benchcpu.Process()))
		cancel()
	}()
	_, err := Analyze(ctx, data, &Options{MaxFileSize: LocalMaxFileSize, Timeout: time.Hour})
	after := time.Duration(int64(benchcpu.Process()) - atCancel.Load())
	if errcode.CodeOf(err) != CodeAnalysisTimeout {
		t.Fatalf("want analysis_timeout, got %v", err)
	}
	// What was done after the cancellation: the work up to the next
	// check (4,096 symbols) and the collector's, not the rest of the
	// table (more than a second of CPU).
	if after > 300*time.Millisecond {
		t.Errorf("the analysis ran %v of CPU after it was cancelled", after)
	}
	t.Logf("%v of CPU after the cancellation", after)
	// Uncancelled, the table is read up to the limits, and no further.
	a, err := Analyze(context.Background(), data, &Options{MaxFileSize: LocalMaxFileSize, MaxSymbols: 1000, Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Symbols) != 1000 || !slices.ContainsFunc(a.Warnings, func(w Warning) bool { return w.Code == WarnTruncated }) {
		t.Errorf("%d symbols, warnings %v", len(a.Symbols), a.Warnings)
	}
}

// Functions that overlap (each one's code is all the code after it):
// building their blocks is quadratic, so the instruction limit bounds
// it; the analysis finishes with the warning instruction_budget.
func TestOverlappingFunctionsStayWithinTheInstructionLimit(t *testing.T) {
	const insts = 1 << 20
	data := hostile.Overlapping(3000, 3000)
	v := openHostile(t, data, &Options{Limits: budget.Limits{Instructions: insts}})
	var st CodeState
	peak := heapPeak(func() { st, _ = v.WaitCode(context.Background(), CodeReferences) })
	if st.Err != nil || st.Stage != CodeReferences {
		t.Fatalf("stage %s: %v", st.Stage, st.Err)
	}
	if st.Progress.Instructions > insts || !slices.Contains(st.Warnings, funcs.WarnInstructionBudget) {
		t.Errorf("%d instructions, warnings %v", st.Progress.Instructions, st.Warnings)
	}
	if c := heapCeiling(st.Progress.Bytes, len(data)); peak > c {
		t.Errorf("the heap grew by %d MiB at its peak, ceiling %d MiB", peak>>20, c>>20)
	}
}

// The budget's count of bytes bounds what the analysis really holds: the
// heap the finished analysis keeps is no more than the count, and the
// heap at its peak no more than the ceiling the count sets, on a real
// file and on hostile ones. The count is of what the analysis holds
// while it runs, its working state included, so it may exceed what is
// kept at the end.
func TestBudgetTracksTheHeap(t *testing.T) {
	for _, c := range []struct {
		name string
		data func(testing.TB) []byte
	}{
		{"libc", func(t testing.TB) []byte { return readFile(t, "/lib/x86_64-linux-gnu/libc.so.6") }},
		{"calls", func(testing.TB) []byte { return hostile.CallFlood(100_000) }},
		{"symbols", func(testing.TB) []byte { return hostile.SymbolFlood(100_000, 16) }},
		{"block", func(testing.TB) []byte { return hostile.GiantBlock(100_000) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := c.data(t)
			v := openHostile(t, data, nil)
			runtime.GC()
			base := heapObjects()
			var st CodeState
			peak := heapPeak(func() { st, _ = v.WaitCode(context.Background(), CodeReferences) })
			if st.Stage != CodeReferences {
				t.Fatalf("stage %s: %v", st.Stage, st.Err)
			}
			runtime.GC()
			kept := heapObjects() - base
			counted := st.Progress.Bytes
			if kept > counted+counted/4 {
				t.Errorf("the analysis keeps %d KiB, its budget counted %d KiB", kept>>10, counted>>10)
			}
			if c := heapCeiling(counted, len(data)); peak > c {
				t.Errorf("the heap grew by %d KiB at its peak, ceiling %d KiB (counted %d KiB)", peak>>10, c>>10, counted>>10)
			}
			t.Logf("counted %d KiB, kept %d KiB, peak %d KiB", counted>>10, kept>>10, peak>>10)
			runtime.KeepAlive(v)
		})
	}
}

// FuzzHostile mutates the hostile shapes and runs everything a tool
// reaches on each: the analysis of every stage and the drawings must
// stay under a memory ceiling their budget sets, and fail, when they
// do, with a coded error.
func FuzzHostile(f *testing.F) {
	f.Add(hostile.CallFlood(3000))
	f.Add(hostile.GiantBlock(3000))
	f.Add(hostile.SymbolFlood(2000, 12))
	f.Add(hostile.Overlapping(200, 400))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256<<10 {
			return
		}
		const bytes = 8 << 20
		opts := fuzzLimits
		opts.Limits = budget.Limits{Bytes: bytes, Output: 256 << 10}
		opts.MaxInstructions = 1 << 18
		var v *View
		peak := heapPeak(func() {
			var err error
			if v, err = Open(context.Background(), "fuzz", data, &opts); err != nil {
				if errcode.CodeOf(err) == "" {
					t.Fatalf("an error without a code: %v", err)
				}
				return
			}
			exerciseCode(t, v)
		})
		if c := heapCeiling(bytes, len(data)) + 256*int64(len(data)); peak > c {
			t.Fatalf("the heap grew by %d MiB, ceiling %d MiB", peak>>20, c>>20)
		}
	})
}
