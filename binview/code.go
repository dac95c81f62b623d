package binview

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/funcs"
	"github.com/warden-mcp/warden/errcode"
)

// CodeStage is how far a view's code analysis has got. The stages run in
// order, in the background, each usable as soon as it ends.
type CodeStage uint8

// The code analysis stages.
const (
	// CodePending: nothing is ready yet.
	CodePending CodeStage = iota
	// CodeMetadata: the function starts the file states (symbols,
	// exports, entry points, call-frame data, .pdata, function starts,
	// Go's pclntab). Milliseconds.
	CodeMetadata
	// CodeFunctions: the full function list, after recursive descent
	// (and, without metadata, the heuristics).
	CodeFunctions
	// CodeReferences: basic blocks, cross-references and the call graph.
	CodeReferences
)

var codeStageNames = [...]string{"pending", "metadata", "functions", "references"}

// String returns "pending", "metadata", "functions" or "references".
func (s CodeStage) String() string {
	if int(s) < len(codeStageNames) {
		return codeStageNames[s]
	}
	return "unknown"
}

// CodeProgress is the running stage's advance.
type CodeProgress struct {
	// Stage is the stage running (or the last one run).
	Stage CodeStage
	// Done of Total functions processed in the stage (Total may grow).
	Done, Total int
	// Functions known so far.
	Functions int
	// Instructions decoded so far, all stages.
	Instructions int64
	// Bytes is the most memory the analysis has held at once, as its
	// budget counts it (budget.Bytes): its working state and its results.
	Bytes int64
}

// CodeState is what the code analysis has ready. Its slices and graph
// are shared and must not be modified.
type CodeState struct {
	// Stage is the last stage that finished.
	Stage CodeStage
	// Started reports that the analysis was started; Running that a
	// stage is running or queued. After the function stages the analysis
	// rests (Running false, Stage CodeFunctions) until the references
	// stage is asked for.
	Started, Running bool
	// Functions is the latest function list, sorted by address: the
	// metadata stage's, then recursive descent's (partial when that
	// stage was cut short).
	Functions []funcs.Function
	// Graph holds blocks, cross-references and the call graph once
	// Stage is CodeReferences; when that stage was cut short, what it
	// built (Stage stays CodeFunctions).
	Graph    *funcs.Graph
	Progress CodeProgress
	// Warnings are the analysis's warning codes (funcs.Warn*).
	Warnings []string
	// Err is why the analysis stopped early: analysis_timeout,
	// analysis_cancelled (the view was closed), unsupported_arch,
	// internal_error. Nil otherwise.
	Err error
}

// Footprint estimates the memory the view holds: its file's bytes, its
// strings once scanned, and what its code analysis has kept so far
// (functions, blocks, edges, cross-references). It grows as the analysis runs; a cache that bounds
// views by it measures again on each use. On the stripped Go compiler
// (22.7 MiB) the estimate after every stage is 87.9 MiB, where the heap
// grew by 104.8 MiB from before the open: names, maps and the allocator's
// slack are not counted.
func (v *View) Footprint() int64 {
	st := v.CodeState()
	n := v.Size() + st.Graph.Bytes() + int64(cap(st.Functions))*int64(unsafe.Sizeof(funcs.Function{}))
	if v.strDone.Load() {
		n += int64(cap(v.strs)) * int64(unsafe.Sizeof(String{}))
	}
	return n
}

// Finished reports that the analysis ran and stopped: completely, early
// (Err says why), or resting before the references stage.
func (s CodeState) Finished() bool { return s.Started && !s.Running }

// codeRun is a view's code analysis: function discovery started once,
// the references stage when first asked for, both in the background, and
// cancelled by Close.
type codeRun struct {
	mu      sync.Mutex
	state   CodeState
	changed chan struct{} // closed and replaced when the stage or Running changes
	cancel  context.CancelFunc
	closed  bool
	// an is kept between the function stages and the references stage,
	// which runs only when someone asks for it (in process; an isolated
	// worker runs the function stages again).
	an *funcs.Analyzer
	// descended reports that the function stages ended without error:
	// the references stage may run, once.
	descended bool
	wantRefs  bool
}

// codeSlots bounds the code analyses running at once in this process,
// views of every caller together: the others wait their turn (their
// state says Running, stage pending).
var codeSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

// StartCode starts the view's function discovery in the background, once
// (metadata, then recursive descent), bounded by Options.CodeTimeout and
// Options.MaxInstructions. The references stage (blocks, cross-references,
// call graph), which costs several times more, runs when first asked for
// with WaitCode, under a time budget of its own. Later calls, and calls
// after Close, do nothing.
func (v *View) StartCode() {
	c := &v.code
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state.Started || c.closed {
		return
	}
	c.state.Started = true
	c.runLocked(v, func(ctx context.Context) { v.discover(ctx) })
}

// runLocked runs step in the background under a fresh time budget and a
// slot; c.mu is held.
func (c *codeRun) runLocked(v *View, step func(ctx context.Context)) {
	ctx, cancel := context.WithTimeout(context.Background(), v.o.CodeTimeout)
	c.cancel = cancel
	c.state.Running = true
	c.changedLocked()
	go func() {
		var err error
		defer func() {
			if r := recover(); r != nil {
				err = errcode.Wrap("internal_error", "the code analysis failed", fmt.Errorf("binview: code analysis panic: %v\n%s", r, debug.Stack()))
			}
			cancel()
			c.mu.Lock()
			defer c.mu.Unlock()
			c.state.Running = false
			if err != nil {
				c.state.Err, c.an, c.descended = err, nil, false
			}
			if c.descended && c.wantRefs && !c.closed && c.state.Stage == CodeFunctions && c.state.Err == nil {
				// Asked for while the function stages ran.
				c.startRefsLocked(v)
				return
			}
			c.changedLocked()
		}()
		select {
		case codeSlots <- struct{}{}:
			defer func() { <-codeSlots }()
		case <-ctx.Done():
			err = codeCtxErr(ctx)
			return
		}
		step(ctx)
	}()
}

// CodeState returns what the code analysis has ready now, without
// waiting and without starting it.
func (v *View) CodeState() CodeState {
	c := &v.code
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// WaitCode starts the code analysis if needed (the references stage too
// when stage is CodeReferences) and waits until stage is ready, the
// analysis stops, or ctx ends, whichever comes first. It returns what is
// ready then, with ctx's error when ctx ended first. A caller that must
// answer promptly waits under a short deadline and reports an incomplete
// answer from the state it gets.
func (v *View) WaitCode(ctx context.Context, stage CodeStage) (CodeState, error) {
	v.StartCode()
	c := &v.code
	if stage >= CodeReferences {
		c.mu.Lock()
		c.wantRefs = true
		if !c.state.Running && !c.closed && c.descended && c.state.Stage == CodeFunctions {
			c.startRefsLocked(v)
		}
		c.mu.Unlock()
	}
	for {
		c.mu.Lock()
		st, ch := c.state, c.changedChan()
		c.mu.Unlock()
		if st.Stage >= stage || !st.Running {
			return st, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return v.CodeState(), ctx.Err()
		}
	}
}

// Close cancels the view's code analysis and frees what it kept for a
// later stage; what it found stays readable. The view's other methods
// keep working. Close is idempotent.
func (v *View) Close() {
	c := &v.code
	c.mu.Lock()
	c.closed = true
	c.an, c.descended = nil, false
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (c *codeRun) changedChan() chan struct{} {
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.changed
}

func (c *codeRun) changedLocked() {
	if c.changed != nil {
		close(c.changed)
	}
	c.changed = make(chan struct{})
}

// startRefsLocked runs the references stage, once; c.mu is held.
func (c *codeRun) startRefsLocked(v *View) {
	an := c.an
	c.an, c.descended = nil, false
	c.runLocked(v, func(ctx context.Context) {
		if v.o.CodeRunner != nil {
			v.runRemote(ctx, CodeReferences)
			return
		}
		v.references(ctx, an)
	})
}

// funcOptions are the options of the view's funcs.Analyzer.
func (v *View) funcOptions(progress func(funcs.Progress)) *funcs.Options {
	return &funcs.Options{
		Limits:          v.o.Limits,
		MaxInstructions: v.o.MaxInstructions,
		MaxFunctions:    v.o.MaxFunctions,
		Progress:        progress,
	}
}

// discover runs the function stages and keeps the analyzer for the
// references stage.
func (v *View) discover(ctx context.Context) {
	if v.o.CodeRunner != nil {
		v.runRemote(ctx, CodeFunctions)
		return
	}
	c := &v.code
	fail := func(err error) {
		c.mu.Lock()
		c.state.Err = err
		c.mu.Unlock()
	}
	img, err := v.FuncImage()
	if err != nil {
		fail(err)
		return
	}
	an, err := funcs.New(img, v.funcOptions(func(p funcs.Progress) {
		c.mu.Lock()
		c.state.Progress = codeProgress(p)
		c.mu.Unlock()
	}))
	if err != nil {
		fail(err)
		return
	}
	for _, stage := range []funcs.Stage{funcs.StageMetadata, funcs.StageDescent} {
		res, err := an.Run(ctx, stage)
		c.mu.Lock()
		if res != nil && keepPartial(err) {
			c.state.Functions, c.state.Warnings = res.Functions, res.Warnings
		}
		if err != nil {
			c.state.Err = err
		} else {
			c.state.Stage = codeStage(stage)
			c.changedLocked()
		}
		c.mu.Unlock()
		if err != nil {
			return
		}
	}
	c.mu.Lock()
	if !c.closed {
		c.an, c.descended = an, true // for the references stage, when asked for
	}
	c.mu.Unlock()
}

// keepPartial reports whether a stage that ended with err keeps what it
// found: one cut short by its time does, one stopped by its budget does
// not (its calls fail with analysis_limit, and what it holds is what the
// budget refused).
func keepPartial(err error) bool {
	_, limited := budget.IsLimit(err)
	return !limited
}

func codeProgress(p funcs.Progress) CodeProgress {
	return CodeProgress{Stage: codeStage(p.Stage), Done: p.Done, Total: p.Total,
		Functions: p.Functions, Instructions: p.Instructions, Bytes: p.Bytes}
}

// references runs the references stage.
func (v *View) references(ctx context.Context, an *funcs.Analyzer) {
	c := &v.code
	g, err := an.Graph(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if g != nil {
		c.state.Graph, c.state.Warnings = g, g.Warnings
	}
	if err != nil {
		c.state.Err = err
		return
	}
	if g != nil {
		c.state.Stage = CodeReferences
	}
}

// runRemote runs the stages up to stage with the view's CodeRunner and
// applies what it reports as it comes, as the in-process stages do.
func (v *View) runRemote(ctx context.Context, stage CodeStage) {
	c := &v.code
	c.mu.Lock()
	job := CodeJob{Data: v.data, Analysis: v.a, Options: v.o, Stage: stage, Known: c.state.Functions}
	c.mu.Unlock()
	job.Options.CodeRunner = nil
	err := v.o.CodeRunner.RunCode(ctx, job, func(u CodeUpdate) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.state.Progress = u.Progress
		switch {
		case u.Stage == CodeReferences && u.Graph != nil:
			c.state.Graph, c.state.Warnings = u.Graph, u.Graph.Warnings
		case u.Stage != CodePending && u.Stage < CodeReferences && stage < CodeReferences:
			// A references job runs the function stages again: what they
			// find is known already.
			c.state.Functions, c.state.Warnings = u.Functions, u.Warnings
		default:
			return
		}
		if !u.Partial {
			c.state.Stage = u.Stage
			c.changedLocked()
		}
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.state.Err = err
		return
	}
	if stage == CodeFunctions && !c.closed && c.state.Stage == CodeFunctions {
		c.descended = true
	}
}

func codeStage(s funcs.Stage) CodeStage {
	switch s {
	case funcs.StageMetadata:
		return CodeMetadata
	case funcs.StageDescent:
		return CodeFunctions
	case funcs.StageBlocks:
		return CodeReferences
	}
	return CodePending
}

func codeCtxErr(ctx context.Context) error {
	if ctx.Err() == context.DeadlineExceeded {
		return errcode.Wrap(CodeAnalysisTimeout, "the code analysis ran out of time; what it found is kept", ctx.Err())
	}
	return errcode.Wrap("analysis_cancelled", "the code analysis was cancelled", ctx.Err())
}
