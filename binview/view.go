package binview

import (
	"context"
	"fmt"
	"path"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/tool/addrexpr"
)

// View is an immutable analysis of one file: its bytes and its
// Analysis, with indexes for lookups by address and by name. What it
// derives on demand (strings, the code analysis of StartCode) is computed
// once and never changes after. Every method is safe for concurrent use.
// Slices a View returns are shared: callers must not modify them.
type View struct {
	name string
	data []byte
	a    *Analysis
	o    Options

	regions []region
	// syms are the Analysis symbols merged with the Go functions, by
	// address.
	syms      []Symbol
	symByName map[string]int32
	// demangled maps demangled names (and their forms without a
	// parameter list) to a symbol index, or -1 when ambiguous.
	demangled map[string]int32
	impByName map[string]int32
	secByName map[string]int32
	// symAt are the indexes of symbols that may own an address
	// (functions and objects), sorted by address.
	symAt []int32

	strOnce   sync.Once
	strDone   atomic.Bool
	strs      []String
	strsTrunc bool

	// code is the code analysis, started on demand (StartCode).
	code codeRun
	// fnCache is the last named function list.
	fnCache fnCache
}

// region is a mapped range of addresses, the first fileSize bytes of
// which come from the file at off.
type region struct {
	addr, size uint64
	off        int64
	fileSize   int64
	perm       Perm
	name       string
}

func (r *region) end() uint64 { return r.addr + r.size }

var _ addrexpr.Target = (*View)(nil)

// Open analyses data in process and returns its View: Analyze followed
// by New. name is the file's name; only its last element is kept.
func Open(ctx context.Context, name string, data []byte, opts *Options) (*View, error) {
	a, err := Analyze(ctx, data, opts)
	if err != nil {
		return nil, err
	}
	return New(name, data, a, opts)
}

// New builds a View over data from an Analysis of the same bytes
// (from Analyze, or decoded with UnmarshalAnalysis), without parsing
// the file again. It refuses an Analysis of another engine version or
// of bytes of another length (invalid_snapshot). data and a are
// retained and must not be modified. opts supplies the read and string
// limits; nil means the defaults.
func New(name string, data []byte, a *Analysis, opts *Options) (v *View, err error) {
	// Indexing trusts nothing it was given: a fault in it refuses the
	// file rather than crash the caller.
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, errAnalysisFailed(fmt.Errorf("index: panic: %v\n%s", r, debug.Stack()))
		}
	}()
	if a == nil || a.Version != EngineVersion {
		return nil, errcode.New(CodeInvalidSnapshot, "the analysis is missing or from another engine version")
	}
	if a.FileSize != int64(len(data)) {
		return nil, errcode.New(CodeInvalidSnapshot, "the analysis does not match the file")
	}
	if err := a.validate(); err != nil {
		return nil, err
	}
	v = &View{name: baseName(name), data: data, a: a, o: opts.withDefaults()}
	v.index()
	return v, nil
}

// baseName keeps the last element of a slash or backslash path.
func baseName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	b := path.Base(name)
	if b == "." || b == "/" {
		return ""
	}
	return b
}

func (v *View) index() {
	a := v.a
	for _, s := range a.Segments {
		if s.Size > 0 {
			v.regions = append(v.regions, region{addr: s.Addr, size: s.Size, off: s.Offset, fileSize: s.FileSize, perm: s.Perm, name: s.Name})
		}
	}
	if len(v.regions) == 0 {
		for _, s := range a.Sections {
			if s.Mapped && s.Size > 0 {
				v.regions = append(v.regions, region{addr: s.Addr, size: s.Size, off: s.Offset, fileSize: s.FileSize, perm: s.Perm, name: s.Name})
			}
		}
	}
	sort.SliceStable(v.regions, func(i, j int) bool { return v.regions[i].addr < v.regions[j].addr })

	v.syms = mergeGoSymbols(a.Symbols, a.GoFunctions)
	v.symByName = make(map[string]int32, len(v.syms))
	v.demangled = make(map[string]int32)
	for i, s := range v.syms {
		if j, ok := v.symByName[s.Name]; !ok || betterSymbol(s, v.syms[j]) {
			v.symByName[s.Name] = int32(i)
		}
		if s.Kind == SymFunction || s.Kind == SymObject || s.Kind == SymTLS || s.Kind == SymOther {
			v.symAt = append(v.symAt, int32(i))
		}
		if s.Demangled != "" {
			v.addDemangled(s.Demangled, int32(i))
			if short := stripParams(s.Demangled); short != s.Demangled {
				v.addDemangled(short, int32(i))
			}
		}
	}
	v.impByName = make(map[string]int32, len(a.Imports))
	for i, im := range a.Imports {
		if _, ok := v.impByName[im.Name]; !ok && im.Addr() != 0 {
			v.impByName[im.Name] = int32(i)
		}
	}
	v.secByName = make(map[string]int32, len(a.Sections))
	for i, s := range a.Sections {
		if !s.Mapped {
			continue
		}
		for _, n := range []string{s.Name, s.FullName()} {
			if _, ok := v.secByName[n]; !ok {
				v.secByName[n] = int32(i)
			}
		}
	}
}

// mergeGoSymbols adds a symbol for every Go function that the symbol
// tables do not already name at the same address. Both lists are sorted
// by address, and so is the result.
func mergeGoSymbols(syms []Symbol, fns []GoFunction) []Symbol {
	if len(fns) == 0 {
		return syms
	}
	have := make(map[symKey]struct{}, len(syms))
	for _, s := range syms {
		if s.Kind == SymFunction {
			have[symKey{s.Name, s.Addr}] = struct{}{}
		}
	}
	out := make([]Symbol, 0, len(syms)+len(fns))
	i := 0
	for _, f := range fns {
		if _, ok := have[symKey{f.Name, f.Entry}]; ok {
			continue
		}
		for i < len(syms) && syms[i].Addr <= f.Entry {
			out = append(out, syms[i])
			i++
		}
		out = append(out, Symbol{Name: f.Name, Addr: f.Entry, Size: f.End - f.Entry, Kind: SymFunction, Source: "pclntab"})
	}
	return append(out, syms[i:]...)
}

func (v *View) addDemangled(name string, i int32) {
	if j, ok := v.demangled[name]; ok {
		// -1 marks a name already known to be ambiguous: it stays so,
		// and is never an index.
		if j >= 0 && j != i && v.syms[j].Addr != v.syms[i].Addr {
			v.demangled[name] = -1
		}
		return
	}
	v.demangled[name] = i
}

// betterSymbol prefers functions and global symbols for a name that
// several symbols share.
func betterSymbol(s, old Symbol) bool {
	rank := func(x Symbol) int {
		r := 0
		if x.Kind == SymFunction {
			r += 2
		}
		if x.Binding == "global" {
			r++
		}
		return r
	}
	return rank(s) > rank(old)
}

// stripParams drops a demangled name's trailing parameter list:
// "ns::f(int) const" becomes "ns::f".
func stripParams(d string) string {
	depth := 0
	for i := 0; i < len(d); i++ {
		switch d[i] {
		case '<':
			depth++
		case '>':
			depth--
		case '(':
			if depth == 0 && i > 0 {
				return d[:i]
			}
		}
	}
	return d
}

// ViewName returns the file's name, never a path.
func (v *View) ViewName() string { return v.name }

// BinaryView returns v. A server's view type that embeds *View gets it
// too, so a tool handler finds the binary behind any such view with
//
//	bv, ok := view.(interface{ BinaryView() *binview.View })
func (v *View) BinaryView() *View { return v }

// Analysis returns the snapshot the view was built from. It must not be
// modified.
func (v *View) Analysis() *Analysis { return v.a }

// Data returns the file's bytes. They must not be modified.
func (v *View) Data() []byte { return v.data }

// Size is the file's length in bytes.
func (v *View) Size() int64 { return int64(len(v.data)) }

// Accessors for the Analysis lists; the slices are shared and sorted as
// Analysis documents.
func (v *View) Segments() []Segment           { return v.a.Segments }
func (v *View) Sections() []Section           { return v.a.Sections }
func (v *View) Symbols() []Symbol             { return v.syms }
func (v *View) Imports() []Import             { return v.a.Imports }
func (v *View) Exports() []Export             { return v.a.Exports }
func (v *View) Relocations() []Relocation     { return v.a.Relocations }
func (v *View) Entries() []EntryPoint         { return v.a.Entries }
func (v *View) Libraries() []string           { return v.a.Libraries }
func (v *View) GoFunctions() []GoFunction     { return v.a.GoFunctions }
func (v *View) FunctionHints() []FunctionHint { return v.a.Hints }
func (v *View) BuildInfo() BuildInfo          { return v.a.Build }
func (v *View) Hardening() []Check            { return v.a.Hardening }
func (v *View) Toolchain() Toolchain          { return v.a.Toolchain }
func (v *View) Hashes() Hashes                { return v.a.Hashes }
func (v *View) Warnings() []Warning           { return v.a.Warnings }

// regionAt returns the mapped region holding addr.
func (v *View) regionAt(addr uint64) (*region, bool) {
	i := sort.Search(len(v.regions), func(i int) bool { return v.regions[i].addr > addr })
	// Regions may overlap (ELF segments rarely do): look back a little.
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		r := &v.regions[j]
		if addr >= r.addr && addr-r.addr < r.size {
			return r, true
		}
	}
	return nil, false
}

// Mapped reports whether addr lies in a mapped segment.
func (v *View) Mapped(addr uint64) bool {
	_, ok := v.regionAt(addr)
	return ok
}

// OffsetOf maps an address to its file offset; ok is false for an
// unmapped address or one in zero-fill memory (.bss).
func (v *View) OffsetOf(addr uint64) (off int64, ok bool) {
	r, ok := v.regionAt(addr)
	if !ok || addr-r.addr >= uint64(r.fileSize) {
		return 0, false
	}
	return r.off + int64(addr-r.addr), true
}

// AddrOf maps a file offset to the address it loads at; ok is false
// for a byte that is not loaded (headers of some formats, overlays,
// symbol tables).
func (v *View) AddrOf(off int64) (addr uint64, ok bool) {
	for i := range v.regions {
		r := &v.regions[i]
		if off >= r.off && off-r.off < r.fileSize {
			return r.addr + uint64(off-r.off), true
		}
	}
	return 0, false
}

// Bytes reads up to n bytes of memory at addr, as the file would be
// loaded: bytes from the file, zeros for zero-fill memory. The read
// continues across adjacent segments and stops at the first unmapped
// byte, so it may return fewer than n bytes: callers report that as a
// partial read. An unmapped addr is address_unmapped; n above
// Options.MaxReadSize is read_too_large. The result is a copy.
func (v *View) Bytes(addr uint64, n int) ([]byte, error) {
	if n < 0 || n > v.o.MaxReadSize {
		return nil, errcode.New(CodeReadTooLarge, "the read is larger than the limit").WithDetail("maxBytes", v.o.MaxReadSize)
	}
	r, ok := v.regionAt(addr)
	if !ok {
		return nil, errUnmapped()
	}
	out := make([]byte, 0, n)
	for len(out) < n {
		in := addr - r.addr
		avail := r.size - in
		want := uint64(n - len(out))
		take := min(avail, want)
		if in < uint64(r.fileSize) {
			fromFile := min(take, uint64(r.fileSize)-in)
			start := r.off + int64(in)
			out = append(out, v.data[start:start+int64(fromFile)]...)
			take -= fromFile
			addr += fromFile
		}
		if take > 0 {
			out = append(out, make([]byte, take)...)
			addr += take
		}
		if len(out) >= n {
			break
		}
		if addr == 0 { // wrapped
			break
		}
		next, ok := v.regionAt(addr)
		if !ok {
			break
		}
		r = next
	}
	return out, nil
}

// SectionByName returns the first section called name (also
// "segment,section" for Mach-O), mapped or not.
func (v *View) SectionByName(name string) (Section, bool) {
	if i, ok := v.secByName[name]; ok {
		return v.a.Sections[i], true
	}
	for _, s := range v.a.Sections {
		if s.Name == name || s.FullName() == name {
			return s, true
		}
	}
	return Section{}, false
}

// SectionData returns the file bytes of the section called name
// (.eh_frame, .gopclntab, __unwind_info), mapped or not; compressed
// sections return their compressed bytes. The slice is shared and must
// not be modified.
func (v *View) SectionData(name string) ([]byte, error) {
	s, ok := v.SectionByName(name)
	if !ok {
		return nil, errcode.New(CodeSectionNotFound, "no section has that name")
	}
	if s.FileSize <= 0 {
		return []byte{}, nil
	}
	return v.data[s.Offset : s.Offset+s.FileSize : s.Offset+s.FileSize], nil
}

// SectionAt returns the mapped section holding addr.
func (v *View) SectionAt(addr uint64) (Section, bool) {
	secs := v.a.Sections
	// Mapped sections come first, sorted by address.
	n := sort.Search(len(secs), func(i int) bool { return !secs[i].Mapped })
	i := sort.Search(n, func(i int) bool { return secs[i].Addr > addr })
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		s := secs[j]
		if addr >= s.Addr && addr-s.Addr < s.Size {
			return s, true
		}
	}
	return Section{}, false
}

// SegmentAt returns the segment holding addr.
func (v *View) SegmentAt(addr uint64) (Segment, bool) {
	for _, s := range v.a.Segments {
		if addr >= s.Addr && addr-s.Addr < s.Size {
			return s, true
		}
	}
	return Segment{}, false
}
