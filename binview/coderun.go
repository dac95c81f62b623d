package binview

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/warden-mcp/warden/binview/funcs"
	"github.com/warden-mcp/warden/errcode"
)

// CodeRunner runs a view's code analysis somewhere else than the view's
// process: package binview/isolate's runner does it in a worker process
// under memory, CPU and wall-clock limits, so that a file that drives
// the analysis past what the budget foresaw can make only that worker
// die. A view with a CodeRunner (Options.CodeRunner) calls it for the
// function stages and again for the references stage, and keeps the
// results it reports: function lists and the graph, never the analysis's
// working state.
type CodeRunner interface {
	// RunCode runs job's stages up to job.Stage, as RunCode (the
	// function) does, calling report with each update in order on the
	// calling goroutine, and returns why the job stopped early, if it
	// did: analysis_timeout, analysis_cancelled, analysis_limit,
	// analysis_failed (the worker died; its details say why).
	RunCode(ctx context.Context, job CodeJob, report func(CodeUpdate)) error
}

// CodeJob is one run of a view's code analysis.
type CodeJob struct {
	// Data and Analysis are the view's file and its analysis.
	Data     []byte
	Analysis *Analysis
	// Options are the view's options (its Limits and MaxInstructions);
	// CodeRunner is ignored.
	Options Options
	// Stage is CodeFunctions (the metadata and descent stages) or
	// CodeReferences (all three; only the graph is reported, the
	// functions being known).
	Stage CodeStage
	// Known are the functions the view knows: a runner that decodes a
	// graph lets the graph's names share their strings.
	Known []funcs.Function
}

// CodeUpdate is what a run reports as it goes.
type CodeUpdate struct {
	// Progress is the run's advance.
	Progress CodeProgress
	// Stage, when not CodePending, is a stage that ended: Functions
	// (CodeMetadata, CodeFunctions) or Graph (CodeReferences) hold its
	// result, and Warnings the analysis's warnings so far.
	Stage     CodeStage
	Functions []funcs.Function
	Graph     *funcs.Graph
	Warnings  []string
	// Partial marks a stage cut short (its time ran out): the result
	// holds what it found, and the run ends with the reason. A stage
	// stopped by its budget reports nothing.
	Partial bool
}

// progressEvery spaces the progress updates RunCode reports.
const progressEvery = 250 * time.Millisecond

// RunCode runs job in this process and reports as a CodeRunner does: the
// body of an isolated worker. It builds the view from job's file and
// analysis, runs its stages under the job's budget (Options.Limits) and
// Options.CodeTimeout, and reports each stage's result as it ends and
// the progress in between, at most every quarter of a second. It never
// panics: a panic is internal_error.
func RunCode(ctx context.Context, job CodeJob, report func(CodeUpdate)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errcode.Wrap("internal_error", "the code analysis failed", fmt.Errorf("binview: code analysis panic: %v\n%s", r, debug.Stack()))
		}
	}()
	opts := job.Options
	opts.CodeRunner = nil
	v, err := New("", job.Data, job.Analysis, &opts)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, v.o.CodeTimeout)
	defer cancel()
	img, err := v.FuncImage()
	if err != nil {
		return err
	}
	var last time.Time
	var prog CodeProgress
	an, err := funcs.New(img, v.funcOptions(func(p funcs.Progress) {
		prog = codeProgress(p)
		if now := time.Now(); now.Sub(last) >= progressEvery {
			last = now
			report(CodeUpdate{Progress: prog})
		}
	}))
	if err != nil {
		return err
	}
	for _, stage := range []funcs.Stage{funcs.StageMetadata, funcs.StageDescent} {
		res, err := an.Run(ctx, stage)
		if job.Stage < CodeReferences && res != nil && keepPartial(err) {
			report(CodeUpdate{Progress: prog, Stage: codeStage(stage), Functions: res.Functions,
				Warnings: res.Warnings, Partial: err != nil})
		}
		if err != nil {
			return err
		}
	}
	if job.Stage < CodeReferences {
		return nil
	}
	g, err := an.Graph(ctx)
	if g != nil {
		report(CodeUpdate{Progress: prog, Stage: CodeReferences, Graph: g, Warnings: g.Warnings, Partial: err != nil})
	}
	return err
}
