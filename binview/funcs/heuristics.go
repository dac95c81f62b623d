package funcs

import (
	"context"
	"encoding/binary"
	"sort"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/disasm"
)

// Metadata is judged per stretch of code, not per file: a stripped C
// program built without unwind tables still carries the FDEs of the C
// runtime's start-up objects, which cover a few dozen bytes of it. The
// heuristics run wherever descent left code that no metadata accounts
// for, and never inside a function the metadata bounds.

// minUnexplained is the executable code (padding aside) that descent
// must leave unreached, outside every function the metadata bounds,
// before the heuristics run on an image that has metadata.
const minUnexplained = 256

// unexplained reports whether the heuristics have work to do: the image
// has no metadata, or descent left at least minUnexplained bytes of
// code that no walk reached and no metadata bounds.
func (a *Analyzer) unexplained() bool {
	if !a.metadata {
		return true
	}
	n := 0
	for _, ri := range a.mem.exec {
		r := &a.mem.regions[ri]
		bits := a.covered.bits[ri]
		size := len(r.Data)
		for i := bits.nextClear(0, size); i < size; i = bits.nextClear(i+1, size) {
			addr := r.Addr + uint64(i)
			if e, ok := a.extentOf(addr); ok {
				if e.End <= addr || e.End-r.Addr > uint64(size) {
					break
				}
				i = int(e.End-r.Addr) - 1
				continue
			}
			if a.isExcluded(addr) || isPaddingByte(a.arch, r.Data[i]) {
				continue
			}
			if n++; n >= minUnexplained {
				return true
			}
		}
	}
	return false
}

func isPaddingByte(arch disasm.Arch, b byte) bool {
	return b == 0xcc || b == 0x90 || b == 0x00 && (arch == disasm.X86_64 || arch == disasm.X86)
}

// startCall names main: on x86 the start-up code loads its address as
// the first argument of __libc_start_main (lea rdi, [rip+main] or
// mov rdi, main on x86-64; push main on x86) and calls it, directly or
// through the GOT, or tail-jumps to it (musl's _start_c, one call
// down).
func (a *Analyzer) startCall() {
	if a.arch != disasm.X86_64 && a.arch != disasm.X86 {
		return
	}
	for _, e := range a.img.Entries {
		a.startCallFrom(e, 1)
	}
}

func (a *Analyzer) startCallFrom(pc uint64, depth int) bool {
	var arg uint64
	for i := 0; i < 48; i++ {
		code, _ := a.mem.code(pc)
		if code == nil || !a.budget() {
			return false
		}
		fl := a.dec.Flow(code, pc)
		if fl.Kind == disasm.Invalid {
			return false
		}
		if v, ok := firstArgAddr(code, pc, uint64(fl.Len), a.arch == disasm.X86_64); ok {
			arg = v
		}
		switch fl.Kind {
		case disasm.Call, disasm.Jump, disasm.IndirectCall, disasm.IndirectJump:
			if arg != 0 && a.mem.isExec(arg) && !a.isExcluded(arg) {
				a.add(arg, SourceStartCall, "main", 0)
				return true
			}
			if fl.Kind == disasm.Call && fl.HasTarget && depth > 0 {
				return a.startCallFrom(fl.Target, depth-1)
			}
			if fl.Kind != disasm.Call && fl.Kind != disasm.IndirectCall {
				return false
			}
		case disasm.Return, disasm.Trap:
			return false
		}
		pc += uint64(fl.Len)
	}
	return false
}

// firstArgAddr recognises the instructions that put an address in the
// first argument of a call: lea rdi, [rip+d]; mov rdi, imm32;
// mov edi, imm32 (x86-64); push imm32 (x86, the last push before the
// call is the first argument).
func firstArgAddr(code []byte, pc, n uint64, x64 bool) (uint64, bool) {
	switch {
	case x64 && n == 7 && len(code) >= 7 && code[0] == 0x48 && code[1] == 0x8d && code[2] == 0x3d:
		return pc + 7 + uint64(int64(int32(binary.LittleEndian.Uint32(code[3:])))), true
	case x64 && n == 7 && len(code) >= 7 && code[0] == 0x48 && code[1] == 0xc7 && code[2] == 0xc7:
		return uint64(int64(int32(binary.LittleEndian.Uint32(code[3:])))), true
	case x64 && n == 5 && len(code) >= 5 && code[0] == 0xbf:
		return uint64(binary.LittleEndian.Uint32(code[1:])), true
	case !x64 && n == 5 && len(code) >= 5 && code[0] == 0x68:
		return uint64(binary.LittleEndian.Uint32(code[1:])), true
	}
	return 0, false
}

// candidate is a heuristic function start and how much speaks for it.
type candidate struct {
	addr  uint64
	src   Source
	score int
}

// heuristics finds functions in code descent did not reach: first the
// targets of code and data pointers, strongest first, each walked before
// the next is judged (so that the case blocks of a switch, whose table
// holds pointers too, are covered by their function's walk before their
// table's entries come up); then starts in the gaps that remain.
func (a *Analyzer) heuristics(ctx context.Context, drain func() error) error {
	cet := a.cet()
	cands, blocks := a.pointerCandidates(ctx)
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].addr < cands[j].addr
	})
	for i, c := range cands {
		if i&0xff == 0 {
			if err := a.stop(ctx); err != nil {
				return err
			}
		}
		if a.plausibleStart(c.addr, cet) && a.add(c.addr, c.src, "", 0) {
			if err := drain(); err != nil {
				return err
			}
		}
	}
	a.bud.Give(budget.Bytes, 24*int64(len(cands)))
	// The entries of jump tables no walk resolved (a computed goto
	// through a stack slot) are blocks: walk them as such, so that the
	// gap heuristic does not take them for functions.
	for i, t := range blocks {
		if i&0xff == 0 {
			if err := a.stop(ctx); err != nil {
				return err
			}
		}
		if !a.covered.has(t) && !a.starts.has(t) && a.mem.isExec(t) && !a.isExcluded(t) {
			a.walk(ctx, &fn{Function: Function{Addr: t}, block: true}, 1)
		}
	}
	if err := drain(); err != nil {
		return err
	}
	for a.gapFill(ctx, cet) > 0 {
		if err := drain(); err != nil {
			return err
		}
	}
	return nil
}

// pointerCandidates collects the addresses of code that instructions
// take (lea rdi, [rip+f]; mov edi, f) or data holds, scored, and the
// entries of the jump tables found in data (blocks, not functions).
func (a *Analyzer) pointerCandidates(ctx context.Context) (out []candidate, blocks []uint64) {
	seen := map[uint64]int{}
	push := func(t uint64, src Source) {
		if !a.mem.isExec(t) || a.isExcluded(t) || a.starts.has(t) {
			return
		}
		if i, ok := seen[t]; ok {
			if out[i].score < 12 {
				out[i].score++ // more references
			}
			return
		}
		if a.bud.Take(budget.Bytes, 24) != nil {
			return
		}
		seen[t] = len(out)
		out = append(out, candidate{t, src, 2 + a.startScore(t)})
	}
	// Code operands: decode the walked instructions again for their
	// references.
	run := a.dec.Run() // in address order: ARM64's adrp+add pairs count
	for _, ri := range a.mem.exec {
		r := &a.mem.regions[ri]
		bits := a.visited.bits[ri]
		for i := bits.nextSet(0, len(r.Data)); i < len(r.Data); i = bits.nextSet(i+1, len(r.Data)) {
			if !a.budget() {
				return out, nil
			}
			if i&0xffff == 0 && a.stop(ctx) != nil {
				return out, nil
			}
			pc := r.Addr + uint64(i)
			fl := run.Flow(r.Data[i:], pc)
			if fl.HasRef && a.mem.isExec(fl.Ref) {
				push(fl.Ref, SourceCodePointer)
			}
			if fl.HasImm && fl.Imm > 0xfff && a.mem.isExec(fl.Imm) {
				push(fl.Imm, SourceCodePointer)
			}
		}
	}
	// Pointers in data: the loader's relocation targets when the image
	// lists them, else every aligned word that points into code.
	ptrs := a.img.DataPointers
	if len(ptrs) == 0 {
		ptrs = a.dataWords(ctx)
	}
	kept, dropped := a.codeTables(ptrs)
	for _, p := range kept {
		push(p.To, SourceDataPointer)
	}
	for _, p := range dropped {
		blocks = append(blocks, p.To)
	}
	return out, blocks
}

// dataWords returns the aligned pointer-sized words of the non-executable
// regions that point into executable code.
func (a *Analyzer) dataWords(ctx context.Context) []Pointer {
	var out []Pointer
	a.eachDataWord(ctx, func(at, v uint64) {
		if a.mem.isExec(v) && a.bud.Take(budget.Bytes, 16) == nil {
			out = append(out, Pointer{At: at, To: v})
		}
	})
	return out
}

// minTableRun is the length from which a run of adjacent code pointers
// in data is judged as a whole.
const minTableRun = 3

// codeTables drops the pointers of jump tables (switch statements,
// computed gotos) from ps: a run of at least minTableRun adjacent code
// pointers of which fewer than half of the distinct targets look like a
// function's start (startScore) points at blocks, not functions. Arrays
// of function pointers (vtables, dispatch tables) keep theirs.
func (a *Analyzer) codeTables(ps []Pointer) (kept, dropped []Pointer) {
	sort.Slice(ps, func(i, j int) bool { return ps[i].At < ps[j].At })
	step := uint64(a.arch.PtrSize())
	indexed := a.indexedTables()
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && ps[j].At == ps[j-1].At+step {
			j++
		}
		run := ps[i:j]
		for k := range run {
			if indexed[run[k].At] {
				// A jump table starts here: the rest is its.
				dropped = append(dropped, run[k:]...)
				run = run[:k]
				break
			}
		}
		if len(run) >= minTableRun {
			distinct := map[uint64]bool{}
			starts := 0
			for _, p := range run {
				if !distinct[p.To] {
					distinct[p.To] = true
					if a.startScore(p.To) >= 2 {
						starts++
					}
				}
			}
			if 2*starts < len(distinct) {
				dropped = append(dropped, run...)
				i = j
				continue
			}
		}
		kept = append(kept, run...)
		i = j
	}
	return kept, dropped
}

// startScore is what the bytes around t say for a function starting
// there: padding or a return before it (+2), 16-byte alignment (+1), a
// compiler's prologue (+2).
func (a *Analyzer) startScore(t uint64) int {
	s := 0
	if a.afterPadding(t) {
		s += 2
	}
	if t%16 == 0 {
		s++
	}
	if a.prologueAt(t) {
		s += 2
	}
	return s
}

// prologueAt recognises the first instructions compilers give a
// function: on x86-64 endbr64, push rbp; mov rbp, rsp, a push of a
// callee-saved register followed by another or by sub rsp, and sub rsp
// alone; on x86 endbr32, push ebp; mov ebp, esp.
func (a *Analyzer) prologueAt(t uint64) bool {
	c, _ := a.mem.code(t)
	if len(c) < 4 {
		return false
	}
	switch a.arch {
	case disasm.X86_64:
		if c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa {
			return true
		}
		if c[0] == 0x55 && c[1] == 0x48 && c[2] == 0x89 && c[3] == 0xe5 {
			return true
		}
		if c[0] == 0x48 && (c[1] == 0x83 || c[1] == 0x81) && c[2] == 0xec {
			return true
		}
		n := pushCalleeSaved(c)
		if n == 0 {
			return false
		}
		rest := c[n:]
		return pushCalleeSaved(rest) > 0 || len(rest) >= 3 && rest[0] == 0x48 && (rest[1] == 0x83 || rest[1] == 0x81) && rest[2] == 0xec ||
			len(rest) >= 3 && rest[0] == 0x48 && rest[1] == 0x89 && rest[2] == 0xe5
	case disasm.X86:
		return c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfb ||
			c[0] == 0x55 && c[1] == 0x89 && c[2] == 0xe5
	}
	return false
}

// pushCalleeSaved returns the length of a push of rbx, rbp or r12-r15 at
// the start of c, 0 when there is none.
func pushCalleeSaved(c []byte) int {
	switch {
	case len(c) >= 1 && (c[0] == 0x53 || c[0] == 0x55):
		return 1
	case len(c) >= 2 && c[0] == 0x41 && c[1] >= 0x54 && c[1] <= 0x57:
		return 2
	}
	return 0
}

// plausibleStart filters heuristic candidates: executable, not inside
// code already walked or a function the metadata bounds, not a known
// start, with CET an ENDBR, and code that runs cleanly to an end.
func (a *Analyzer) plausibleStart(t uint64, cet bool) bool {
	if !a.mem.isExec(t) || a.isExcluded(t) || a.starts.has(t) || a.covered.has(t) {
		return false
	}
	if e, ok := a.extentOf(t); ok && e.Start != t {
		return false
	}
	if cet && !a.endbrAt(t) {
		return false
	}
	return a.runsToAnEnd(t)
}

// maxProbe bounds the straight-line decoding runsToAnEnd does.
const maxProbe = 4096

// runsToAnEnd decodes straight on from t (past conditional branches)
// and reports whether the code reaches a return, a jump, a trap or a
// call that never returns without a bad instruction and without running
// into code already walked or another function's start. A lone jump
// (a thunk) does not count.
func (a *Analyzer) runsToAnEnd(t uint64) bool {
	pc := t
	for i := 0; i < maxProbe; i++ {
		if pc != t && (a.starts.has(pc) || a.covered.has(pc)) {
			return false
		}
		code, _ := a.mem.code(pc)
		if code == nil || !a.budget() {
			return false
		}
		fl := a.dec.Flow(code, pc)
		switch fl.Kind {
		case disasm.Invalid:
			return false
		case disasm.Return:
			return !fl.FallThrough || i > 0
		case disasm.Jump, disasm.IndirectJump:
			// A jump alone is a thunk or an import stub, not a
			// function the heuristics should name.
			return i > 0
		case disasm.Trap:
			return i > 0
		case disasm.Call:
			if fl.HasTarget && (a.noreturn[fl.Target] || a.neverReturns(fl.Target)) {
				return true
			}
		}
		pc += uint64(fl.Len)
	}
	return false
}

// gapFill is the gap heuristic: in executable bytes no walk reached and
// no metadata bounds, the first instruction after padding or a return
// starts a function (source gap), and so does a compiler's prologue
// anywhere (source prologue), when the code runs cleanly to an end.
func (a *Analyzer) gapFill(ctx context.Context, cet bool) int {
	added := 0
	for _, ri := range a.mem.exec {
		r := &a.mem.regions[ri]
		bits := a.covered.bits[ri]
		n := len(r.Data)
		for i := bits.nextClear(0, n); i < n; i = bits.nextClear(i+1, n) {
			if a.stop(ctx) != nil {
				return added
			}
			if e, ok := a.extentOf(r.Addr + uint64(i)); ok && e.End > r.Addr+uint64(i) {
				// Inside a function the metadata bounds: its walk
				// decides, not the heuristics.
				i = int(min(e.End-r.Addr, uint64(n))) - 1
				continue
			}
			// Skip padding.
			j := i
			for j < n && !bits.has(j) {
				if isPaddingByte(a.arch, r.Data[j]) {
					j++
					continue
				}
				if !a.budget() {
					return added
				}
				fl := a.dec.Flow(r.Data[j:], r.Addr+uint64(j))
				if fl.Nop || fl.Kind == disasm.Trap {
					j += fl.Len
					continue
				}
				break
			}
			if j >= n || bits.has(j) {
				i = j
				continue
			}
			t := r.Addr + uint64(j)
			if f := a.fns[t]; f != nil {
				// A start found meanwhile (the tail call of a function
				// this pass walked): walk it now, or its own bytes
				// would come up as candidates.
				if !f.walked {
					a.walk(ctx, f, 0)
				}
				i = j
				continue
			}
			src := Source("")
			switch {
			case a.prologueAt(t):
				src = SourcePrologue
			case a.afterPadding(t) || j > i || i > 0 && bits.has(i-1) && a.endsFlow(r.Addr+uint64(i)):
				src = SourceGap
			}
			if src != "" && a.plausibleStart(t, cet) && a.add(t, src, "", 0) {
				added++
				a.walk(ctx, a.fns[t], 0)
			}
			// Accepted, its code is now covered; refused, try the next
			// byte.
			i = j
		}
	}
	return added
}

// endsFlow reports whether the walked instruction that ends right before
// t cannot fall through into t: a return, a jump or a trap (at -Os
// compilers put the next function straight after it, with no padding).
func (a *Analyzer) endsFlow(t uint64) bool {
	for n := uint64(1); n <= 15 && n <= t; n++ {
		if !a.visited.has(t - n) {
			continue
		}
		code, _ := a.mem.code(t - n)
		if code == nil {
			return false
		}
		fl := a.dec.Flow(code, t-n)
		return uint64(fl.Len) == n && !fl.FallThrough
	}
	return false
}

// indexedTables finds, by their bytes, the x86 instructions that index a
// table of pointers at a fixed address (jmp [idx*8+T], mov r, [idx*8+T];
// *4 on x86) anywhere in the executable code, and returns the set of
// those T: in a position-dependent program these are switch tables,
// whose entries are blocks. Reading bytes rather than walked code finds
// the tables of functions not found yet.
func (a *Analyzer) indexedTables() map[uint64]bool {
	if a.arch != disasm.X86_64 && a.arch != disasm.X86 {
		return nil
	}
	x64 := a.arch == disasm.X86_64
	scale := byte(3)
	if !x64 {
		scale = 2
	}
	out := map[uint64]bool{}
	for _, ri := range a.mem.exec {
		d := a.mem.regions[ri].Data
		for i := 0; i+7 <= len(d); i++ {
			// jmp [idx*s+disp32] (ff 24 SIB) or mov r, [idx*s+disp32]
			// (8b modrm SIB).
			op, modrm, sib := d[i], d[i+1], d[i+2]
			if !(op == 0xff && modrm == 0x24 || op == 0x8b && modrm&0xc7 == 0x04) {
				continue
			}
			if sib>>6 != scale || sib&7 != 5 || sib>>3&7 == 4 {
				continue
			}
			t := uint64(binary.LittleEndian.Uint32(d[i+3:]))
			if x64 {
				t = uint64(int64(int32(uint32(t))))
			}
			if a.mem.mapped(t) && !a.mem.isExec(t) && a.bud.Take(budget.Bytes, 48) == nil {
				out[t] = true
			}
		}
	}
	return out
}
