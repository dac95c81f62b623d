package toolset

import (
	"context"
	"encoding/hex"
	"slices"
	"sort"
	"strings"

	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/binview/funcs"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/tool"
)

// The code-analysis tools of the bininspect_ family: functions, their
// blocks, disassembly, cross-references, the call graph and the
// control-flow graph as DOT. They read a view's staged code analysis
// (binview.View.StartCode): a tool that needs a stage that has not
// finished waits briefly, then answers with what is ready and the
// warning analysis_incomplete (or, for a client that supports tasks,
// becomes a task that waits while reporting progress).

// Bounds of the code tools.
const (
	maxDisasmCount    = 1000                 // instructions per page
	maxGraphBlocks    = funcs.MaxDrawnBlocks // blocks drawn by bininspect_function_graph
	maxCallgraphDepth = 8
	maxCallgraphNodes = 1000
)

// FunctionItem is one function of a listing.
type FunctionItem struct {
	Start      string   `json:"start" privacy:"plain" desc:"Entry address (hex)."`
	End        string   `json:"end,omitempty" privacy:"plain" desc:"Address just past the function (hex); absent while unknown."`
	Size       uint64   `json:"size,omitempty"`
	Name       string   `json:"name" privacy:"plain" desc:"A name a person set, else the file's (symbol, export, Go pclntab), else sub_<hex>."`
	Demangled  string   `json:"demangled,omitempty" privacy:"plain"`
	NameSource string   `json:"name_source" privacy:"plain" desc:"user, analysis or auto."`
	Source     string   `json:"source" privacy:"plain" desc:"What found the start: symbol, export, entry, pclntab, pdata, function_starts, eh_frame, debug_frame, init_array, call, tail_call, endbr, user; heuristic sources: code_pointer, data_pointer, gap."`
	Confidence float64  `json:"confidence"`
	Heuristic  bool     `json:"heuristic,omitempty"`
	Sources    []string `json:"sources" privacy:"plain" desc:"Every source that found the start."`
}

func functionItem(f binview.Function) FunctionItem {
	it := FunctionItem{Start: codeHex(f.Addr), End: codeHexOrEmpty(f.End), Name: f.Name, Demangled: f.Demangled,
		NameSource: f.NameSource, Source: f.Source, Confidence: f.Confidence, Heuristic: f.Heuristic, Sources: f.Sources}
	if f.End > f.Addr {
		it.Size = f.End - f.Addr
	}
	return it
}

// FunctionsResult is a page of bininspect_functions.
type FunctionsResult struct {
	Items      []FunctionItem `json:"items"`
	Count      int            `json:"count"`
	Total      int            `json:"total"`
	NextOffset int            `json:"next_offset,omitempty"`
	Truncated  bool           `json:"truncated"`
	Stage      string         `json:"stage" privacy:"plain" desc:"The code-analysis stage the list reflects: metadata, functions or references."`
}

type functionsArgs struct {
	Offset  int           `json:"offset" default:"0" min:"0" max:"100000000" desc:"Items to skip."`
	Limit   int           `json:"limit" default:"100" min:"1" max:"1000" desc:"Page size."`
	Address *tool.Address `json:"address,omitempty" desc:"Only the function starting at this address."`
	Start   *tool.Address `json:"start,omitempty" desc:"Only functions starting at or after this address."`
	End     *tool.Address `json:"end,omitempty" desc:"With start: only functions starting before this address."`
	Length  *tool.IntExpr `json:"length,omitempty" relative:"start" desc:"With start: the range's length in bytes."`
	Query   string        `json:"query,omitempty" maxLength:"256" desc:"Keep functions whose name or demangled name contains this text (case-insensitive)."`
	Source  string        `json:"source,omitempty" maxLength:"32" desc:"Keep functions this source found (symbol, eh_frame, pclntab, pdata, call, user, ...)."`
}

// FunctionInfoResult is what bininspect_function_info says of a function.
type FunctionInfoResult struct {
	Start        string   `json:"start" privacy:"plain" desc:"Entry address (hex)."`
	End          string   `json:"end,omitempty" privacy:"plain" desc:"Address just past the function (hex); absent while unknown."`
	Size         uint64   `json:"size,omitempty"`
	Name         string   `json:"name" privacy:"plain"`
	Demangled    string   `json:"demangled,omitempty" privacy:"plain"`
	NameSource   string   `json:"name_source" privacy:"plain" desc:"user, analysis or auto."`
	Source       string   `json:"source" privacy:"plain"`
	Confidence   float64  `json:"confidence"`
	Heuristic    bool     `json:"heuristic,omitempty"`
	Sources      []string `json:"sources" privacy:"plain"`
	Blocks       int      `json:"blocks" desc:"Basic blocks; 0 until the references stage."`
	Edges        int      `json:"edges"`
	Instructions int      `json:"instructions"`
	Callers      int      `json:"callers"`
	Callees      int      `json:"callees"`
	Truncated    bool     `json:"truncated,omitempty" desc:"A budget cut the function's walk short."`
	GoFile       string   `json:"go_file,omitempty" privacy:"path" desc:"Source file of the entry (Go pclntab)."`
	GoLine       int      `json:"go_line,omitempty"`
	Comment      string   `json:"comment,omitempty" privacy:"plain" desc:"The comment a person set at the entry."`
	Stage        string   `json:"stage" privacy:"plain"`
}

type functionArg struct {
	Function tool.Address `json:"function" desc:"The function: its name (main, sub_401000, a name you set) or any address inside it."`
}

// InstructionItem is one decoded instruction.
type InstructionItem struct {
	Address  string   `json:"address" privacy:"plain"`
	Bytes    string   `json:"bytes" privacy:"plain" desc:"The instruction's bytes, hex. In balanced and strict privacy an instruction decoded from a credential's bytes shows its marker ([REDACTED:<type>]) here, in mnemonic and in text, and no targets."`
	Mnemonic string   `json:"mnemonic" privacy:"plain"`
	Operands string   `json:"operands,omitempty" privacy:"plain"`
	Text     string   `json:"text" privacy:"plain" desc:"Full text in the chosen syntax, operands symbolised, with a trailing comment naming referenced addresses."`
	Kind     string   `json:"kind" privacy:"plain" desc:"Control flow: plain, call, jump, cond_jump, return, indirect_call, indirect_jump, trap, invalid."`
	Targets  []string `json:"targets,omitempty" privacy:"plain"`
	Label    string   `json:"label,omitempty" privacy:"plain" desc:"The name of a function or a person's name that starts here."`
	Comment  string   `json:"comment,omitempty" privacy:"plain" desc:"The comment a person set here."`
}

// DisassembleResult is a page of bininspect_disassemble.
type DisassembleResult struct {
	Items       []InstructionItem `json:"items"`
	Count       int               `json:"count"`
	Total       int               `json:"total,omitempty" desc:"In function mode: the function's instructions."`
	NextOffset  int               `json:"next_offset,omitempty" desc:"In function mode: the offset of the next page, absent when none."`
	Truncated   bool              `json:"truncated"`
	NextAddress string            `json:"next_address,omitempty" privacy:"plain" desc:"In address mode: where the next page starts."`
	Function    string            `json:"function,omitempty" privacy:"plain" desc:"In function mode: the function's name."`
	Syntax      string            `json:"syntax" privacy:"plain"`
}

type disassembleArgs struct {
	Address  *tool.Address `json:"address,omitempty" desc:"Disassemble linearly from this address."`
	Function *tool.Address `json:"function,omitempty" desc:"Or disassemble this function (a name or any address inside it), block by block in address order."`
	Count    int           `json:"count" default:"100" min:"1" max:"1000" desc:"Instructions per page, at most 1000."`
	Offset   int           `json:"offset" default:"0" min:"0" max:"10000000" desc:"In function mode: instructions to skip."`
	Syntax   string        `json:"syntax" default:"intel" enum:"intel,gnu,go" desc:"Assembly syntax (gnu is AT&T on x86)."`
}

// EdgeItem is a control-flow edge.
type EdgeItem struct {
	To   string `json:"to" privacy:"plain"`
	Kind string `json:"kind" privacy:"plain" desc:"fall_through, taken, not_taken, unconditional, switch."`
}

// BlockItem is one basic block.
type BlockItem struct {
	Start        string     `json:"start" privacy:"plain"`
	End          string     `json:"end" privacy:"plain"`
	Instructions int        `json:"instructions"`
	Terminator   string     `json:"terminator" privacy:"plain" desc:"How the block ends: the last instruction's control-flow kind."`
	Successors   []EdgeItem `json:"successors"`
	Predecessors []string   `json:"predecessors" privacy:"plain"`
}

// BasicBlocksResult is a page of bininspect_basic_blocks.
type BasicBlocksResult struct {
	Function   string      `json:"function" privacy:"plain"`
	Start      string      `json:"start" privacy:"plain"`
	Items      []BlockItem `json:"items"`
	Count      int         `json:"count"`
	Total      int         `json:"total"`
	Edges      int         `json:"edges"`
	NextOffset int         `json:"next_offset,omitempty"`
	Truncated  bool        `json:"truncated"`
}

type basicBlocksArgs struct {
	Function tool.Address `json:"function" desc:"The function: its name or any address inside it."`
	Offset   int          `json:"offset" default:"0" min:"0" max:"10000000"`
	Limit    int          `json:"limit" default:"100" min:"1" max:"1000"`
}

// XrefItem is one cross-reference.
type XrefItem struct {
	From         string `json:"from" privacy:"plain"`
	To           string `json:"to" privacy:"plain"`
	Kind         string `json:"kind" privacy:"plain" desc:"call, jump or data."`
	FromFunction string `json:"from_function,omitempty" privacy:"plain" desc:"The function holding the referring instruction."`
	ToName       string `json:"to_name,omitempty" privacy:"plain"`
}

// XrefsResult is a page of bininspect_xrefs.
type XrefsResult struct {
	Address    string     `json:"address" privacy:"plain"`
	Direction  string     `json:"direction" privacy:"plain"`
	Items      []XrefItem `json:"items"`
	Count      int        `json:"count"`
	Total      int        `json:"total"`
	NextOffset int        `json:"next_offset,omitempty"`
	Truncated  bool       `json:"truncated"`
}

type xrefsArgs struct {
	Address   tool.Address `json:"address" desc:"The address referred to (direction to), or the referring instruction or function (direction from)."`
	Direction string       `json:"direction" default:"to" enum:"to,from" desc:"to: what refers to the address; from: what the instruction at the address refers to, or, at a function's start, every reference the function's instructions make."`
	Kind      string       `json:"kind" default:"any" enum:"call,jump,data,any"`
	Offset    int          `json:"offset" default:"0" min:"0" max:"100000000"`
	Limit     int          `json:"limit" default:"100" min:"1" max:"1000"`
}

// CallgraphNode is a function reached in the call graph.
type CallgraphNode struct {
	Address   string `json:"address" privacy:"plain"`
	Name      string `json:"name" privacy:"plain"`
	Depth     int    `json:"depth"`
	Direction string `json:"direction" privacy:"plain" desc:"caller or callee (of the root, at that depth)."`
}

// CallgraphEdge is a call (or tail call) from one function to another.
type CallgraphEdge struct {
	From string `json:"from" privacy:"plain"`
	To   string `json:"to" privacy:"plain"`
}

// CallgraphResult is bininspect_callgraph's answer.
type CallgraphResult struct {
	Function  string          `json:"function" privacy:"plain"`
	Start     string          `json:"start" privacy:"plain"`
	Nodes     []CallgraphNode `json:"nodes"`
	Edges     []CallgraphEdge `json:"edges"`
	Truncated bool            `json:"truncated" desc:"max_nodes cut the walk."`
}

type callgraphArgs struct {
	Function  tool.Address `json:"function" desc:"The root function: its name or any address inside it."`
	Direction string       `json:"direction" default:"both" enum:"callers,callees,both"`
	Depth     int          `json:"depth" default:"2" min:"1" max:"8"`
	MaxNodes  int          `json:"max_nodes" default:"200" min:"1" max:"1000"`
}

// FunctionGraphResult is bininspect_function_graph's answer.
type FunctionGraphResult struct {
	Function  string `json:"function" privacy:"plain"`
	Start     string `json:"start" privacy:"plain"`
	Blocks    int    `json:"blocks"`
	Edges     int    `json:"edges"`
	Truncated bool   `json:"truncated,omitempty" desc:"A budget cut the function's walk short."`
	DOT       string `json:"dot" privacy:"plain" desc:"The control-flow graph in Graphviz DOT: a box per block with its instructions; edges green (taken), red (not taken), blue (jump), grey dashed (fall through), purple (switch case)."`
}

type functionGraphArgs struct {
	Function tool.Address `json:"function" desc:"The function: its name or any address inside it."`
	Syntax   string       `json:"syntax" default:"intel" enum:"intel,gnu,go"`
}

func bininspectAnalysisTools(deps Deps) ([]*tool.Tool, error) {
	c := newCodeTools(deps)
	readOnly := tool.Annotations{ReadOnly: true, Idempotent: true}
	cat := tool.Catalog{Category: "binary", Trust: tool.TrustAuto}
	var tools []*tool.Tool
	add := func(t *tool.Tool, err error) error {
		if err != nil {
			return err
		}
		tools = append(tools, t)
		return nil
	}
	if err := add(tool.New(tool.Def{
		Name:  "bininspect_functions",
		Title: "List functions",
		Description: "List the functions of the open binary, by address: start, end, name and what found each one (source) with a confidence. " +
			"Discovery is metadata first (symbols, exports, entry points, .eh_frame/.pdata/LC_FUNCTION_STARTS, Go's pclntab, so stripped Go binaries keep their names), " +
			"then recursive descent over direct calls and tail jumps; heuristics run only without metadata and are flagged. " +
			"Unnamed functions are sub_<hex>, which address expressions accept; names you set (bininspect_symbol_rename) win. " +
			"Filter by address range, name text or source; page with offset and limit (at most 1000).",
		Annotations: readOnly, Catalog: cat, Scope: tool.ViewScoped, Tasks: tool.TasksOptional,
	}, c.functions)); err != nil {
		return nil, err
	}
	if err := add(tool.New(tool.Def{
		Name:  "bininspect_function_info",
		Title: "Describe a function",
		Description: "Describe one function (by name or any address inside it): bounds, source and confidence, number of basic blocks, edges and instructions, " +
			"caller and callee counts, the Go source file and line of its entry, and your comment at its entry.",
		Annotations: readOnly, Catalog: cat, Scope: tool.ViewScoped, Tasks: tool.TasksOptional,
	}, c.functionInfo)); err != nil {
		return nil, err
	}
	if err := add(tool.New(tool.Def{
		Name:  "bininspect_disassemble",
		Title: "Disassemble",
		Description: "Disassemble from an address (linearly) or a function (its blocks in address order), at most 1000 instructions per page, in intel, gnu (AT&T) or go syntax. " +
			"Operands that name an address are symbolised (function, symbol, import, or a name you set); labels and your comments are shown. " +
			"x86, x86-64, arm64, arm (A32), riscv64, ppc64, s390x and loong64.",
		Annotations: readOnly, Catalog: cat, Scope: tool.ViewScoped, Tasks: tool.TasksOptional,
	}, c.disassemble)); err != nil {
		return nil, err
	}
	if err := add(tool.New(tool.Def{
		Name:        "bininspect_basic_blocks",
		Title:       "Basic blocks of a function",
		Description: "List a function's basic blocks with their control-flow edges (taken, not taken, unconditional, fall-through, switch case) and predecessors.",
		Annotations: readOnly, Catalog: cat, Scope: tool.ViewScoped, Tasks: tool.TasksOptional,
	}, c.basicBlocks)); err != nil {
		return nil, err
	}
	if err := add(tool.New(tool.Def{
		Name:  "bininspect_xrefs",
		Title: "Cross-references",
		Description: "Cross-references to an address (who calls, jumps to or refers to it, including pointers stored in data) or from the instruction at an address. " +
			"Filter by kind (call, jump, data); page with offset and limit.",
		Annotations: readOnly, Catalog: cat, Scope: tool.ViewScoped, Tasks: tool.TasksOptional,
	}, c.xrefs)); err != nil {
		return nil, err
	}
	if err := add(tool.New(tool.Def{
		Name:        "bininspect_callgraph",
		Title:       "Call graph around a function",
		Description: "The callers and callees of a function (direct calls and tail calls), to a bounded depth (at most 8) and node count (at most 1000).",
		Annotations: readOnly, Catalog: cat, Scope: tool.ViewScoped, Tasks: tool.TasksOptional,
	}, c.callgraph)); err != nil {
		return nil, err
	}
	if err := add(tool.New(tool.Def{
		Name:  "bininspect_function_graph",
		Title: "Control-flow graph as DOT",
		Description: "A function's control-flow graph as Graphviz DOT text: one box per basic block with its instructions, typed and coloured edges. " +
			"Render it with dot -Tsvg, or use warden inspect FILE --function NAME --svg out.svg. Functions of more than 2000 blocks are refused (function_too_large), " +
			"and a graph whose text passes the analysis's output limit fails with analysis_limit.",
		Annotations: readOnly, Catalog: cat, Scope: tool.ViewScoped, Tasks: tool.TasksOptional,
	}, c.functionGraph)); err != nil {
		return nil, err
	}
	return tools, nil
}

// functionsOf returns v's functions named with the caller's overlay.
func (c *codeTools) functionsOf(ctx context.Context, call *tool.Call, v *binview.View, st binview.CodeState) ([]binview.Function, *binview.Overlay, *annotation.State) {
	o, ann := c.overlay(ctx, call, v)
	return v.Functions(st, o), o, ann
}

func (c *codeTools) functions(ctx context.Context, call *tool.Call, in functionsArgs) (FunctionsResult, error) {
	v, err := binaryViewOf(call)
	if err != nil {
		return FunctionsResult{}, err
	}
	q := binview.FunctionQuery{Query: binview.Query{Offset: in.Offset, Limit: in.Limit, Text: in.Query}, Source: in.Source}
	if err := codeRange(&q.Query, in.Address, in.Start, in.End, in.Length); err != nil {
		return FunctionsResult{}, err
	}
	st, err := c.codeState(ctx, call, v, binview.CodeFunctions)
	if err != nil {
		return FunctionsResult{}, err
	}
	fns, _, _ := c.functionsOf(ctx, call, v, st)
	if slices.Contains(st.Warnings, funcs.WarnHeuristic) {
		call.Warn("heuristic_functions", "the file has no function metadata: some functions were found by heuristics (source code_pointer, data_pointer or gap) and may be wrong")
	}
	page := binview.ListFunctions(fns, q)
	out := FunctionsResult{Items: make([]FunctionItem, 0, len(page.Items)), Count: len(page.Items), Total: page.Total,
		NextOffset: page.Next, Truncated: page.Truncated, Stage: st.Stage.String()}
	for _, f := range page.Items {
		out.Items = append(out.Items, functionItem(f))
	}
	return out, nil
}

// findFunction returns the function holding addr.
func findFunction(fns []binview.Function, st binview.CodeState, addr uint64) (binview.Function, error) {
	f, ok := binview.FunctionContaining(fns, st.Graph, addr)
	if !ok && st.Stage < binview.CodeFunctions {
		return binview.Function{}, errcode.New(binview.CodeAnalysisIncomplete, "the function list is not complete yet; call again in a moment").
			WithDetail("stage", st.Stage.String())
	}
	if !ok {
		return binview.Function{}, errcode.New(binview.CodeFunctionNotFound, "no known function starts at or holds this address; "+
			"bininspect_function_define declares one").WithDetail("address", codeHex(addr))
	}
	return f, nil
}

func (c *codeTools) functionInfo(ctx context.Context, call *tool.Call, in functionArg) (FunctionInfoResult, error) {
	v, err := binaryViewOf(call)
	if err != nil {
		return FunctionInfoResult{}, err
	}
	st, err := c.codeState(ctx, call, v, binview.CodeReferences)
	if err != nil {
		return FunctionInfoResult{}, err
	}
	fns, _, ann := c.functionsOf(ctx, call, v, st)
	f, err := findFunction(fns, st, uint64(in.Function))
	if err != nil {
		return FunctionInfoResult{}, err
	}
	it := functionItem(f)
	out := FunctionInfoResult{Start: it.Start, End: it.End, Size: it.Size, Name: it.Name, Demangled: it.Demangled,
		NameSource: it.NameSource, Source: it.Source, Confidence: it.Confidence, Heuristic: it.Heuristic, Sources: it.Sources,
		Stage: st.Stage.String()}
	if st.Graph != nil {
		if fi, ok := st.Graph.Function(f.Addr); ok {
			out.Blocks, out.Callers, out.Callees, out.Truncated = len(fi.Blocks), len(fi.Callers), len(fi.Callees), fi.Truncated
			for _, b := range fi.Blocks {
				out.Instructions += b.Insts
				out.Edges += len(b.Succs)
			}
		}
	}
	if g, ok := v.GoFunctionAt(f.Addr); ok && g.Entry == f.Addr {
		out.GoFile, out.GoLine = g.File, g.Line
	}
	if ann != nil {
		if e, ok := ann.Get(annotation.KindComment, f.Addr-v.Analysis().ImageBase); ok {
			out.Comment = e.Text
		}
	}
	return out, nil
}

// instructionItems turns decoded instructions into items, with labels
// and a person's comments.
func instructionItems(ins []disasm.Inst, fns []binview.Function, o *binview.Overlay, ann *annotation.State, base uint64) []InstructionItem {
	out := make([]InstructionItem, 0, len(ins))
	for _, in := range ins {
		it := InstructionItem{Address: codeHex(in.Addr), Bytes: hex.EncodeToString(in.Bytes), Mnemonic: in.Mnemonic,
			Operands: in.Operands, Text: in.Text, Kind: in.Kind.String()}
		for _, t := range in.Targets {
			it.Targets = append(it.Targets, codeHex(t))
		}
		if n, ok := o.Name(in.Addr); ok {
			it.Label = n
		} else if i := sort.Search(len(fns), func(i int) bool { return fns[i].Addr >= in.Addr }); i < len(fns) && fns[i].Addr == in.Addr {
			it.Label = fns[i].Name
		}
		if ann != nil {
			if e, ok := ann.Get(annotation.KindComment, in.Addr-base); ok {
				it.Comment = e.Text
			}
		}
		out = append(out, it)
	}
	return out
}

func (c *codeTools) disassemble(ctx context.Context, call *tool.Call, in disassembleArgs) (DisassembleResult, error) {
	v, err := binaryViewOf(call)
	if err != nil {
		return DisassembleResult{}, err
	}
	if (in.Address == nil) == (in.Function == nil) {
		return DisassembleResult{}, errcode.New("invalid_params", "give address or function, not both")
	}
	syn, err := disasm.ParseSyntax(in.Syntax)
	if err != nil {
		return DisassembleResult{}, err
	}
	count := min(max(in.Count, 1), maxDisasmCount)
	// Linear disassembly needs the function starts only to name
	// targets; a function's listing needs its blocks.
	need := binview.CodeMetadata
	if in.Function != nil {
		need = binview.CodeReferences
	}
	st, err := c.codeState(ctx, call, v, need)
	if err != nil {
		return DisassembleResult{}, err
	}
	fns, o, ann := c.functionsOf(ctx, call, v, st)
	opts := &disasm.Options{Syntax: syn, Symbolizer: v.Symbolizer(o, fns)}
	base := v.Analysis().ImageBase
	out := DisassembleResult{Syntax: syn.String()}
	if in.Address != nil {
		ins, err := v.Disassemble(uint64(*in.Address), count, opts)
		if err != nil {
			return DisassembleResult{}, err
		}
		out.Items = instructionItems(ins, fns, o, ann, base)
		withholdSecretCode(viewPrivacy(call), v, ins, out.Items)
		out.Count = len(out.Items)
		if n := len(ins); n > 0 {
			next := ins[n-1].Addr + uint64(ins[n-1].Len)
			if v.Mapped(next) {
				out.NextAddress, out.Truncated = codeHex(next), true
			}
		}
		return out, nil
	}
	f, err := findFunction(fns, st, uint64(*in.Function))
	if err != nil {
		return DisassembleResult{}, err
	}
	out.Function = f.Name
	// The function's instructions: its blocks in address order, or
	// before the blocks are known, linearly over its known extent.
	var spans []funcs.Range
	if st.Graph != nil {
		if fi, ok := st.Graph.Function(f.Addr); ok {
			for _, b := range fi.Blocks {
				spans = append(spans, funcs.Range{Start: b.Start, End: b.End})
			}
		}
	}
	if spans == nil {
		spans = []funcs.Range{{Start: f.Addr, End: f.End}}
		if f.End == 0 {
			call.Warn(binview.CodeAnalysisIncomplete, "the function's extent is not known yet: this page shows the code from its entry linearly")
		}
	}
	ins, total, err := v.DisassembleSpans(spans, in.Offset, count, opts)
	if err != nil {
		return DisassembleResult{}, err
	}
	out.Items = instructionItems(ins, fns, o, ann, base)
	withholdSecretCode(viewPrivacy(call), v, ins, out.Items)
	out.Count, out.Total = len(out.Items), total
	if in.Offset+len(ins) < total {
		out.Truncated, out.NextOffset = true, in.Offset+len(ins)
	}
	return out, nil
}

func (c *codeTools) graphFunction(ctx context.Context, call *tool.Call, v *binview.View, addr uint64) (binview.Function, *funcs.FuncInfo, []binview.Function, binview.CodeState, error) {
	st, err := c.codeState(ctx, call, v, binview.CodeReferences)
	if err != nil {
		return binview.Function{}, nil, nil, st, err
	}
	fns, _, _ := c.functionsOf(ctx, call, v, st)
	f, err := findFunction(fns, st, addr)
	if err != nil {
		return binview.Function{}, nil, nil, st, err
	}
	if st.Graph == nil {
		return f, nil, fns, st, errcode.New(binview.CodeAnalysisIncomplete, "the blocks of this function are not known yet; call again in a moment").
			WithDetail("stage", st.Stage.String())
	}
	fi, ok := st.Graph.Function(f.Addr)
	if !ok {
		return f, nil, fns, st, errcode.New(binview.CodeAnalysisIncomplete, "the blocks of this function were not analysed (it was defined after the analysis ran, or a budget cut it)")
	}
	return f, fi, fns, st, nil
}

func (c *codeTools) basicBlocks(ctx context.Context, call *tool.Call, in basicBlocksArgs) (BasicBlocksResult, error) {
	v, err := binaryViewOf(call)
	if err != nil {
		return BasicBlocksResult{}, err
	}
	f, fi, _, _, err := c.graphFunction(ctx, call, v, uint64(in.Function))
	if err != nil {
		return BasicBlocksResult{}, err
	}
	preds := map[uint64][]string{}
	edges := 0
	for _, b := range fi.Blocks {
		for _, e := range b.Succs {
			preds[e.To] = append(preds[e.To], codeHex(b.Start))
			edges++
		}
	}
	out := BasicBlocksResult{Function: f.Name, Start: codeHex(f.Addr), Total: len(fi.Blocks), Edges: edges, Items: []BlockItem{}}
	lo := min(in.Offset, len(fi.Blocks))
	hi := min(lo+in.Limit, len(fi.Blocks))
	for _, b := range fi.Blocks[lo:hi] {
		it := BlockItem{Start: codeHex(b.Start), End: codeHex(b.End), Instructions: b.Insts, Terminator: b.Term.String(),
			Successors: []EdgeItem{}, Predecessors: preds[b.Start]}
		if it.Predecessors == nil {
			it.Predecessors = []string{}
		}
		for _, e := range b.Succs {
			it.Successors = append(it.Successors, EdgeItem{To: codeHex(e.To), Kind: e.Kind.String()})
		}
		out.Items = append(out.Items, it)
	}
	out.Count = len(out.Items)
	if hi < len(fi.Blocks) {
		out.Truncated, out.NextOffset = true, hi
	}
	return out, nil
}

func (c *codeTools) xrefs(ctx context.Context, call *tool.Call, in xrefsArgs) (XrefsResult, error) {
	v, err := binaryViewOf(call)
	if err != nil {
		return XrefsResult{}, err
	}
	st, err := c.codeState(ctx, call, v, binview.CodeReferences)
	if err != nil {
		return XrefsResult{}, err
	}
	if st.Graph == nil {
		return XrefsResult{}, errcode.New(binview.CodeAnalysisIncomplete, "cross-references are not known yet; call again in a moment").
			WithDetail("stage", st.Stage.String())
	}
	fns, o, _ := c.functionsOf(ctx, call, v, st)
	addr := uint64(in.Address)
	var xs []funcs.Xref
	if in.Direction == "from" {
		// From a function's start: every reference its instructions
		// make; from any other address, the instruction's own.
		if f, ok := st.Graph.Function(addr); ok {
			xs = st.Graph.XrefsFromFunction(f)
		} else {
			xs = st.Graph.XrefsFrom(addr)
		}
	} else {
		xs = st.Graph.XrefsTo(addr)
	}
	sym := v.Symbolizer(o, fns)
	out := XrefsResult{Address: codeHex(addr), Direction: in.Direction, Items: []XrefItem{}}
	for _, x := range xs {
		if in.Kind != "any" && x.Kind.String() != in.Kind {
			continue
		}
		if out.Total >= in.Offset && len(out.Items) < in.Limit {
			it := XrefItem{From: codeHex(x.From), To: codeHex(x.To), Kind: x.Kind.String()}
			if f, ok := binview.FunctionContaining(fns, st.Graph, x.From); ok {
				it.FromFunction = f.Name
			}
			if n, b, ok := sym(x.To); ok {
				it.ToName = n
				if b != x.To {
					it.ToName += "+0x" + strings.TrimPrefix(codeHex(x.To-b), "0x")
				}
			}
			out.Items = append(out.Items, it)
		}
		out.Total++
	}
	out.Count = len(out.Items)
	if in.Offset+out.Count < out.Total {
		out.Truncated, out.NextOffset = true, in.Offset+out.Count
	}
	return out, nil
}

func (c *codeTools) callgraph(ctx context.Context, call *tool.Call, in callgraphArgs) (CallgraphResult, error) {
	v, err := binaryViewOf(call)
	if err != nil {
		return CallgraphResult{}, err
	}
	f, _, fns, st, err := c.graphFunction(ctx, call, v, uint64(in.Function))
	if err != nil {
		return CallgraphResult{}, err
	}
	name := func(a uint64) string {
		i := sort.Search(len(fns), func(i int) bool { return fns[i].Addr >= a })
		if i < len(fns) && fns[i].Addr == a {
			return fns[i].Name
		}
		return binview.AutoName(a)
	}
	depth := min(max(in.Depth, 1), maxCallgraphDepth)
	maxNodes := min(max(in.MaxNodes, 1), maxCallgraphNodes)
	out := CallgraphResult{Function: f.Name, Start: codeHex(f.Addr), Nodes: []CallgraphNode{}, Edges: []CallgraphEdge{}}
	type edge struct{ from, to uint64 }
	seenEdge := map[edge]bool{}
	walk := func(dir string, next func(*funcs.FuncInfo) []uint64, caller bool) {
		seen := map[uint64]bool{f.Addr: true}
		frontier := []uint64{f.Addr}
		for d := 1; d <= depth && len(frontier) > 0; d++ {
			var nextFrontier []uint64
			for _, a := range frontier {
				fi, ok := st.Graph.Function(a)
				if !ok {
					continue
				}
				for _, b := range next(fi) {
					e := edge{a, b}
					if caller {
						e = edge{b, a}
					}
					if !seen[b] && len(out.Nodes) >= maxNodes {
						out.Truncated = true
						return
					}
					if !seenEdge[e] {
						seenEdge[e] = true
						out.Edges = append(out.Edges, CallgraphEdge{From: codeHex(e.from), To: codeHex(e.to)})
					}
					if seen[b] {
						continue
					}
					seen[b] = true
					out.Nodes = append(out.Nodes, CallgraphNode{Address: codeHex(b), Name: name(b), Depth: d, Direction: dir})
					nextFrontier = append(nextFrontier, b)
				}
			}
			frontier = nextFrontier
		}
	}
	if in.Direction != "callers" {
		walk("callee", func(fi *funcs.FuncInfo) []uint64 { return fi.Callees }, false)
	}
	if in.Direction != "callees" {
		walk("caller", func(fi *funcs.FuncInfo) []uint64 { return fi.Callers }, true)
	}
	return out, nil
}

func (c *codeTools) functionGraph(ctx context.Context, call *tool.Call, in functionGraphArgs) (FunctionGraphResult, error) {
	v, err := binaryViewOf(call)
	if err != nil {
		return FunctionGraphResult{}, err
	}
	syn, err := disasm.ParseSyntax(in.Syntax)
	if err != nil {
		return FunctionGraphResult{}, err
	}
	f, fi, _, st, err := c.graphFunction(ctx, call, v, uint64(in.Function))
	if err != nil {
		return FunctionGraphResult{}, err
	}
	if len(fi.Blocks) > maxGraphBlocks {
		return FunctionGraphResult{}, errcode.New("function_too_large", "the function has more blocks than a graph shows; list them with bininspect_basic_blocks").
			WithDetail("blocks", len(fi.Blocks)).WithDetail("maxBlocks", maxGraphBlocks)
	}
	o, _ := c.overlay(ctx, call, v)
	cfg, err := v.FunctionGraph(st, o, f.Addr, syn)
	if err != nil {
		return FunctionGraphResult{}, err
	}
	var dot strings.Builder
	if err := cfg.WriteDOT(&dot); err != nil {
		return FunctionGraphResult{}, err
	}
	out := FunctionGraphResult{Function: f.Name, Start: codeHex(f.Addr), Blocks: len(cfg.Blocks), Truncated: cfg.Truncated, DOT: dot.String()}
	for _, b := range cfg.Blocks {
		out.Edges += len(b.Succs)
	}
	return out, nil
}
