package funcs

import (
	"context"
	"sort"

	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/errcode"
)

// FuncCFG is one function's control-flow graph with its instructions, for
// display.
type FuncCFG struct {
	Function  Function
	Blocks    []CFGBlock // sorted by address; Blocks[i].Start == Function.Addr for the entry
	Truncated bool
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
	blocks, truncated := a.cfg(f, newScratch(), nil)
	out := &FuncCFG{Function: f.Function, Truncated: truncated}
	out.Function.Sources = append([]Source(nil), f.Sources...)
	// The text is made without the lock, so a symbolizer may call back
	// into the Analyzer.
	a.mu.Unlock()
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].Start < blocks[j].Start })
	run := dec.Run()
	for _, b := range blocks {
		cb := CFGBlock{Block: b}
		for pc := b.Start; pc < b.End; {
			code, _ := a.mem.code(pc)
			in := run.Decode(code, pc)
			if in.Len == 0 {
				break
			}
			cb.Insts = append(cb.Insts, in)
			pc += uint64(in.Len)
		}
		out.Blocks = append(out.Blocks, cb)
	}
	if out.Function.End == 0 {
		for _, b := range blocks {
			out.Function.End = max(out.Function.End, b.End)
		}
	}
	return out, nil
}
