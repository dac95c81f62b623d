package funcs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/errcode"
)

// Options bound and steer the analysis. The zero value (or nil) gives the
// defaults each field names.
type Options struct {
	// Limits is the analysis's budget (package budget): instructions
	// decoded, functions, blocks, edges and cross-references kept, and
	// the bytes of memory the analysis holds, counted as each grows.
	// Zero fields: the budget's defaults. Past the instruction, function
	// or cross-reference limit the analysis goes on without decoding or
	// keeping more, and says so in a warning; past the block, edge or
	// byte limit the running stage stops with analysis_limit, keeping
	// what it found.
	Limits budget.Limits
	// MaxInstructions, when set, replaces Limits.Instructions.
	MaxInstructions int64
	// MaxFunctions, when set, replaces Limits.Functions.
	MaxFunctions int
	// MaxXrefs, when set, replaces Limits.Xrefs.
	MaxXrefs int
	// MaxBlocks caps the basic blocks of one function: its walk stops
	// there and the function is marked truncated. Zero: 64 Ki.
	MaxBlocks int
	// MaxFunctionInstructions caps the instructions of one function's
	// walk, likewise. Zero: 256 Ki.
	MaxFunctionInstructions int
	// Heuristics chooses when the pointer and gap heuristics run. Zero
	// (HeuristicsAuto): only when the image has no metadata.
	Heuristics Heuristics
	// Progress, when set, is called as each stage advances and when it
	// ends, on the analysing goroutine, with the Analyzer locked: it must
	// not call the Analyzer.
	Progress func(Progress)
}

// Heuristics selects when heuristic discovery runs.
type Heuristics uint8

// The heuristics modes.
const (
	HeuristicsAuto Heuristics = iota // only when there is no call-frame data, hint or symbol table
	HeuristicsOff
	HeuristicsOn
)

// Progress reports a stage's advance.
type Progress struct {
	Stage        Stage
	Done, Total  int   // functions processed of those known (Total may grow)
	Functions    int   // functions known
	Instructions int64 // instructions decoded so far, all stages
	Bytes        int64 // the most memory the analysis held at once so far, as its budget counts it
	Finished     bool  // the stage has ended
}

// Warnings that a Result may carry.
const (
	WarnInstructionBudget = "instruction_budget" // MaxInstructions reached: later code was not decoded
	WarnFunctionBudget    = "function_budget"    // MaxFunctions reached: later starts were dropped
	WarnBlockBudget       = "block_budget"       // some function hit MaxBlocks
	WarnXrefBudget        = "xref_budget"        // MaxXrefs reached
	WarnHeuristic         = "heuristic_functions"
	WarnCFI               = "malformed_cfi" // a call-frame section was malformed; what parsed before the fault is used
)

// Result is the function list after a stage.
type Result struct {
	Stage        Stage
	Functions    []Function // sorted by address
	Instructions int64      // decoded so far, all stages
	// Warnings are codes (Warn*) for anything that makes the list
	// incomplete or less certain.
	Warnings []string
}

// Analyzer runs the stages over one Image. Its methods are safe for
// concurrent use; stages run once and in order, each reusing the last.
type Analyzer struct {
	img  Image
	arch disasm.Arch
	dec  *disasm.Decoder
	mem  *memory
	opts Options
	// bud is the analysis's budget, every stage together; limits are
	// its limits, for the budgets of the graphs drawn from it.
	bud    *budget.Budget
	limits budget.Limits

	mu       sync.Mutex
	stage    Stage
	fns      map[uint64]*fn
	order    []uint64 // function starts in discovery order
	starts   *addrSet
	extents  []extent // known [start, end) of functions from metadata, sorted
	excluded []Range
	names    map[uint64]string // names of excluded targets (PLT stubs)
	noreturn map[uint64]bool
	insts    int64
	warnings map[string]bool
	metadata bool // call-frame data, hints or a symbol table exist
	covered  *addrSet
	visited  *addrSet
	graph    *Graph
}

type fn struct {
	Function
	walked  bool
	walking bool // the walk is in progress (recursion)
	returns bool // some path reaches a return or leaves the function
	cut     bool // the walk stopped on a budget
	block   bool // not a function: a jump table's block, walked for coverage
}

type extent struct {
	Range
	fn uint64
}

// New prepares an analysis of img. The image's byte slices are read, never
// written, and must not change while the Analyzer is in use. An unknown
// architecture gives unsupported_arch; overlapping regions invalid_image.
func New(img *Image, opts *Options) (*Analyzer, error) {
	if img == nil {
		return nil, errcode.New("invalid_image", "no image")
	}
	arch, err := disasm.ParseArch(img.Arch)
	if err != nil {
		return nil, err
	}
	dec, err := disasm.New(arch, nil)
	if err != nil {
		return nil, err
	}
	mem, err := newMemory(img.Regions)
	if err != nil {
		return nil, err
	}
	a := &Analyzer{img: *img, arch: arch, dec: dec, mem: mem, fns: map[uint64]*fn{},
		names: map[uint64]string{}, noreturn: map[uint64]bool{}, warnings: map[string]bool{}}
	if opts != nil {
		a.opts = *opts
	}
	l := a.opts.Limits
	if a.opts.MaxInstructions > 0 {
		l.Instructions = a.opts.MaxInstructions
	}
	if a.opts.MaxFunctions > 0 {
		l.Functions = int64(a.opts.MaxFunctions)
	}
	if a.opts.MaxXrefs > 0 {
		l.Xrefs = int64(a.opts.MaxXrefs)
	}
	a.bud, a.limits = budget.New(l), l.WithDefaults()
	a.opts.MaxInstructions = a.bud.Max(budget.Instructions)
	a.opts.MaxFunctions = int(min(a.bud.Max(budget.Functions), math.MaxInt32))
	a.opts.MaxXrefs = int(min(a.bud.Max(budget.Xrefs), math.MaxInt32))
	if a.opts.MaxBlocks <= 0 {
		a.opts.MaxBlocks = 64 << 10
	}
	if a.opts.MaxFunctionInstructions <= 0 {
		a.opts.MaxFunctionInstructions = 1 << 18
	}
	// The address sets: one bit per executable byte, three of them.
	var execBytes int64
	for _, i := range mem.exec {
		execBytes += int64(len(mem.regions[i].Data))
	}
	if err := a.bud.Take(budget.Bytes, 3*(execBytes/8+8*int64(len(mem.exec)))); err != nil {
		return nil, err
	}
	a.starts = newAddrSet(mem)
	a.excluded = append([]Range(nil), img.Excluded...)
	sort.Slice(a.excluded, func(i, j int) bool { return a.excluded[i].Start < a.excluded[j].Start })
	return a, nil
}

// Arch returns the image's architecture.
func (a *Analyzer) Arch() disasm.Arch { return a.arch }

// Run runs the stages up to and including upTo (those not yet run) and
// returns the function list. A cancelled or expired context stops the
// work: the error's code is analysis_timeout (deadline) or
// analysis_cancelled, and the returned Result holds what was found. A
// stage cut short is not run again: its results stay partial (a new
// Analyzer starts over).
func (a *Analyzer) Run(ctx context.Context, upTo Stage) (*Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.runLocked(ctx, upTo); err != nil {
		return a.resultLocked(), err
	}
	return a.resultLocked(), nil
}

func (a *Analyzer) runLocked(ctx context.Context, upTo Stage) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errcode.Wrap("internal_error", "the analysis failed", fmt.Errorf("funcs: panic: %v\n%s", r, debug.Stack()))
		}
	}()
	for a.stage < upTo {
		next := a.stage + 1
		var err error
		switch next {
		case StageMetadata:
			err = a.metadataStage(ctx)
		case StageDescent:
			err = a.descentStage(ctx)
		case StageBlocks:
			err = a.blocksStage(ctx)
		default:
			return nil
		}
		a.stage = next
		a.progress(Progress{Stage: next, Done: len(a.order), Total: len(a.order), Finished: true})
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *Analyzer) resultLocked() *Result {
	r := &Result{Stage: a.stage, Instructions: a.insts, Functions: make([]Function, 0, len(a.fns))}
	for _, f := range a.fns {
		g := f.Function
		g.Sources = append([]Source(nil), f.Sources...)
		r.Functions = append(r.Functions, g)
	}
	sort.Slice(r.Functions, func(i, j int) bool { return r.Functions[i].Addr < r.Functions[j].Addr })
	for w := range a.warnings {
		r.Warnings = append(r.Warnings, w)
	}
	sort.Strings(r.Warnings)
	return r
}

func (a *Analyzer) progress(p Progress) {
	if a.opts.Progress == nil {
		return
	}
	p.Functions = len(a.fns)
	p.Instructions = a.insts
	p.Bytes = a.bud.Peak(budget.Bytes)
	a.opts.Progress(p)
}

func ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errcode.Wrap("analysis_timeout", "the analysis ran out of time; partial results are returned", err)
	}
	return errcode.Wrap("analysis_cancelled", "the analysis was cancelled; partial results are returned", err)
}

func (a *Analyzer) isExcluded(addr uint64) bool {
	i := sort.Search(len(a.excluded), func(i int) bool { return a.excluded[i].End > addr })
	return i < len(a.excluded) && a.excluded[i].Start <= addr
}

// add records that src found a function at addr. It reports whether the
// function is new.
func (a *Analyzer) add(addr uint64, src Source, name string, size uint64) bool {
	if !a.mem.isExec(addr) || a.isExcluded(addr) {
		return false
	}
	if f, ok := a.fns[addr]; ok {
		if f.Name == "" && name != "" {
			f.Name = name
		}
		if f.End == 0 && size > 0 {
			f.End = addr + size
		}
		for _, s := range f.Sources {
			if s == src {
				return false
			}
		}
		f.Sources = append(f.Sources, src)
		if c := src.Confidence(); c > f.Confidence {
			f.Source, f.Confidence = src, c
		}
		f.Heuristic = f.Heuristic && src.Heuristic()
		return false
	}
	if !a.bud.Try(budget.Functions, 1) {
		a.warnings[WarnFunctionBudget] = true
		return false
	}
	if a.bud.Take(budget.Bytes, costFunction) != nil {
		return false // the stage stops at its next check
	}
	f := &fn{Function: Function{Addr: addr, Name: name, Source: src, Confidence: src.Confidence(),
		Heuristic: src.Heuristic(), Sources: []Source{src}}}
	if size > 0 {
		f.End = addr + size
	}
	a.fns[addr] = f
	a.order = append(a.order, addr)
	a.starts.add(addr)
	if src.Heuristic() {
		a.warnings[WarnHeuristic] = true
	}
	return true
}

// budget takes one instruction from the budget; false when spent.
func (a *Analyzer) budget() bool {
	if !a.bud.Try(budget.Instructions, 1) {
		a.warnings[WarnInstructionBudget] = true
		return false
	}
	a.insts++
	return true
}

// stop returns why the running stage must stop: the context ended
// (analysis_timeout, analysis_cancelled) or a hard limit of the budget
// was passed (analysis_limit).
func (a *Analyzer) stop(ctx context.Context) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return a.bud.Err()
}

// noReturnNames are library functions that never return.
var noReturnNames = map[string]bool{
	"abort": true, "exit": true, "_exit": true, "_Exit": true, "quick_exit": true,
	"__stack_chk_fail": true, "__assert_fail": true, "__assert_perror_fail": true,
	"__fortify_fail": true, "__chk_fail": true, "__libc_fatal": true, "err": true, "errx": true,
	"verr": true, "verrx": true, "longjmp": true, "siglongjmp": true, "_longjmp": true,
	"__longjmp_chk": true, "pthread_exit": true, "__cxa_throw": true, "__cxa_rethrow": true,
	"_Unwind_Resume": true, "__cxa_bad_cast": true, "__cxa_bad_typeid": true,
	"__cxa_call_unexpected": true, "__cxa_pure_virtual": true, "_ZSt9terminatev": true,
	"__libc_start_main": true, "__go_panic": true, "runtime.throw": true, "runtime.gopanic": true,
	"runtime.fatalpanic": true, "runtime.panicIndex": true, "ExitProcess": true,
	"__ubsan_handle_builtin_unreachable": true, "__malloc_assert": true,
}

func isNoReturnName(name string) bool {
	name, _, _ = strings.Cut(name, "@")
	return noReturnNames[name]
}
