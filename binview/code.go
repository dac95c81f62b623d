package binview

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

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
}

// CodeState is what the code analysis has ready. Its slices and graph
// are shared and must not be modified.
type CodeState struct {
	// Stage is the last stage that finished.
	Stage CodeStage
	// Started reports that the analysis was started; Running that it is
	// still going.
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
	// Err is why the analysis stopped before CodeReferences:
	// analysis_timeout, analysis_cancelled (the view was closed),
	// unsupported_arch, internal_error. Nil otherwise.
	Err error
}

// Finished reports that the analysis ran and stopped, completely or not.
func (s CodeState) Finished() bool { return s.Started && !s.Running }

// codeRun is a view's code analysis: started once, run in the
// background, cancelled by Close.
type codeRun struct {
	mu      sync.Mutex
	state   CodeState
	changed chan struct{} // closed and replaced when the stage or Running changes
	cancel  context.CancelFunc
	closed  bool
}

// codeSlots bounds the code analyses running at once in this process,
// views of every caller together: the others wait their turn (their
// state says Running, stage pending).
var codeSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

// StartCode starts the view's code analysis in the background, once:
// function discovery, then blocks and references, bounded by
// Options.CodeTimeout and Options.MaxInstructions. Later calls, and calls
// after Close, do nothing.
func (v *View) StartCode() {
	c := &v.code
	c.mu.Lock()
	if c.state.Started || c.closed {
		c.mu.Unlock()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), v.o.CodeTimeout)
	c.cancel = cancel
	c.state.Started, c.state.Running = true, true
	c.changedLocked()
	c.mu.Unlock()
	go v.runCode(ctx, cancel)
}

// CodeState returns what the code analysis has ready now, without
// waiting and without starting it.
func (v *View) CodeState() CodeState {
	c := &v.code
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// WaitCode starts the code analysis if needed and waits until stage is
// ready, the analysis stops, or ctx ends, whichever comes first. It
// returns what is ready then, with ctx's error when ctx ended first. A
// caller that must answer promptly waits under a short deadline and
// reports an incomplete answer from the state it gets.
func (v *View) WaitCode(ctx context.Context, stage CodeStage) (CodeState, error) {
	v.StartCode()
	c := &v.code
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

// Close cancels the view's code analysis; what it found stays readable.
// The view's other methods keep working. Close is idempotent.
func (v *View) Close() {
	c := &v.code
	c.mu.Lock()
	c.closed = true
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

func (v *View) runCode(ctx context.Context, cancel context.CancelFunc) {
	c := &v.code
	var err error
	defer func() {
		if r := recover(); r != nil {
			err = errcode.Wrap("internal_error", "the code analysis failed", fmt.Errorf("binview: code analysis panic: %v\n%s", r, debug.Stack()))
		}
		cancel()
		c.mu.Lock()
		c.state.Running = false
		if err != nil && c.state.Stage < CodeReferences {
			c.state.Err = err
		}
		c.changedLocked()
		c.mu.Unlock()
	}()
	select {
	case codeSlots <- struct{}{}:
		defer func() { <-codeSlots }()
	case <-ctx.Done():
		err = codeCtxErr(ctx)
		return
	}
	img, err := v.FuncImage()
	if err != nil {
		return
	}
	an, err := funcs.New(img, &funcs.Options{
		MaxInstructions: v.o.MaxInstructions,
		MaxFunctions:    v.o.MaxFunctions,
		Progress: func(p funcs.Progress) {
			c.mu.Lock()
			c.state.Progress = CodeProgress{Stage: codeStage(p.Stage), Done: p.Done, Total: p.Total,
				Functions: p.Functions, Instructions: p.Instructions}
			c.mu.Unlock()
		},
	})
	if err != nil {
		return
	}
	for _, stage := range []funcs.Stage{funcs.StageMetadata, funcs.StageDescent} {
		var res *funcs.Result
		res, err = an.Run(ctx, stage)
		c.mu.Lock()
		if res != nil {
			c.state.Functions, c.state.Warnings = res.Functions, res.Warnings
		}
		if err == nil {
			c.state.Stage = codeStage(stage)
			c.changedLocked()
		}
		c.mu.Unlock()
		if err != nil {
			return
		}
	}
	g, err := an.Graph(ctx)
	c.mu.Lock()
	if g != nil {
		c.state.Graph, c.state.Warnings = g, g.Warnings
		if err == nil {
			c.state.Stage = CodeReferences
		}
	}
	c.mu.Unlock()
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
