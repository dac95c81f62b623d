package binview

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/warden-mcp/warden/errcode"
)

// Analyze parses data and returns its Analysis. The format is detected
// from the magic number unless opts.Format forces one; a raw load needs
// opts.Arch. Analyze never panics: a parser that fails on part of the
// file leaves a warning, one that fails on the whole file gives
// analysis_failed. It stops at opts.Timeout or when ctx ends
// (analysis_timeout). data is not retained.
//
// Analyze runs the standard library's debug/* parsers, which a crafted
// file can drive into unbounded allocation despite the checks made here;
// hosted servers run it in a child process (package binview/isolate).
func Analyze(ctx context.Context, data []byte, opts *Options) (a *Analysis, err error) {
	o := opts.withDefaults()
	if int64(len(data)) > o.MaxFileSize {
		return nil, errcode.New(CodeFileTooLarge, "the file is larger than the limit").
			WithDetail("maxBytes", o.MaxFileSize)
	}
	format := o.Format
	switch format {
	case "":
		format = Sniff(data)
		if format == "" {
			return nil, errUnsupportedFormat()
		}
	case FormatELF, FormatPE, FormatMachO:
	case FormatRaw:
		if !o.Arch.known() {
			return nil, errcode.New(CodeUnsupportedArch, "a raw load needs a known architecture").
				WithDetail("arches", archNames())
		}
	default:
		return nil, errcode.New(CodeInvalidOptions, "unknown format; want elf, pe, macho or raw")
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	a = &Analysis{Version: EngineVersion, Options: o.CacheKey(), Format: format, FileSize: int64(len(data))}
	b := &builder{ctx: ctx, data: data, o: &o, a: a}
	hashes := make(chan Hashes, 1)
	go func() { hashes <- hashAll(ctx, data) }()
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, errAnalysisFailed(fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
		}
	}()
	switch format {
	case FormatELF:
		err = b.elf()
	case FormatPE:
		err = b.pe()
	case FormatMachO:
		err = b.macho()
	case FormatRaw:
		err = b.raw()
	}
	if err == nil {
		err = b.finish()
	}
	h := <-hashes
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		if _, ok := errcode.As(err); ok {
			return nil, err
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return nil, errTimeout(err)
		}
		return nil, errAnalysisFailed(err)
	}
	imphash := a.Hashes.ImpHash
	a.Hashes = h
	a.Hashes.ImpHash = imphash
	return a, nil
}

func archNames() []string {
	s := make([]string, len(Arches))
	for i, a := range Arches {
		s[i] = string(a)
	}
	return s
}

// Sniff returns the format of data from its magic number, or "" when it
// is none the engine parses.
func Sniff(data []byte) Format {
	switch {
	case len(data) >= 16 && bytes.HasPrefix(data, []byte("\x7fELF")):
		return FormatELF
	case len(data) >= 0x40 && data[0] == 'M' && data[1] == 'Z':
		off := int64(binary.LittleEndian.Uint32(data[0x3c:]))
		if off+4 <= int64(len(data)) && bytes.Equal(data[off:off+4], []byte("PE\x00\x00")) {
			return FormatPE
		}
	case len(data) >= 28:
		switch binary.BigEndian.Uint32(data) {
		case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe:
			return FormatMachO
		case 0xcafebabe, 0xcafebabf:
			// Java class files share 0xcafebabe; their next word is
			// a version (>= 45), a fat file's is a small arch count.
			if n := binary.BigEndian.Uint32(data[4:]); n > 0 && n < 20 {
				return FormatMachO
			}
		}
	}
	return ""
}

// builder holds the state of one analysis.
type builder struct {
	ctx  context.Context
	data []byte
	o    *Options
	a    *Analysis

	// goPclntab is the pclntab's bytes and address when the format
	// names its section; otherwise finish searches for it.
	goPclntab     []byte
	goPclntabAddr uint64
	goTextStart   uint64
	// goBuildInfo is the section that holds Go's build info, when
	// named.
	goBuildInfo []byte
	// nameSeen dedupes symbols by name and address.
	nameSeen map[symKey]struct{}
	truncSym bool
}

type symKey struct {
	name string
	addr uint64
}

// warn records a warning once per code and message.
func (b *builder) warn(code, msg string) {
	for _, w := range b.a.Warnings {
		if w.Code == code && w.Message == msg {
			return
		}
	}
	if len(b.a.Warnings) < 64 {
		b.a.Warnings = append(b.a.Warnings, Warning{Code: code, Message: msg})
	}
}

// guard runs f under recover: a panic in one table leaves a warning and
// the rest of the analysis stands.
func (b *builder) guard(what string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			b.warn(WarnRecovered, "the "+what+" could not be parsed")
		}
	}()
	f()
}

// fileBytes returns data[off:off+n] when that lies inside the file.
func (b *builder) fileBytes(off int64, n uint64) ([]byte, bool) {
	if off < 0 || n > uint64(len(b.data)) || uint64(off) > uint64(len(b.data))-n {
		return nil, false
	}
	return b.data[off : off+int64(n)], true
}

// reserveSymbols makes room for n more symbols (at most the limit), so
// that a large table does not grow the list and its index step by step.
func (b *builder) reserveSymbols(n int) {
	n = min(n, b.o.MaxSymbols-len(b.a.Symbols))
	if n <= 0 {
		return
	}
	if b.nameSeen == nil {
		b.nameSeen = make(map[symKey]struct{}, n)
	}
	b.a.Symbols = slices.Grow(b.a.Symbols, n)
}

// addSymbol keeps s unless it is a duplicate or the limit is reached.
func (b *builder) addSymbol(s Symbol) {
	if s.Name == "" {
		return
	}
	if b.nameSeen == nil {
		b.nameSeen = make(map[symKey]struct{})
	}
	k := symKey{s.Name, s.Addr}
	if _, dup := b.nameSeen[k]; dup {
		return
	}
	if len(b.a.Symbols) >= b.o.MaxSymbols {
		if !b.truncSym {
			b.truncSym = true
			b.warn(WarnTruncated, "symbols were cut at the limit")
		}
		return
	}
	b.nameSeen[k] = struct{}{}
	b.a.Symbols = append(b.a.Symbols, s)
}

func (b *builder) addSection(s Section) bool {
	if len(b.a.Sections) >= b.o.MaxSections {
		b.warn(WarnTruncated, "sections were cut at the limit")
		return false
	}
	if s.Mapped && s.Size > 0 && s.Addr+s.Size < s.Addr {
		b.warn(WarnMalformed, "a section wraps around the address space")
		s.Mapped = false
	}
	if s.FileSize != 0 {
		if _, ok := b.fileBytes(s.Offset, uint64(s.FileSize)); !ok || s.FileSize < 0 {
			b.warn(WarnMalformed, "a section lies outside the file")
			s.FileSize = 0
		}
	}
	b.a.Sections = append(b.a.Sections, s)
	return true
}

func (b *builder) addSegment(s Segment) bool {
	if len(b.a.Segments) >= b.o.MaxSections {
		b.warn(WarnTruncated, "segments were cut at the limit")
		return false
	}
	if s.Size > 0 && s.Addr+s.Size < s.Addr {
		b.warn(WarnMalformed, "a segment wraps around the address space")
		return false
	}
	if s.FileSize < 0 {
		s.FileSize = int64(len(b.data)) // clamped to the file below
		b.warn(WarnMalformed, "a segment's file size is out of range")
	}
	if s.FileSize > 0 {
		if uint64(s.FileSize) > s.Size {
			s.FileSize = int64(min(s.Size, uint64(len(b.data))))
		}
		if _, ok := b.fileBytes(s.Offset, uint64(s.FileSize)); !ok {
			// Keep what the file has.
			if s.Offset >= 0 && s.Offset < int64(len(b.data)) {
				s.FileSize = int64(len(b.data)) - s.Offset
			} else {
				s.FileSize = 0
			}
			b.warn(WarnMalformed, "a segment extends past the end of the file")
		}
	}
	b.a.Segments = append(b.a.Segments, s)
	return true
}

func (b *builder) addImport(i Import) bool {
	if len(b.a.Imports) >= b.o.MaxImports {
		b.warn(WarnTruncated, "imports were cut at the limit")
		return false
	}
	b.a.Imports = append(b.a.Imports, i)
	return true
}

func (b *builder) addExport(e Export) bool {
	if len(b.a.Exports) >= b.o.MaxImports {
		b.warn(WarnTruncated, "exports were cut at the limit")
		return false
	}
	b.a.Exports = append(b.a.Exports, e)
	return true
}

func (b *builder) addReloc(r Relocation) bool {
	if len(b.a.Relocations) >= b.o.MaxRelocations {
		b.warn(WarnTruncated, "relocations were cut at the limit")
		return false
	}
	b.a.Relocations = append(b.a.Relocations, r)
	return true
}

func (b *builder) addHint(h FunctionHint) bool {
	if len(b.a.Hints) >= b.o.MaxFunctions {
		b.warn(WarnTruncated, "function hints were cut at the limit")
		return false
	}
	b.a.Hints = append(b.a.Hints, h)
	return true
}

func (b *builder) addLibrary(name string) {
	if name == "" || len(b.a.Libraries) >= b.o.MaxImports {
		return
	}
	for _, l := range b.a.Libraries {
		if l == name {
			return
		}
	}
	b.a.Libraries = append(b.a.Libraries, name)
}

// finish runs the format-independent steps: Go metadata, demangling,
// entropy, sorting and toolchain detection.
func (b *builder) finish() error {
	if err := b.ctx.Err(); err != nil {
		return err
	}
	// Entropy reads every section once more; it runs beside the Go
	// metadata decoding.
	ent := make(chan []float64, 1)
	go func() { ent <- b.entropies() }()
	b.guard("Go function table", b.goFunctions)
	if err := b.ctx.Err(); err != nil {
		<-ent
		return err
	}
	b.guard("Go build information", b.goBuild)
	b.demangleAll()
	es := <-ent
	if es == nil {
		b.warn(WarnTruncated, "section entropy was left out past a work limit")
	}
	for i := range es {
		b.a.Sections[i].Entropy = es[i]
	}
	if err := b.ctx.Err(); err != nil {
		return err
	}
	b.sortAll()
	b.guard("toolchain", b.detectToolchain)
	if b.a.Segments == nil {
		b.a.Segments = []Segment{}
	}
	if b.a.Bits == 0 {
		b.a.Bits = b.a.Arch.Bits()
	}
	for _, p := range []*[]Section{&b.a.Sections} {
		if *p == nil {
			*p = []Section{}
		}
	}
	if b.a.Symbols == nil {
		b.a.Symbols = []Symbol{}
	}
	if b.a.Imports == nil {
		b.a.Imports = []Import{}
	}
	if b.a.Exports == nil {
		b.a.Exports = []Export{}
	}
	if b.a.Relocations == nil {
		b.a.Relocations = []Relocation{}
	}
	if b.a.Libraries == nil {
		b.a.Libraries = []string{}
	}
	if b.a.Entries == nil {
		b.a.Entries = []EntryPoint{}
	}
	if b.a.Hardening == nil {
		b.a.Hardening = []Check{}
	}
	return nil
}

func (b *builder) sortAll() {
	a := b.a
	sort.SliceStable(a.Segments, func(i, j int) bool { return a.Segments[i].Addr < a.Segments[j].Addr })
	sort.SliceStable(a.Sections, func(i, j int) bool {
		si, sj := a.Sections[i], a.Sections[j]
		if si.Mapped != sj.Mapped {
			return si.Mapped
		}
		if si.Mapped {
			return si.Addr < sj.Addr
		}
		return si.Offset < sj.Offset
	})
	sort.SliceStable(a.Symbols, func(i, j int) bool {
		if a.Symbols[i].Addr != a.Symbols[j].Addr {
			return a.Symbols[i].Addr < a.Symbols[j].Addr
		}
		return a.Symbols[i].Name < a.Symbols[j].Name
	})
	sort.SliceStable(a.Imports, func(i, j int) bool {
		if a.Imports[i].Library != a.Imports[j].Library {
			return a.Imports[i].Library < a.Imports[j].Library
		}
		return a.Imports[i].Name < a.Imports[j].Name
	})
	sort.SliceStable(a.Exports, func(i, j int) bool {
		if a.Exports[i].Addr != a.Exports[j].Addr {
			return a.Exports[i].Addr < a.Exports[j].Addr
		}
		return a.Exports[i].Name < a.Exports[j].Name
	})
	sort.SliceStable(a.Relocations, func(i, j int) bool { return a.Relocations[i].Addr < a.Relocations[j].Addr })
	sort.SliceStable(a.GoFunctions, func(i, j int) bool { return a.GoFunctions[i].Entry < a.GoFunctions[j].Entry })
	sort.SliceStable(a.Hints, func(i, j int) bool { return a.Hints[i].Addr < a.Hints[j].Addr })
	sort.SliceStable(a.Entries, func(i, j int) bool {
		if (a.Entries[i].Kind == "entry") != (a.Entries[j].Kind == "entry") {
			return a.Entries[i].Kind == "entry"
		}
		return a.Entries[i].Addr < a.Entries[j].Addr
	})
}

// entropies returns each section's entropy, or nil when the sections
// overlap so much that computing it would pass over the file more than
// a few times (a crafted file can make every section claim it all).
func (b *builder) entropies() []float64 {
	budget := 4*int64(len(b.data)) + 1<<20
	out := make([]float64, len(b.a.Sections))
	for i, s := range b.a.Sections {
		if s.FileSize <= 0 {
			continue
		}
		if budget -= s.FileSize; budget < 0 || b.ctx.Err() != nil {
			return nil
		}
		out[i] = entropy(b.data[s.Offset : s.Offset+s.FileSize])
	}
	return out
}

// check returns the context's error every 4096 calls of a loop.
func (b *builder) check(i int) error {
	if i&4095 == 0 {
		return b.ctx.Err()
	}
	return nil
}
