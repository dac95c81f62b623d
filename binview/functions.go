package binview

import (
	"context"
	"sort"
	"strconv"
	"sync"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/binview/funcs"
	"github.com/warden-mcp/warden/errcode"
)

// SourceUser is the source of a function a person defined, and of a
// name a person set.
const SourceUser = "user"

// Error codes of the code analysis.
const (
	// CodeFunctionNotFound: no function starts at (or holds) the address.
	CodeFunctionNotFound = "function_not_found"
	// CodeAnalysisIncomplete: the answer needs a stage of the code
	// analysis that has not finished; retry, or use what is ready.
	CodeAnalysisIncomplete = "analysis_incomplete"
)

// Function is a function as listings show it: found by the code
// analysis or defined by a person, and named.
type Function struct {
	Addr uint64 `json:"addr"`
	// End is exclusive; 0 when unknown (before the references stage, for
	// a function no metadata bounds).
	End uint64 `json:"end,omitempty"`
	// Name is the name a person set, else the analysis's (symbol,
	// export, Go's pclntab), else sub_<hex>.
	Name string `json:"name"`
	// Demangled is the C++ or Rust demangled name of a symbol's name.
	Demangled string `json:"demangled,omitempty"`
	// NameSource is "user", "analysis" or "auto" (sub_<hex>).
	NameSource string `json:"nameSource"`
	// Source is what found the start (funcs.Source, or "user").
	Source     string   `json:"source"`
	Confidence float64  `json:"confidence"`
	Heuristic  bool     `json:"heuristic,omitempty"`
	Sources    []string `json:"sources"`
}

// AutoName is the automatic name of a function at addr: sub_<hex>, as
// address expressions accept it.
func AutoName(addr uint64) string { return "sub_" + strconv.FormatUint(addr, 16) }

// fnCache keeps the last named list a view made, for the same state and
// overlay: each listing call would otherwise name every function again.
type fnCache struct {
	mu    sync.Mutex
	stage CodeStage
	n     int
	graph *funcs.Graph
	o     *Overlay
	fns   []Function
}

// Functions merges the analysis's function list in st with the overlay
// (user-defined starts, names a person set) and names each function.
// The result is sorted by address; it is shared (the last one is cached)
// and must not be modified.
func (v *View) Functions(st CodeState, o *Overlay) []Function {
	c := &v.fnCache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fns != nil && c.stage == st.Stage && c.n == len(st.Functions) && c.graph == st.Graph && c.o == o {
		return c.fns
	}
	fns := v.functions(st, o)
	c.stage, c.n, c.graph, c.o, c.fns = st.Stage, len(st.Functions), st.Graph, o, fns
	return fns
}

func (v *View) functions(st CodeState, o *Overlay) []Function {
	found := st.Functions
	user := o.Functions()
	out := make([]Function, 0, len(found)+len(user))
	i, j := 0, 0
	for i < len(found) || j < len(user) {
		switch {
		case j >= len(user) || i < len(found) && found[i].Addr < user[j]:
			out = append(out, v.function(&found[i], o))
			i++
		case i >= len(found) || user[j] < found[i].Addr:
			out = append(out, v.function(&funcs.Function{Addr: user[j], Source: SourceUser, Confidence: 1,
				Sources: []funcs.Source{SourceUser}}, o))
			j++
		default: // both
			f := found[i]
			f.Sources = append(append([]funcs.Source(nil), f.Sources...), SourceUser)
			out = append(out, v.function(&f, o))
			i++
			j++
		}
	}
	if st.Graph != nil {
		// Ends known from the blocks.
		for k := range out {
			if out[k].End == 0 {
				if fi, ok := st.Graph.Function(out[k].Addr); ok {
					out[k].End = fi.End
				}
			}
		}
	}
	return out
}

func (v *View) function(f *funcs.Function, o *Overlay) Function {
	out := Function{Addr: f.Addr, End: f.End, Source: string(f.Source), Confidence: f.Confidence,
		Heuristic: f.Heuristic, Sources: make([]string, len(f.Sources))}
	for k, s := range f.Sources {
		out.Sources[k] = string(s)
	}
	switch n, ok := o.Name(f.Addr); {
	case ok:
		out.Name, out.NameSource = n, SourceUser
	case f.Name != "":
		out.Name, out.NameSource = f.Name, "analysis"
	default:
		out.Name, out.NameSource = AutoName(f.Addr), "auto"
		if s, off, ok := v.SymbolAt(f.Addr); ok && off == 0 && s.Kind == SymFunction {
			out.Name, out.NameSource = s.Name, "analysis"
		}
	}
	if out.NameSource == "analysis" {
		if i, ok := v.symByName[out.Name]; ok && v.syms[i].Addr == f.Addr {
			out.Demangled = v.syms[i].Demangled
		}
	}
	return out
}

// FunctionQuery selects a page of functions: Query's offset, limit,
// address range and case-insensitive text (matched against the name and
// demangled name), and optionally one source.
type FunctionQuery struct {
	Query
	// Source keeps functions that this source found (among all that
	// found each): "symbol", "eh_frame", "pclntab", "call", "user", ...
	Source string
}

// ListFunctions pages fns (sorted by address, as Functions returns them).
func ListFunctions(fns []Function, q FunctionQuery) Page[Function] {
	if q.Source != "" {
		kept := make([]Function, 0, len(fns))
		for _, f := range fns {
			for _, s := range f.Sources {
				if s == q.Source {
					kept = append(kept, f)
					break
				}
			}
		}
		fns = kept
	}
	return paginate(fns, true, q.Query, func(f *Function) uint64 { return f.Addr },
		func(f *Function, n string) bool { return containsFold(f.Name, n) || containsFold(f.Demangled, n) })
}

// FunctionContaining returns the function of fns (sorted by address)
// that starts at addr or, failing that, whose known extent holds it;
// with a graph, one whose blocks hold it.
func FunctionContaining(fns []Function, g *funcs.Graph, addr uint64) (Function, bool) {
	i := sort.Search(len(fns), func(i int) bool { return fns[i].Addr > addr })
	if i > 0 && fns[i-1].Addr == addr {
		return fns[i-1], true
	}
	if g != nil {
		if fi, ok := g.Containing(addr); ok {
			j := sort.Search(len(fns), func(i int) bool { return fns[i].Addr >= fi.Addr })
			if j < len(fns) && fns[j].Addr == fi.Addr {
				return fns[j], true
			}
		}
	}
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		if fns[j].End > addr {
			return fns[j], true
		}
	}
	return Function{}, false
}

// Symbolizer names addresses for disassembly: a name a person set, an
// import's stub or slot, the symbol that holds the address, or the
// function of fns (sorted) that holds it.
func (v *View) Symbolizer(o *Overlay, fns []Function) disasm.Symbolizer {
	imports := make(map[uint64]string)
	for _, im := range v.a.Imports {
		if im.Stub != 0 {
			imports[im.Stub] = im.Name + "@plt"
		}
		if im.Slot != 0 {
			if _, ok := imports[im.Slot]; !ok {
				imports[im.Slot] = im.Name
			}
		}
	}
	return func(addr uint64) (string, uint64, bool) {
		if n, ok := o.Name(addr); ok {
			return n, addr, true
		}
		if !v.Mapped(addr) {
			return "", 0, false
		}
		if n, ok := imports[addr]; ok {
			return n, addr, true
		}
		// A symbol names addresses its size covers, or, without a size,
		// those of its own section: not a number that happens to fall
		// in a gap after it.
		if s, off, ok := v.SymbolAt(addr); ok && (s.Size > 0 && off < s.Size || v.sameSection(s.Addr, addr)) {
			if n, ok := o.Name(s.Addr); ok {
				return n, s.Addr, true
			}
			return s.Name, s.Addr, true
		}
		if f, ok := FunctionContaining(fns, nil, addr); ok {
			return f.Name, f.Addr, true
		}
		return "", 0, false
	}
}

// sameSection reports whether a and b lie in one mapped section.
func (v *View) sameSection(a, b uint64) bool {
	s, ok := v.SectionAt(b)
	return ok && a >= s.Addr && a < s.End()
}

// decoder returns a decoder of the view's architecture.
func (v *View) decoder(opts *disasm.Options) (*disasm.Decoder, error) {
	arch := v.funcArch()
	if arch == "" {
		return nil, errcode.New(CodeUnsupportedArch, "the code of this architecture cannot be disassembled")
	}
	a, err := disasm.ParseArch(arch)
	if err != nil {
		return nil, err
	}
	o := disasm.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Word == nil {
		o.Word = func(addr uint64) (uint32, bool) {
			w, err := v.Read(addr, 4)
			return uint32(w), err == nil
		}
	}
	return disasm.New(a, &o)
}

// Disassemble decodes up to count instructions (at most 1000) linearly
// from addr, stopping early where the loaded file bytes end. An
// unmapped (or zero-fill) addr is address_unmapped.
func (v *View) Disassemble(addr uint64, count int, opts *disasm.Options) ([]disasm.Inst, error) {
	dec, err := v.decoder(opts)
	if err != nil {
		return nil, err
	}
	count = min(max(count, 1), 1000)
	if v.codeAt(addr, 1) == nil {
		return nil, errUnmapped()
	}
	out := make([]disasm.Inst, 0, count)
	run := dec.Run()
	for len(out) < count {
		code := v.codeAt(addr, 16)
		if len(code) == 0 {
			break
		}
		in := run.Decode(code, addr)
		if in.Len == 0 {
			break
		}
		out = append(out, in)
		addr += uint64(in.Len)
	}
	return out, nil
}

// FunctionCFG returns the control-flow graph of the function of st that
// starts at addr, with each block's instructions decoded with opts. It
// needs the references stage: before it (st.Graph nil) the error is
// analysis_incomplete. An address that starts no function is
// function_not_found. The function's Name is the analysis's; callers set
// the display name. The instructions are counted as they are decoded
// against the output limit of the view's budget (Options.Limits), which
// also bounds the graph's DOT and SVG: past it, analysis_limit.
func (v *View) FunctionCFG(st CodeState, addr uint64, opts *disasm.Options) (*funcs.FuncCFG, error) {
	if st.Graph == nil {
		if st.Finished() && st.Err != nil {
			return nil, st.Err
		}
		return nil, errcode.New(CodeAnalysisIncomplete, "the control-flow graph is not ready yet; retry in a moment").
			WithDetail("stage", st.Stage.String())
	}
	fi, ok := st.Graph.Function(addr)
	if !ok {
		return nil, errcode.New(CodeFunctionNotFound, "no function starts at this address")
	}
	dec, err := v.decoder(opts)
	if err != nil {
		return nil, err
	}
	bud := budget.New(v.o.Limits)
	out := &funcs.FuncCFG{Function: fi.Function, Truncated: fi.Truncated, MaxOutput: bud.Max(budget.Output)}
	out.Blocks, err = funcs.DecodeBlocks(context.Background(), fi.Blocks, dec.Run(), func(pc uint64) []byte { return v.codeAt(pc, 16) }, bud)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DisassembleSpans decodes the instructions of spans (a function's
// blocks, in address order) as one listing: it skips skip instructions,
// returns the next count (at most 1000) with text in opts's syntax, and
// counts them all. A span whose End is 0 has no known end: it is read
// linearly until the page is full.
func (v *View) DisassembleSpans(spans []funcs.Range, skip, count int, opts *disasm.Options) (ins []disasm.Inst, total int, err error) {
	dec, err := v.decoder(opts)
	if err != nil {
		return nil, 0, err
	}
	count = min(max(count, 1), 1000)
	run := dec.Run()
	for _, sp := range spans {
		open := sp.End == 0
		for pc := sp.Start; open || pc < sp.End; {
			if open && total >= skip+count {
				return ins, total, nil
			}
			code := v.codeAt(pc, 16)
			if len(code) == 0 {
				break
			}
			var n int
			if total >= skip && len(ins) < count {
				in := run.Decode(code, pc)
				ins = append(ins, in)
				n = in.Len
			} else {
				n = run.Flow(code, pc).Len
			}
			if n <= 0 {
				break
			}
			total++
			pc += uint64(n)
		}
	}
	return ins, total, nil
}

// FunctionGraph returns the control-flow graph of the function of st
// that holds addr, named and symbolised as listings show them (o's names
// first), its instructions in syntax. It is what bininspect_function_graph
// and warden inspect --function draw. Errors are those of FunctionCFG, and
// function_not_found for an address no function holds.
func (v *View) FunctionGraph(st CodeState, o *Overlay, addr uint64, syntax disasm.Syntax) (*funcs.FuncCFG, error) {
	fns := v.Functions(st, o)
	f, ok := FunctionContaining(fns, st.Graph, addr)
	if !ok {
		return nil, errcode.New(CodeFunctionNotFound, "no known function starts at or holds this address")
	}
	cfg, err := v.FunctionCFG(st, f.Addr, &disasm.Options{Syntax: syntax, Symbolizer: v.Symbolizer(o, fns)})
	if err != nil {
		return nil, err
	}
	cfg.Function.Name = f.Name
	return cfg, nil
}
