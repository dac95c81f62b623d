package funcs

import (
	"context"
	"sort"
	"unsafe"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/errcode"
)

// FuncCFG is one function's control-flow graph with its instructions, for
// display.
type FuncCFG struct {
	Function  Function
	Blocks    []CFGBlock // sorted by address; Blocks[i].Start == Function.Addr for the entry
	Truncated bool
	// MaxOutput bounds the text WriteDOT and WriteSVG make, counted as
	// it grows: past it they fail with analysis_limit. Zero:
	// budget.DefaultOutput.
	MaxOutput int64
}

// MaxDrawnBlocks is the most blocks WriteSVG lays out (its layout costs
// the square of the blocks) and bininspect_function_graph draws.
const MaxDrawnBlocks = 2000

// drawCost is what one decoded instruction counts against the output
// limit: its record and its text, which bounds any drawing of it.
func drawCost(in *disasm.Inst) int64 {
	return int64(unsafe.Sizeof(*in)) + int64(len(in.Mnemonic)+len(in.Operands)+len(in.Text)) + 8*int64(len(in.Targets)+len(in.Refs))
}

// DecodeBlocks decodes the instructions of blocks for display with run,
// reading each instruction's bytes with code (nil past the loaded
// bytes). Each instruction is counted against bud's output limit as it
// is decoded: past it, or when ctx ends, it fails (analysis_limit,
// analysis_timeout) and nothing is returned. A block's per-block and
// per-edge overhead in a drawing is counted too.
func DecodeBlocks(ctx context.Context, blocks []Block, run *disasm.Run, code func(pc uint64) []byte, bud *budget.Budget) ([]CFGBlock, error) {
	out := make([]CFGBlock, 0, len(blocks))
	n := 0
	for _, b := range blocks {
		if err := bud.Take(budget.Output, 128+64*int64(len(b.Succs))); err != nil {
			return nil, err
		}
		cb := CFGBlock{Block: b}
		for pc := b.Start; pc < b.End; {
			if n++; n&0xfff == 0 {
				if err := ctxErr(ctx); err != nil {
					return nil, err
				}
			}
			c := code(pc)
			if len(c) == 0 {
				break
			}
			in := run.Decode(c, pc)
			if in.Len == 0 {
				break
			}
			if err := bud.Take(budget.Output, drawCost(&in)); err != nil {
				return nil, err
			}
			cb.Insts = append(cb.Insts, in)
			pc += uint64(in.Len)
		}
		out = append(out, cb)
	}
	return out, nil
}

// CFGBlock is a basic block and its instructions.
type CFGBlock struct {
	Block
	Insts []disasm.Inst
}

// Lookup returns the function with the given name (first by address when
// several share it), after the stages already run.
func (a *Analyzer) Lookup(name string) (Function, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var best *fn
	for _, f := range a.fns {
		if f.Name == name && (best == nil || f.Addr < best.Addr) {
			best = f
		}
	}
	if best == nil {
		return Function{}, false
	}
	return best.Function, true
}

// FunctionCFG builds the control-flow graph of the function that starts
// at addr, with each instruction's text in the decoder options' syntax
// and symbols. It runs discovery first if needed (function boundaries
// depend on the other functions' starts). An unmapped address gives
// address_unmapped; an address that starts no function,
// function_not_found.
func (a *Analyzer) FunctionCFG(ctx context.Context, addr uint64, opts *disasm.Options) (*FuncCFG, error) {
	dec, err := disasm.New(a.arch, opts)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if err := a.runLocked(ctx, StageDescent); err != nil && a.stage < StageDescent {
		a.mu.Unlock()
		return nil, err
	}
	if !a.mem.mapped(addr) {
		a.mu.Unlock()
		return nil, errcode.New("address_unmapped", "the address is not mapped in the binary")
	}
	f, ok := a.fns[addr]
	if !ok {
		a.mu.Unlock()
		return nil, errcode.New("function_not_found", "no function starts at this address")
	}
	bud := budget.New(a.limits)
	blocks, truncated := a.cfg(ctx, f, newScratch(), bud, nil)
	out := &FuncCFG{Function: f.Function, Truncated: truncated, MaxOutput: bud.Max(budget.Output)}
	out.Function.Sources = append([]Source(nil), f.Sources...)
	// The text is made without the lock, so a symbolizer may call back
	// into the Analyzer.
	a.mu.Unlock()
	if err := bud.Err(); err != nil {
		return nil, err
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].Start < blocks[j].Start })
	cbs, err := DecodeBlocks(ctx, blocks, dec.Run(), func(pc uint64) []byte {
		c, _ := a.mem.code(pc)
		return c
	}, bud)
	if err != nil {
		return nil, err
	}
	out.Blocks = cbs
	if out.Function.End == 0 {
		for _, b := range blocks {
			out.Function.End = max(out.Function.End, b.End)
		}
	}
	return out, nil
}
