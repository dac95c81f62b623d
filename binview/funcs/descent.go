package funcs

import (
	"bytes"
	"context"

	"github.com/warden-mcp/warden/binview/disasm"
)

// descentStage walks the code from every known start, adding the targets
// of direct calls and tail jumps, then ENDBR landing pads that no walk
// reached, then (when enabled) the heuristics.
func (a *Analyzer) descentStage(ctx context.Context) error {
	a.visited = newAddrSet(a.mem)
	a.covered = newAddrSet(a.mem)
	next := 0
	drain := func() error {
		for ; next < len(a.order); next++ {
			if next&255 == 0 {
				if err := a.stop(ctx); err != nil {
					return err
				}
				a.progress(Progress{Stage: StageDescent, Done: next, Total: len(a.order)})
			}
			f := a.fns[a.order[next]]
			if !f.walked {
				a.walk(ctx, f, 0)
			}
		}
		return a.stop(ctx)
	}
	a.startCall()
	if err := drain(); err != nil {
		return err
	}
	if a.arch == disasm.X86_64 || a.arch == disasm.X86 {
		for {
			if a.endbrScan(ctx) == 0 {
				break
			}
			if err := drain(); err != nil {
				return err
			}
		}
	}
	if a.opts.Heuristics == HeuristicsOn || a.opts.Heuristics == HeuristicsAuto && a.unexplained() {
		if err := a.heuristics(ctx, drain); err != nil {
			return err
		}
	}
	return a.stop(ctx)
}

// walk follows one function's code: fall-through, direct jumps inside
// it, and calls (whose targets become functions). It stops at other
// functions' starts, returns, indirect jumps, traps and bad bytes.
//
// A callee not yet walked is walked first (to a bounded depth), so that a
// call to a function that never returns ends the path: the bytes after it
// are often the next function.
//
// A walk decodes at most MaxFunctionInstructions; a longer function is
// cut, as is every walk once ctx ends or the budget is spent.
func (a *Analyzer) walk(ctx context.Context, f *fn, depth int) {
	f.walked, f.walking = true, true
	defer func() { f.walking = false }()
	stack := []uint64{f.Addr}
	var hist history
	n := 0
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		hist.resetAt(pc)
		for {
			if a.visited.has(pc) {
				// Code another walk decoded: assume it may return.
				// That holds for the function's own first instruction
				// too: another walk that ran on past a call it could
				// not yet judge (a noreturn callee still being walked)
				// decoded it, which says nothing of whether it returns.
				f.returns = true
				break
			}
			if pc != f.Addr && a.starts.has(pc) {
				f.returns = true // falls into the next function
				break
			}
			code, _ := a.mem.code(pc)
			if code == nil || a.isExcluded(pc) {
				break
			}
			if n++; n > a.opts.MaxFunctionInstructions || !a.budget() {
				f.cut = true
				return
			}
			if n&0x3fff == 0 && a.stop(ctx) != nil {
				f.cut = true
				return
			}
			fl := a.dec.Flow(code, pc)
			if fl.Kind == disasm.Invalid {
				break
			}
			a.visited.add(pc)
			a.covered.addRange(pc, fl.Len)
			hist.push(pc, fl)
			if a.arch == disasm.X86_64 {
				hist.noteLea(code, pc)
			}
			stop := false
			switch fl.Kind {
			case disasm.Call:
				if fl.HasTarget {
					if e, ok := a.extentOf(fl.Target); !ok || e.Start == fl.Target {
						// A call into the middle of a function the
						// metadata bounds (Duff's device entries) is
						// not a new function.
						a.add(fl.Target, SourceCall, "", 0)
					}
					if g := a.fns[fl.Target]; g != nil && !g.walked && depth < maxWalkDepth {
						a.walk(ctx, g, depth+1)
					}
					stop = a.noreturn[fl.Target] || a.neverReturns(fl.Target)
				}
			case disasm.Jump:
				if fl.HasTarget {
					if a.tailJump(f, pc, fl) {
						f.returns = true
						if !a.starts.has(fl.Target) && !a.isExcluded(fl.Target) {
							a.add(fl.Target, SourceTailCall, "", 0)
						}
					} else {
						stack = a.jumpTarget(f, fl.Target, stack)
					}
				}
				stop = true
			case disasm.CondJump:
				if fl.HasTarget {
					hist.noteCond(fl.Target, code)
					stack = a.jumpTarget(f, fl.Target, stack)
				}
			case disasm.IndirectJump:
				targets := a.jumpTable(f, fl, &hist)
				if len(targets) == 0 {
					f.returns = true // an indirect tail call, as far as we know
				}
				stack = append(stack, targets...) // at most maxCases each
				stop = !fl.FallThrough
			case disasm.Return:
				f.returns = true
				stop = !fl.FallThrough
			case disasm.Trap:
				stop = true
			}
			if stop {
				break
			}
			pc += uint64(fl.Len)
		}
	}
}

const maxWalkDepth = 32

// neverReturns reports whether t is a function whose walk ended without
// any path that returns or leaves it.
func (a *Analyzer) neverReturns(t uint64) bool {
	g := a.fns[t]
	return g != nil && g.walked && !g.walking && !g.returns && !g.cut
}

// jumpTarget decides whether a direct jump stays in f (the target is
// pushed for walking), enters another function (a tail call), or
// starts a new one.
func (a *Analyzer) jumpTarget(f *fn, t uint64, stack []uint64) []uint64 {
	switch {
	case t == f.Addr:
		return stack
	case a.starts.has(t) || a.isExcluded(t):
		f.returns = true
		return stack
	}
	// With no known end, a jump backwards past the start leaves the
	// function (frame_dummy's jmp register_tm_clones).
	inside := f.End == 0 && t > f.Addr || t >= f.Addr && t < f.End
	if f.End == 0 && t > f.Addr && a.afterInt3(t) {
		// Forwards past int3 padding, which compilers put only between
		// functions: a tail call.
		inside = false
	}
	if e, ok := a.extentOf(t); ok && e.fn != f.Addr {
		// Into the middle of another known function (a cold part
		// jumping back): not a new start.
		if !inside || f.End == 0 {
			return stack
		}
	}
	if inside {
		return append(stack, t)
	}
	f.returns = true
	if f.block || f.End == 0 && (a.covered.has(t) || t%16 != 0 && !a.afterPadding(t)) {
		// A jump back from a function of unknown extent into code
		// already walked, or to a spot no compiler would start a
		// function at: a jump into a cold part, not a tail call.
		return stack
	}
	a.add(t, SourceTailCall, "", 0)
	return stack
}

// endbrScan adds ENDBR64/ENDBR32 instructions that no walk reached and no
// metadata covers: with CET every function whose address is taken starts
// with one. An ENDBR straight after a call is a return point
// (setjmp-like callees), not a function.
func (a *Analyzer) endbrScan(ctx context.Context) int {
	pat := []byte{0xf3, 0x0f, 0x1e, 0xfa}
	if a.arch == disasm.X86 {
		pat[3] = 0xfb
	}
	added := 0
	for _, ri := range a.mem.exec {
		r := &a.mem.regions[ri]
		for off := 0; off < len(r.Data); {
			i := bytes.Index(r.Data[off:], pat)
			if i < 0 {
				break
			}
			off += i
			addr := r.Addr + uint64(off)
			off += len(pat)
			if a.covered.has(addr) || a.starts.has(addr) || a.isExcluded(addr) || afterCall(r.Data, off-len(pat)) {
				continue
			}
			if _, ok := a.extentOf(addr); ok {
				continue
			}
			if a.add(addr, SourceEndBr, "", 0) {
				added++
				if added&0xfff == 0 && a.stop(ctx) != nil {
					return added
				}
			}
		}
	}
	return added
}

// afterCall reports whether the bytes before off end with a call
// instruction (e8 rel32, ff /2 through a register, ff 15 rip-relative).
func afterCall(b []byte, off int) bool {
	return off >= 5 && b[off-5] == 0xe8 ||
		off >= 2 && b[off-2] == 0xff && b[off-1]&0xf8 == 0xd0 ||
		off >= 6 && b[off-6] == 0xff && b[off-5] == 0x15
}

// cet reports whether the image uses indirect-branch tracking: the entry
// point or most functions start with ENDBR.
func (a *Analyzer) cet() bool {
	if a.arch != disasm.X86_64 && a.arch != disasm.X86 {
		return false
	}
	n, with := 0, 0
	for _, f := range a.fns {
		if n >= 64 {
			break
		}
		n++
		if a.endbrAt(f.Addr) {
			with++
		}
	}
	return n > 0 && with*2 >= n
}

func (a *Analyzer) endbrAt(addr uint64) bool {
	code, _ := a.mem.code(addr)
	return len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3]&0xfe == 0xfa
}

// afterPadding reports whether t follows padding or the end of a
// return: on x86 a ret, an int3, a one- or multi-byte nop as compilers
// and assemblers pad with, or four zero bytes (a lone 00 also ends jmp
// rel32 forwards, mov eax, 0 and the like); elsewhere c3, cc, 90 or 00.
func (a *Analyzer) afterPadding(t uint64) bool {
	code, _ := a.mem.code(t - 1)
	if len(code) == 0 {
		return true
	}
	if a.arch != disasm.X86_64 && a.arch != disasm.X86 {
		switch code[0] {
		case 0xc3, 0xcc, 0x90, 0x00:
			return true
		}
		return false
	}
	switch code[0] {
	case 0xc3, 0xcc, 0x90:
		return true
	case 0x00:
	default:
		return false
	}
	for _, nop := range x86Nops {
		if a.bytesBefore(t, nop) {
			return true
		}
	}
	return a.bytesBefore(t, []byte{0, 0, 0, 0})
}

// x86Nops are the tails of the multi-byte nops that end in 00 (longer
// forms add 66 or 2e prefixes in front of the last one).
var x86Nops = [][]byte{
	{0x0f, 0x1f, 0x00},
	{0x0f, 0x1f, 0x40, 0x00},
	{0x0f, 0x1f, 0x44, 0x00, 0x00},
	{0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
	{0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
}

// bytesBefore reports whether the bytes just before t are b.
func (a *Analyzer) bytesBefore(t uint64, b []byte) bool {
	n := uint64(len(b))
	if t < n {
		return false
	}
	code, _ := a.mem.code(t - n)
	return len(code) >= len(b) && string(code[:n]) == string(b)
}

// tailJump recognises, on x86, a forward jump out of a function whose end
// is unknown that jumpTarget would take for a jump inside it: a jump to a
// compiler's prologue that no fall-through reaches (a return, a jump or
// padding before it), or that is the very next instruction (a tail call
// to the function placed next, as at -Os; clang -O0 jumps to the next
// block too, but blocks do not open with a prologue).
func (a *Analyzer) tailJump(f *fn, pc uint64, fl disasm.Flow) bool {
	if a.arch != disasm.X86_64 && a.arch != disasm.X86 || f.End != 0 || f.block {
		return false
	}
	t := fl.Target
	if t <= f.Addr || t < pc || a.covered.has(t) {
		return false
	}
	if _, ok := a.extentOf(t); ok {
		return false
	}
	return a.prologueAt(t) && (t == pc+uint64(fl.Len) || a.afterFlowEnd(t))
}

// afterFlowEnd reports whether the bytes before t end a ret, an int3, a
// jmp (eb rel8 or e9 rel32) or a nop: t is not reached by falling
// through.
func (a *Analyzer) afterFlowEnd(t uint64) bool {
	c, _ := a.mem.code(t - 1)
	if len(c) > 0 && (c[0] == 0xc3 || c[0] == 0xcc) {
		return true
	}
	if t >= 2 {
		if c, _ := a.mem.code(t - 2); len(c) > 0 && c[0] == 0xeb {
			return true
		}
	}
	if t >= 5 {
		if c, _ := a.mem.code(t - 5); len(c) > 0 && c[0] == 0xe9 {
			return true
		}
	}
	return a.afterNop(t)
}

// afterNop reports whether t follows an x86 nop (0x90 or a multi-byte
// form), as compilers pad before an aligned function.
func (a *Analyzer) afterNop(t uint64) bool {
	if a.bytesBefore(t, []byte{0x90}) {
		return true
	}
	for _, nop := range x86Nops {
		if a.bytesBefore(t, nop) {
			return true
		}
	}
	return false
}

func (a *Analyzer) afterInt3(t uint64) bool {
	if a.arch != disasm.X86_64 && a.arch != disasm.X86 {
		return false
	}
	code, _ := a.mem.code(t - 1)
	return len(code) > 0 && code[0] == 0xcc
}
