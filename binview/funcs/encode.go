package funcs

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"unsafe"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/errcode"
)

// The results of the analysis cross a process boundary (package
// binview/isolate runs the analysis in a worker) in a compact binary
// form: addresses as deltas in varints, strings with their length. The
// decoders trust nothing: every count is checked against the bytes left
// (each element takes at least one byte), orders are checked, and what
// they allocate is counted against a budget as it grows, so a worker
// that lies can make the parent allocate no more than the budget's
// bytes.

const (
	functionsMagic = "funcs-fn/1\n"
	graphMagic     = "funcs-graph/1\n"
)

// errEncoding is the error of a malformed encoding.
var errEncoding = errors.New("funcs: malformed encoding")

// AppendFunctions appends the encoding of fns (sorted by address, as a
// Result has them) to b.
func AppendFunctions(b []byte, fns []Function) []byte {
	b = append(b, functionsMagic...)
	b = binary.AppendUvarint(b, uint64(len(fns)))
	var prev uint64
	for i := range fns {
		b = appendFunction(b, &fns[i], prev)
		prev = fns[i].Addr
	}
	return b
}

func appendFunction(b []byte, f *Function, prev uint64) []byte {
	b = binary.AppendUvarint(b, f.Addr-prev)
	end := uint64(0)
	if f.End > f.Addr {
		end = f.End - f.Addr
	}
	b = binary.AppendUvarint(b, end)
	b = appendString(b, f.Name)
	b = appendString(b, string(f.Source))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f.Confidence))
	h := byte(0)
	if f.Heuristic {
		h = 1
	}
	b = append(b, h)
	b = binary.AppendUvarint(b, uint64(len(f.Sources)))
	for _, s := range f.Sources {
		b = appendString(b, string(s))
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// MarshalBinary encodes the graph: its functions with their blocks,
// edges, callers and callees, its cross-references with their index by
// source, and its warnings.
func (g *Graph) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 64+len(g.Functions)*48+len(g.Xrefs)*8)
	b = append(b, graphMagic...)
	b = binary.AppendUvarint(b, uint64(len(g.Functions)))
	var prev uint64
	for i := range g.Functions {
		fi := &g.Functions[i]
		b = appendFunction(b, &fi.Function, prev)
		prev = fi.Addr
		t := byte(0)
		if fi.Truncated {
			t = 1
		}
		b = append(b, t)
		b = binary.AppendUvarint(b, uint64(len(fi.Blocks)))
		at := fi.Addr
		for _, bl := range fi.Blocks {
			b = binary.AppendVarint(b, int64(bl.Start-at))
			at = bl.Start
			b = binary.AppendUvarint(b, bl.End-bl.Start)
			b = binary.AppendUvarint(b, uint64(bl.Insts))
			b = append(b, byte(bl.Term))
			b = binary.AppendUvarint(b, uint64(len(bl.Succs)))
			for _, e := range bl.Succs {
				b = binary.AppendVarint(b, int64(e.To-bl.Start))
				b = append(b, byte(e.Kind))
			}
		}
		b = appendAddrs(b, fi.Callees)
		b = appendAddrs(b, fi.Callers)
	}
	b = binary.AppendUvarint(b, uint64(len(g.Xrefs)))
	var to uint64
	for _, x := range g.Xrefs {
		b = binary.AppendUvarint(b, x.To-to)
		to = x.To
		b = binary.AppendVarint(b, int64(x.From-x.To))
		b = append(b, byte(x.Kind))
	}
	for _, i := range g.byFrom {
		b = binary.AppendUvarint(b, uint64(i))
	}
	b = binary.AppendUvarint(b, uint64(len(g.Warnings)))
	for _, w := range g.Warnings {
		b = appendString(b, w)
	}
	return b, nil
}

// appendAddrs appends sorted addresses as deltas.
func appendAddrs(b []byte, as []uint64) []byte {
	b = binary.AppendUvarint(b, uint64(len(as)))
	var prev uint64
	for _, a := range as {
		b = binary.AppendUvarint(b, a-prev)
		prev = a
	}
	return b
}

// decoder reads an encoding, counting what it allocates in a budget.
type decoder struct {
	b   []byte
	err error
	bud *budget.Budget
	// sources interns source names; names reuses the strings of known
	// functions.
	sources map[string]Source
	names   map[uint64]string
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errEncoding
	}
}

func (d *decoder) take(n int64) bool {
	if d.err != nil {
		return false
	}
	if err := d.bud.Take(budget.Bytes, n); err != nil {
		d.err = err
		return false
	}
	return true
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// count reads a count of elements that take at least min bytes each,
// and refuses one the bytes left cannot hold.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)/min) {
		d.fail()
		return 0
	}
	return int(n)
}

// bytes reads a length-prefixed run of bytes, without copying.
func (d *decoder) bytes() []byte {
	n := d.count(1)
	if d.err != nil {
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) source() Source {
	s := d.bytes()
	if d.err != nil {
		return ""
	}
	if src, ok := d.sources[string(s)]; ok {
		return src
	}
	if !d.take(int64(len(s)) + 16) {
		return ""
	}
	src := Source(s)
	if len(d.sources) < 256 {
		d.sources[string(src)] = src
	}
	return src
}

func (d *decoder) function(prev uint64) Function {
	var f Function
	f.Addr = prev + d.uvarint()
	if f.Addr < prev {
		d.fail()
	}
	if e := d.uvarint(); e > 0 {
		f.End = f.Addr + e
		if f.End < f.Addr {
			d.fail()
		}
	}
	name := d.bytes()
	if known, ok := d.names[f.Addr]; ok && known == string(name) {
		f.Name = known
	} else if len(name) > 0 && d.take(int64(len(name))) {
		f.Name = string(name)
	}
	f.Source = d.source()
	if len(d.b) < 9 {
		d.fail()
		return f
	}
	f.Confidence = math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	f.Heuristic = d.byte() == 1
	n := d.count(1)
	if n > 0 && d.take(16*int64(n)) {
		f.Sources = make([]Source, n)
		for i := range f.Sources {
			f.Sources[i] = d.source()
		}
	}
	return f
}

func (d *decoder) done() error {
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	if d.err == nil {
		return nil
	}
	if _, ok := budget.IsLimit(d.err); ok {
		return d.err
	}
	return errcode.Wrap("invalid_encoding", "the analysis results are malformed", d.err)
}

func newDecoder(b []byte, magic string, bud *budget.Budget) *decoder {
	d := &decoder{b: b, bud: bud, sources: map[string]Source{}}
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		d.fail()
		return d
	}
	d.b = b[len(magic):]
	return d
}

// DecodeFunctions decodes a function list that AppendFunctions encoded,
// counting what it allocates in bud (analysis_limit past its bytes); a
// malformed encoding is invalid_encoding.
func DecodeFunctions(b []byte, bud *budget.Budget) ([]Function, error) {
	d := newDecoder(b, functionsMagic, bud)
	n := d.count(12)
	var fns []Function
	if d.take(int64(n) * int64(unsafe.Sizeof(Function{}))) {
		fns = make([]Function, 0, n)
	}
	var prev uint64
	for i := 0; i < n && d.err == nil; i++ {
		f := d.function(prev)
		if i > 0 && f.Addr == prev {
			d.fail()
		}
		prev = f.Addr
		fns = append(fns, f)
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	return fns, nil
}

// UnmarshalGraph decodes a graph that MarshalBinary encoded, counting
// what it allocates in bud (analysis_limit past its bytes). Names equal
// to those of known functions at the same address share their strings.
// A malformed encoding, or one whose orders a Graph's lookups could not
// rely on, is invalid_encoding.
func UnmarshalGraph(b []byte, known []Function, bud *budget.Budget) (*Graph, error) {
	d := newDecoder(b, graphMagic, bud)
	d.names = make(map[uint64]string, len(known))
	for i := range known {
		if known[i].Name != "" {
			d.names[known[i].Addr] = known[i].Name
		}
	}
	g := &Graph{}
	n := d.count(14)
	if d.take(int64(n) * costFuncInfo) {
		g.Functions = make([]FuncInfo, 0, n)
	}
	var prev uint64
	for i := 0; i < n && d.err == nil; i++ {
		fi := FuncInfo{Function: d.function(prev)}
		if i > 0 && fi.Addr == prev {
			d.fail()
		}
		prev = fi.Addr
		fi.Truncated = d.byte() == 1
		nb := d.count(5)
		if nb > 0 && d.take(int64(nb)*costBlock) {
			fi.Blocks = make([]Block, nb)
		}
		at := fi.Addr
		for j := 0; j < nb && d.err == nil; j++ {
			bl := &fi.Blocks[j]
			bl.Start = at + uint64(d.varint())
			if j > 0 && bl.Start <= at {
				d.fail()
			}
			at = bl.Start
			bl.End = bl.Start + d.uvarint()
			if bl.End < bl.Start {
				d.fail()
			}
			bl.Insts = int(min(d.uvarint(), math.MaxInt32))
			bl.Term = disasm.Kind(d.byte())
			ns := d.count(2)
			if ns > 0 && d.take(int64(ns)*costEdge) {
				bl.Succs = make([]Edge, ns)
			}
			for k := 0; k < ns && d.err == nil; k++ {
				bl.Succs[k] = Edge{To: bl.Start + uint64(d.varint()), Kind: EdgeKind(d.byte())}
			}
		}
		fi.Callees = d.addrs()
		fi.Callers = d.addrs()
		g.Functions = append(g.Functions, fi)
	}
	nx := d.count(3)
	if d.take(int64(nx) * costXref) {
		g.Xrefs = make([]Xref, nx)
		g.byFrom = make([]int32, nx)
	}
	var to uint64
	for i := 0; i < nx && d.err == nil; i++ {
		x := &g.Xrefs[i]
		x.To = to + d.uvarint()
		if x.To < to {
			d.fail()
		}
		to = x.To
		x.From = x.To + uint64(d.varint())
		x.Kind = XrefKind(d.byte())
		if i > 0 && cmpXref(g.Xrefs[i-1], *x) > 0 {
			d.fail()
		}
	}
	if d.err == nil && nx > 0 {
		seen := make([]bool, nx) // transient: the index must be a permutation
		for i := 0; i < nx && d.err == nil; i++ {
			v := d.uvarint()
			if v >= uint64(nx) || seen[v] {
				d.fail()
				break
			}
			seen[v] = true
			g.byFrom[i] = int32(v)
			if i > 0 && g.Xrefs[g.byFrom[i-1]].From > g.Xrefs[v].From {
				d.fail()
			}
		}
	}
	nw := d.count(1)
	for i := 0; i < nw && d.err == nil; i++ {
		w := d.bytes()
		if d.take(int64(len(w)) + 16) {
			g.Warnings = append(g.Warnings, string(w))
		}
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	g.bytes = g.measure()
	return g, nil
}

func (d *decoder) addrs() []uint64 {
	n := d.count(1)
	if n == 0 || !d.take(8*int64(n)) {
		return nil
	}
	out := make([]uint64, n)
	var prev uint64
	for i := range out {
		v := prev + d.uvarint()
		if i > 0 && v <= prev {
			d.fail()
			return nil
		}
		out[i], prev = v, v
	}
	if !slices.IsSorted(out) {
		d.fail()
	}
	return out
}

func cmpXref(x, y Xref) int {
	switch {
	case x.To != y.To:
		return cmpU64(x.To, y.To)
	case x.From != y.From:
		return cmpU64(x.From, y.From)
	}
	return int(x.Kind) - int(y.Kind)
}
