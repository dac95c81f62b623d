package funcs

import (
	"context"
	"slices"
	"sort"
	"unsafe"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/disasm"
)

// EdgeKind types a control-flow edge between basic blocks.
type EdgeKind uint8

// The edge kinds.
const (
	EdgeFallThrough   EdgeKind = iota // the next block, no branch (the block was split by a jump target)
	EdgeTaken                         // a conditional branch taken
	EdgeNotTaken                      // a conditional branch not taken
	EdgeUnconditional                 // an unconditional jump
	EdgeSwitch                        // one case of an indirect jump through a jump table
)

func (k EdgeKind) String() string {
	switch k {
	case EdgeTaken:
		return "taken"
	case EdgeNotTaken:
		return "not_taken"
	case EdgeUnconditional:
		return "unconditional"
	case EdgeSwitch:
		return "switch"
	}
	return "fall_through"
}

// Edge goes from the end of one block to the start of another.
type Edge struct {
	To   uint64
	Kind EdgeKind
}

// Block is a basic block.
type Block struct {
	Start, End uint64 // [Start, End)
	Insts      int
	Term       disasm.Kind // how the block ends (Plain when split by a jump target)
	Succs      []Edge
}

// XrefKind types a cross-reference.
type XrefKind uint8

// The cross-reference kinds.
const (
	XrefCall XrefKind = iota // a direct call
	XrefJump                 // a direct jump (conditional or not)
	XrefData                 // an operand naming an address, or a pointer stored in data
)

func (k XrefKind) String() string {
	switch k {
	case XrefCall:
		return "call"
	case XrefJump:
		return "jump"
	}
	return "data"
}

// Xref is a reference from one address to another.
type Xref struct {
	From, To uint64
	Kind     XrefKind
}

// FuncInfo is a function with its blocks and call-graph neighbours.
type FuncInfo struct {
	Function
	Blocks    []Block  // sorted by start; the entry block is the one at Addr
	Callees   []uint64 // functions this one calls or tail-calls, sorted
	Callers   []uint64 // functions that call or tail-call this one, sorted
	Truncated bool     // MaxBlocks or the instruction budget cut the walk
}

// Graph is the result of StageBlocks.
type Graph struct {
	Functions []FuncInfo // sorted by address
	Xrefs     []Xref     // sorted by To, then From
	byFrom    []int32    // indices into Xrefs sorted by From
	Warnings  []string
	bytes     int64 // measure's answer, once the graph is built
}

// Function returns the function starting at addr.
func (g *Graph) Function(addr uint64) (*FuncInfo, bool) {
	i := sort.Search(len(g.Functions), func(i int) bool { return g.Functions[i].Addr >= addr })
	if i < len(g.Functions) && g.Functions[i].Addr == addr {
		return &g.Functions[i], true
	}
	return nil, false
}

// Containing returns the function whose blocks hold addr.
func (g *Graph) Containing(addr uint64) (*FuncInfo, bool) {
	i := sort.Search(len(g.Functions), func(i int) bool { return g.Functions[i].Addr > addr })
	for j := i - 1; j >= 0 && j >= i-64; j-- {
		f := &g.Functions[j]
		for _, b := range f.Blocks {
			if addr >= b.Start && addr < b.End {
				return f, true
			}
		}
	}
	return nil, false
}

// XrefsTo returns the references to addr.
func (g *Graph) XrefsTo(addr uint64) []Xref {
	i := sort.Search(len(g.Xrefs), func(i int) bool { return g.Xrefs[i].To >= addr })
	j := i
	for j < len(g.Xrefs) && g.Xrefs[j].To == addr {
		j++
	}
	return g.Xrefs[i:j:j]
}

// XrefsFrom returns the references made from the instruction (or data
// word) at addr.
func (g *Graph) XrefsFrom(addr uint64) []Xref {
	i := sort.Search(len(g.byFrom), func(i int) bool { return g.Xrefs[g.byFrom[i]].From >= addr })
	var out []Xref
	for ; i < len(g.byFrom) && g.Xrefs[g.byFrom[i]].From == addr; i++ {
		out = append(out, g.Xrefs[g.byFrom[i]])
	}
	return out
}

// XrefsFromFunction returns every reference the instructions of f's
// blocks make, ordered by the referring instruction.
func (g *Graph) XrefsFromFunction(f *FuncInfo) []Xref {
	var out []Xref
	for _, b := range f.Blocks {
		i := sort.Search(len(g.byFrom), func(i int) bool { return g.Xrefs[g.byFrom[i]].From >= b.Start })
		for ; i < len(g.byFrom) && g.Xrefs[g.byFrom[i]].From < b.End; i++ {
			out = append(out, g.Xrefs[g.byFrom[i]])
		}
	}
	return out
}

// Graph runs every stage and returns blocks, cross-references and the
// call graph.
func (a *Analyzer) Graph(ctx context.Context) (*Graph, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.runLocked(ctx, StageBlocks)
	if a.graph == nil {
		return nil, err
	}
	return a.graph, err
}

// internal reports whether a jump from f to t stays inside f.
func (a *Analyzer) internal(f *fn, t uint64) bool {
	if t == f.Addr {
		return true
	}
	if a.starts.has(t) || a.isExcluded(t) || !a.mem.isExec(t) {
		return false
	}
	if f.End != 0 && (t < f.Addr || t >= f.End) {
		return false
	}
	if f.End == 0 && t > f.Addr && a.afterInt3(t) {
		return false
	}
	if e, ok := a.extentOf(t); ok && e.fn != f.Addr && (f.End == 0 || e.Start > f.Addr) {
		return false
	}
	return true
}

// cfgScratch is reused between functions.
type cfgScratch struct {
	insts   map[uint64]disasm.Flow
	leaders map[uint64]bool
	cases   map[uint64][]uint64 // indirect jump -> its table's targets
	addrs   []uint64
	stack   []uint64
}

func newScratch() *cfgScratch {
	return &cfgScratch{insts: map[uint64]disasm.Flow{}, leaders: map[uint64]bool{}, cases: map[uint64][]uint64{}}
}

// cfg builds f's blocks. It calls visit for every instruction in
// address order. Its scratch, and the blocks and edges it keeps, are
// counted in bud as they grow; the walk is cut (truncated) at
// MaxBlocks, at MaxFunctionInstructions, when the instruction budget or
// bud is spent, or when ctx ends. The scratch is given back at the end.
func (a *Analyzer) cfg(ctx context.Context, f *fn, s *cfgScratch, bud *budget.Budget, visit func(pc uint64, fl disasm.Flow)) ([]Block, bool) {
	var scratch int64
	take := func(n int64) bool {
		scratch += n
		return bud.Take(budget.Bytes, n) == nil
	}
	defer func() { bud.Give(budget.Bytes, scratch) }()
	if len(s.insts) > 1<<12 {
		// Clearing a map costs its capacity: after a huge function,
		// start afresh.
		*s = *newScratch()
	}
	clear(s.insts)
	clear(s.leaders)
	clear(s.cases)
	var hist history
	s.stack = append(s.stack[:0], f.Addr)
	s.leaders[f.Addr] = true
	truncated := false
	for len(s.stack) > 0 && !truncated {
		pc := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		hist.resetAt(pc)
		for {
			if _, ok := s.insts[pc]; ok {
				s.leaders[pc] = true
				break
			}
			if pc != f.Addr && a.starts.has(pc) {
				break
			}
			code, _ := a.mem.code(pc)
			if code == nil || a.isExcluded(pc) {
				break
			}
			if len(s.leaders) > a.opts.MaxBlocks || len(s.insts) >= a.opts.MaxFunctionInstructions || !a.budget() ||
				!take(costInst+costLeader) {
				truncated = true
				break
			}
			if len(s.insts)&0x3fff == 0x3fff && ctx.Err() != nil {
				truncated = true
				break
			}
			fl := a.dec.Flow(code, pc)
			if fl.Kind == disasm.Invalid {
				break
			}
			s.insts[pc] = fl
			hist.push(pc, fl)
			if a.arch == disasm.X86_64 {
				hist.noteLea(code, pc)
			}
			next := pc + uint64(fl.Len)
			stop := false
			switch fl.Kind {
			case disasm.IndirectJump:
				if targets := a.jumpTable(f, fl, &hist); len(targets) > 0 {
					s.cases[pc] = targets
					for _, t := range targets {
						s.leaders[t] = true
					}
					s.stack = append(s.stack, targets...)
				}
				stop = !fl.FallThrough
			case disasm.Jump, disasm.CondJump:
				if fl.Kind == disasm.CondJump && fl.HasTarget {
					hist.noteCond(fl.Target, code)
				}
				if fl.HasTarget && a.internal(f, fl.Target) {
					s.leaders[fl.Target] = true
					s.stack = append(s.stack, fl.Target)
				}
				if fl.Kind == disasm.Jump {
					stop = true
				} else {
					s.leaders[next] = true
				}
			case disasm.Call:
				stop = fl.HasTarget && (a.noreturn[fl.Target] || a.neverReturns(fl.Target))
			default:
				stop = !fl.FallThrough
				if !stop && fl.Kind != disasm.Plain && fl.Kind != disasm.IndirectCall {
					s.leaders[next] = true
				}
			}
			if stop {
				break
			}
			pc = next
		}
	}
	s.addrs = s.addrs[:0]
	for pc := range s.insts {
		s.addrs = append(s.addrs, pc)
	}
	slices.Sort(s.addrs)
	var pages *disasm.Pages // two-instruction addresses (arm64 adrp ...), for visit
	if visit != nil {
		pages = disasm.NewPages(a.arch)
	}
	var blocks []Block
	edge := func(b *Block, e Edge) bool {
		if bud.Take(budget.Edges, 1) != nil || bud.Take(budget.Bytes, costEdge) != nil {
			return false
		}
		b.Succs = append(b.Succs, e)
		return true
	}
	for i, pc := range s.addrs {
		if bud.Err() != nil {
			// Spent: what is kept of this function is a block short of
			// its instructions, and the stage stops.
			truncated = true
			break
		}
		fl := s.insts[pc]
		if visit != nil {
			vfl := fl
			if pages != nil {
				code, _ := a.mem.code(pc)
				if ref, ok := pages.Next(code, pc); ok && !vfl.HasRef {
					vfl.HasRef, vfl.Ref = true, ref
				}
			}
			visit(pc, vfl)
		}
		if i == 0 || s.leaders[pc] || blocks[len(blocks)-1].End != pc {
			if bud.Take(budget.Blocks, 1) != nil || bud.Take(budget.Bytes, costBlock) != nil {
				truncated = true
				break
			}
			blocks = append(blocks, Block{Start: pc})
		}
		b := &blocks[len(blocks)-1]
		b.End = pc + uint64(fl.Len)
		b.Insts++
		b.Term = fl.Kind
		next := b.End
		_, nextIn := s.insts[next]
		endsHere := i+1 == len(s.addrs) || s.leaders[next] || !nextIn
		switch fl.Kind {
		case disasm.CondJump:
			if fl.HasTarget && a.internal(f, fl.Target) {
				if _, ok := s.insts[fl.Target]; ok {
					edge(b, Edge{fl.Target, EdgeTaken})
				}
			}
			if nextIn {
				edge(b, Edge{next, EdgeNotTaken})
			}
			endsHere = true
		case disasm.Jump:
			if fl.HasTarget && a.internal(f, fl.Target) {
				if _, ok := s.insts[fl.Target]; ok {
					edge(b, Edge{fl.Target, EdgeUnconditional})
				}
			}
			endsHere = true
		case disasm.IndirectJump:
			for _, t := range s.cases[pc] {
				if _, ok := s.insts[t]; ok {
					edge(b, Edge{t, EdgeSwitch})
				}
			}
			endsHere = true
		case disasm.Call:
			if fl.HasTarget && (a.noreturn[fl.Target] || a.neverReturns(fl.Target)) {
				endsHere = true
				break
			}
			if endsHere && nextIn {
				edge(b, Edge{next, EdgeFallThrough})
			}
		default:
			if !fl.FallThrough {
				endsHere = true
				break
			}
			if endsHere && nextIn {
				edge(b, Edge{next, EdgeFallThrough})
			}
		}
		if endsHere && i+1 < len(s.addrs) && s.addrs[i+1] == next && !s.leaders[next] {
			s.leaders[next] = true // the next instruction starts a block
		}
	}
	return blocks, truncated
}

// blocksStage builds every function's blocks, the cross-references and
// the call graph.
func (a *Analyzer) blocksStage(ctx context.Context) error {
	g := &Graph{}
	s := newScratch()
	if err := a.bud.Take(budget.Bytes, int64(len(a.fns))*(8+costFuncInfo)); err != nil {
		return err
	}
	starts := make([]uint64, 0, len(a.fns))
	for addr := range a.fns {
		starts = append(starts, addr)
	}
	slices.Sort(starts)
	g.Functions = make([]FuncInfo, 0, len(starts))
	// About one instruction in four makes a reference; sizing the slice
	// once saves copying it as it grows.
	n := min(int64(a.opts.MaxXrefs), a.insts/4+1024, a.bud.Left(budget.Bytes)/costXref/2)
	if err := a.bud.Take(budget.Bytes, n*costXref); err != nil {
		return err
	}
	g.Xrefs = make([]Xref, 0, n)
	imm := a.arch.PtrSize() > 2
	xref := func(x Xref) {
		if !a.bud.Try(budget.Xrefs, 1) {
			a.warnings[WarnXrefBudget] = true
			return
		}
		if old := cap(g.Xrefs); len(g.Xrefs) == old {
			g.Xrefs = append(g.Xrefs, x)
			// The stage notices a spent budget at its next check.
			_ = a.bud.Take(budget.Bytes, int64(cap(g.Xrefs)-old)*costXref)
			return
		}
		g.Xrefs = append(g.Xrefs, x)
	}
	var err error
	for i, addr := range starts {
		if i&255 == 0 {
			if err = a.stop(ctx); err != nil {
				break
			}
			a.progress(Progress{Stage: StageBlocks, Done: i, Total: len(starts)})
		}
		f := a.fns[addr]
		blocks, truncated := a.cfg(ctx, f, s, a.bud, func(pc uint64, fl disasm.Flow) {
			if fl.HasTarget {
				k := XrefJump
				if fl.Kind == disasm.Call {
					k = XrefCall
				}
				xref(Xref{pc, fl.Target, k})
			}
			if fl.HasRef && a.mem.mapped(fl.Ref) {
				xref(Xref{pc, fl.Ref, XrefData})
				if v, ok := a.literal(fl); ok {
					xref(Xref{pc, v, XrefData})
				}
			}
			if imm && fl.HasImm && fl.Imm >= 0x10000 && fl.Kind == disasm.Plain && a.mem.mapped(fl.Imm) {
				xref(Xref{pc, fl.Imm, XrefData})
			}
		})
		if truncated {
			a.warnings[WarnBlockBudget] = true
		}
		info := FuncInfo{Function: f.Function, Blocks: blocks, Truncated: truncated}
		info.Sources = append([]Source(nil), f.Sources...)
		if info.End == 0 && len(blocks) > 0 {
			for _, b := range blocks {
				info.End = max(info.End, b.End)
			}
			f.End = info.End
		}
		g.Functions = append(g.Functions, info)
	}
	if err == nil {
		a.dataPointers(ctx, g, xref)
	}
	if lerr := a.bud.Err(); lerr != nil {
		// A hard limit passed: the stage failed and its graph, which
		// holds only part of the file, is let go.
		return lerr
	}
	a.callGraph(g)
	for w := range a.warnings {
		g.Warnings = append(g.Warnings, w)
	}
	slices.Sort(g.Warnings)
	if lerr := a.bud.Err(); lerr != nil {
		return lerr
	}
	g.bytes = g.measure()
	a.graph = g
	if err == nil {
		err = a.stop(ctx)
	}
	return err
}

// literal returns the address a literal-pool load brings into a register
// (A32 code loads every address it uses that way): the 32-bit word at
// fl.Ref, when it is mapped.
func (a *Analyzer) literal(fl disasm.Flow) (uint64, bool) {
	if !fl.Literal {
		return 0, false
	}
	i := a.mem.find(fl.Ref)
	if i < 0 {
		return 0, false
	}
	r := &a.mem.regions[i]
	off := fl.Ref - r.Addr
	if off+4 > uint64(len(r.Data)) {
		return 0, false
	}
	v := uint64(a.byteOrder().Uint32(r.Data[off:]))
	return v, v != 0 && a.mem.mapped(v)
}

// dataPointers records pointers stored in data that point at a known
// function start.
func (a *Analyzer) dataPointers(ctx context.Context, g *Graph, xref func(Xref)) {
	a.eachDataWord(ctx, func(at, v uint64) {
		if a.starts.has(v) {
			xref(Xref{at, v, XrefData})
		}
	})
}

// eachDataWord calls fn with the address and value of every aligned,
// non-zero pointer-sized word of the non-executable regions, until ctx
// ends (checked every 256 KiB); nothing on 8- and 16-bit targets.
func (a *Analyzer) eachDataWord(ctx context.Context, fn func(at, v uint64)) {
	ps := a.arch.PtrSize()
	if ps < 4 {
		return
	}
	order := a.byteOrder()
	for i := range a.mem.regions {
		r := &a.mem.regions[i]
		if r.Exec {
			continue
		}
		for off := 0; off+ps <= len(r.Data); off += ps {
			if off&0x3ffff == 0 && a.stop(ctx) != nil {
				return
			}
			var v uint64
			if ps == 4 {
				v = uint64(order.Uint32(r.Data[off:]))
			} else {
				v = order.Uint64(r.Data[off:])
			}
			if v != 0 {
				fn(r.Addr+uint64(off), v)
			}
		}
	}
}

// callGraph sorts the cross-references and fills callers and callees.
func (a *Analyzer) callGraph(g *Graph) {
	byFrom := make([]int32, len(g.Xrefs))
	slices.SortFunc(g.Xrefs, func(x, y Xref) int {
		switch {
		case x.To != y.To:
			return cmpU64(x.To, y.To)
		case x.From != y.From:
			return cmpU64(x.From, y.From)
		}
		return int(x.Kind) - int(y.Kind)
	})
	for i := range byFrom {
		byFrom[i] = int32(i)
	}
	slices.SortFunc(byFrom, func(x, y int32) int { return cmpU64(g.Xrefs[x].From, g.Xrefs[y].From) })
	g.byFrom = byFrom
	// Each code xref's source function: walk functions and their
	// blocks in address order alongside the xrefs sorted by From.
	type span struct {
		start, end uint64
		fi         int
	}
	nb := 0
	for fi := range g.Functions {
		nb += len(g.Functions[fi].Blocks)
	}
	if a.bud.Take(budget.Bytes, int64(nb)*costSpan) != nil {
		return
	}
	defer a.bud.Give(budget.Bytes, int64(nb)*costSpan)
	spans := make([]span, 0, nb)
	for fi := range g.Functions {
		for _, b := range g.Functions[fi].Blocks {
			spans = append(spans, span{b.Start, b.End, fi})
		}
	}
	slices.SortFunc(spans, func(x, y span) int { return cmpU64(x.start, y.start) })
	j := 0
	for _, xi := range byFrom {
		x := g.Xrefs[xi]
		if x.Kind == XrefData {
			continue
		}
		for j < len(spans) && spans[j].end <= x.From {
			j++
		}
		if j >= len(spans) || spans[j].start > x.From {
			continue
		}
		caller := &g.Functions[spans[j].fi]
		callee, ok := g.Function(x.To)
		if !ok || callee.Addr == caller.Addr && x.Kind == XrefJump {
			continue
		}
		if x.Kind == XrefJump && callee.Addr == x.To && caller.Addr != x.To || x.Kind == XrefCall {
			if a.bud.Take(budget.Bytes, costCallEdge) != nil {
				return
			}
			caller.Callees = append(caller.Callees, callee.Addr)
			callee.Callers = append(callee.Callers, caller.Addr)
		}
	}
	for i := range g.Functions {
		f := &g.Functions[i]
		slices.Sort(f.Callees)
		f.Callees = slices.Compact(f.Callees)
		slices.Sort(f.Callers)
		f.Callers = slices.Compact(f.Callers)
	}
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Bytes estimates the memory g holds: its functions, blocks, edges,
// call-graph lists and cross-references (names share the file's
// strings and are not counted). It is measured once, when the graph is
// built.
func (g *Graph) Bytes() int64 {
	if g == nil {
		return 0
	}
	return g.bytes
}

func (g *Graph) measure() int64 {
	n := int64(cap(g.Functions))*int64(unsafe.Sizeof(FuncInfo{})) +
		int64(cap(g.Xrefs))*int64(unsafe.Sizeof(Xref{})) + int64(cap(g.byFrom))*4
	for i := range g.Functions {
		f := &g.Functions[i]
		n += int64(cap(f.Blocks))*int64(unsafe.Sizeof(Block{})) +
			int64(cap(f.Callees)+cap(f.Callers))*8 + int64(cap(f.Sources))
		for j := range f.Blocks {
			n += int64(cap(f.Blocks[j].Succs)) * int64(unsafe.Sizeof(Edge{}))
		}
	}
	return n
}
