package binview

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// elfArch maps an ELF machine and class to an Arch.
func elfArch(m elf.Machine, c elf.Class) Arch {
	is64 := c == elf.ELFCLASS64
	switch m {
	case elf.EM_386:
		return ArchX86
	case elf.EM_X86_64:
		return ArchX86_64
	case elf.EM_AARCH64:
		return ArchARM64
	case elf.EM_ARM:
		return ArchARM
	case elf.EM_RISCV:
		if is64 {
			return ArchRISCV64
		}
	case elf.EM_PPC64:
		return ArchPPC64
	case elf.EM_S390:
		if is64 {
			return ArchS390X
		}
	case elf.EM_LOONGARCH:
		if is64 {
			return ArchLoong64
		}
	}
	return ArchUnknown
}

// elfPrecheck refuses headers that would make debug/elf inflate a
// compressed section name table before we can look at it.
func elfPrecheck(data []byte) error {
	if len(data) < 0x34 {
		return errAnalysisFailed(fmt.Errorf("elf: short header"))
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if data[5] == 2 {
		bo = binary.BigEndian
	}
	var shoff uint64
	var shentsize, shnum, shstrndx uint64
	is64 := data[4] == 2
	if is64 {
		if len(data) < 0x40 {
			return errAnalysisFailed(fmt.Errorf("elf: short header"))
		}
		shoff = bo.Uint64(data[0x28:])
		shentsize, shnum, shstrndx = uint64(bo.Uint16(data[0x3a:])), uint64(bo.Uint16(data[0x3c:])), uint64(bo.Uint16(data[0x3e:]))
	} else {
		shoff = uint64(bo.Uint32(data[0x20:]))
		shentsize, shnum, shstrndx = uint64(bo.Uint16(data[0x2e:])), uint64(bo.Uint16(data[0x30:])), uint64(bo.Uint16(data[0x32:]))
	}
	if shoff == 0 || shentsize == 0 {
		return nil
	}
	flagsAt := func(i uint64) (uint64, bool) {
		off := shoff + i*shentsize
		if off < shoff || off+shentsize > uint64(len(data)) || shentsize < 0x28 {
			return 0, false
		}
		if is64 {
			return bo.Uint64(data[off+8:]), true
		}
		return uint64(bo.Uint32(data[off+8:])), true
	}
	if shstrndx == uint64(elf.SHN_XINDEX) || shnum == 0 {
		// Extended numbering: the real index is in section 0's link.
		off := shoff + 0x18 // sh_link of section 0, ELF32
		if is64 {
			off = shoff + 0x28
		}
		if off+4 <= uint64(len(data)) && shstrndx == uint64(elf.SHN_XINDEX) {
			shstrndx = uint64(bo.Uint32(data[off:]))
		}
	}
	if f, ok := flagsAt(shstrndx); ok && f&uint64(elf.SHF_COMPRESSED) != 0 {
		return errAnalysisFailed(fmt.Errorf("elf: compressed section name table"))
	}
	return nil
}

func elfKind(f *elf.File, dyn *elfDynamic, hasInterp bool) string {
	switch f.Type {
	case elf.ET_EXEC:
		return "executable"
	case elf.ET_REL:
		return "object"
	case elf.ET_CORE:
		return "core"
	case elf.ET_DYN:
		switch {
		case dyn.flags1&uint64(elf.DF_1_PIE) != 0:
			return "pie"
		case dyn.soname != "":
			return "shared_library"
		case hasInterp:
			return "pie"
		}
		return "shared_library"
	}
	return "other"
}

func (b *builder) elf() error {
	if err := elfPrecheck(b.data); err != nil {
		return err
	}
	f, err := elf.NewFile(bytes.NewReader(b.data))
	if err != nil {
		// A file cut short loses its trailing tables first: the section
		// headers. Its segments still describe the code, so read it
		// without them, as a loader would, and say what was lost.
		at, ok := elfSectionTableCut(b.data)
		if !ok {
			return errAnalysisFailed(err)
		}
		if f, err = elf.NewFile(withoutSectionTable(b.data)); err != nil {
			return errAnalysisFailed(err)
		}
		b.warn(WarnFileTruncated, fmt.Sprintf("the file ends at byte %d, before its section table (at byte %d): "+
			"sections, the symbol table and debug data are missing; segments, dynamic symbols and unwind data are read", len(b.data), at))
	}
	a := b.a
	a.Arch = elfArch(f.Machine, f.Class)
	a.Machine = f.Machine.String()
	a.Bits = 32
	if f.Class == elf.ELFCLASS64 {
		a.Bits = 64
	}
	a.Endian = "little"
	if f.ByteOrder == binary.BigEndian {
		a.Endian = "big"
	}
	e := &elfState{b: b, f: f, bo: f.ByteOrder, is64: a.Bits == 64}

	// Program headers.
	var hasInterp, hasStack, execStack, hasRelro bool
	lowest := ^uint64(0)
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_LOAD:
			seg := Segment{Name: fmt.Sprintf("LOAD%d", len(a.Segments)), Addr: p.Vaddr, Size: p.Memsz,
				Offset: int64(p.Off), FileSize: int64(p.Filesz), Perm: elfProgPerm(p.Flags), Type: "LOAD"}
			if b.addSegment(seg) && p.Vaddr < lowest {
				lowest = p.Vaddr
			}
		case elf.PT_INTERP:
			hasInterp = true
			if bs, ok := b.fileBytes(int64(p.Off), p.Filesz); ok {
				e.interp = cString(bs)
			}
		case elf.PT_GNU_STACK:
			hasStack = true
			execStack = p.Flags&elf.PF_X != 0
		case elf.PT_GNU_RELRO:
			hasRelro = true
		case elf.PT_GNU_EH_FRAME:
			if p.Memsz > 0 && p.Memsz <= 1<<28 && p.Vaddr+p.Memsz > p.Vaddr {
				a.EHFrameHdr = AddrRange{Addr: p.Vaddr, Size: p.Memsz}
			}
		}
	}
	if lowest != ^uint64(0) {
		a.ImageBase = lowest
	}

	// Sections.
	for i, s := range f.Sections {
		if i == 0 && s.Type == elf.SHT_NULL {
			continue
		}
		// .tbss has an address but takes no memory: it is a template
		// for each thread, so it would shadow the sections after it.
		tbss := s.Flags&elf.SHF_TLS != 0 && s.Type == elf.SHT_NOBITS
		sec := Section{Name: s.Name, Addr: s.Addr, Size: s.Size, Offset: int64(s.Offset), Type: elfSectionType(s.Type),
			Compressed: s.Flags&elf.SHF_COMPRESSED != 0, Mapped: s.Flags&elf.SHF_ALLOC != 0 && f.Type != elf.ET_REL && s.Addr != 0 && !tbss}
		if s.Type != elf.SHT_NOBITS {
			sec.FileSize = int64(s.FileSize)
		}
		if s.Flags&elf.SHF_ALLOC != 0 {
			sec.Perm |= PermR
		}
		if s.Flags&elf.SHF_WRITE != 0 {
			sec.Perm |= PermW
		}
		if s.Flags&elf.SHF_EXECINSTR != 0 {
			sec.Perm |= PermX
		}
		if !b.addSection(sec) {
			break
		}
	}
	if err := b.ctx.Err(); err != nil {
		return err
	}

	b.guard("dynamic section", e.dynamic)
	a.Kind = elfKind(f, &e.dyn, hasInterp)
	a.Entry = f.Entry
	if f.Entry != 0 || f.Type == elf.ET_EXEC {
		a.Entries = append(a.Entries, EntryPoint{Addr: f.Entry, Kind: "entry"})
	}
	if e.dyn.init != 0 {
		a.Entries = append(a.Entries, EntryPoint{Addr: e.dyn.init, Kind: "init", Name: "_init"})
	}
	if e.dyn.fini != 0 {
		a.Entries = append(a.Entries, EntryPoint{Addr: e.dyn.fini, Kind: "fini", Name: "_fini"})
	}

	b.guard("symbol table", e.symbols)
	if err := b.ctx.Err(); err != nil {
		return err
	}
	b.guard("dynamic symbols", e.dynamicSymbols)
	if err := b.ctx.Err(); err != nil {
		return err
	}
	b.guard("relocations", e.relocations)
	if err := b.ctx.Err(); err != nil {
		return err
	}
	b.guard("notes", e.notes)
	b.guard("comment section", e.comment)

	// Go metadata sections.
	for _, name := range []string{".gopclntab", ".data.rel.ro.gopclntab"} {
		if s := e.section(name); s != nil {
			if bs, ok := e.bytes(s); ok {
				b.goPclntab, b.goPclntabAddr = bs, s.Addr
				break
			}
		}
	}
	if s := e.section(".text"); s != nil {
		b.goTextStart = s.Addr
	}
	if s := e.section(".go.buildinfo"); s != nil {
		if bs, ok := e.bytes(s); ok {
			b.goBuildInfo = bs
		}
	}

	a.Build.ELF = &ELFBuild{
		BuildID: e.buildID, Interpreter: e.interp, Needed: e.dyn.needed, SOName: e.dyn.soname,
		RPath: e.dyn.rpath, RunPath: e.dyn.runpath, Comment: e.comments, OSABI: f.OSABI.String(),
		GoBuildID: e.goBuildID,
	}
	e.hardening(hasStack, execStack, hasRelro)
	return nil
}

// elfState is what the ELF passes share.
type elfState struct {
	b    *builder
	f    *elf.File
	bo   binary.ByteOrder
	is64 bool

	dyn       elfDynamic
	interp    string
	buildID   string
	goBuildID string
	comments  []string
	// dynNames are the dynamic symbols' names by index (0 is empty).
	dynNames []string
	// symNames are the static symbols' names by index.
	symNames []string
	// importAt maps a dynamic symbol index to its import.
	importAt map[int]int
	// names holds the symbol and import names the hardening checks look
	// for (addName); sawName reports that there were any.
	names   map[string]struct{}
	sawName bool
	// features are GNU property bits: x86 IBT/SHSTK, arm64 BTI/PAC.
	x86Features, armFeatures uint32
	hasProperty              bool
}

// section returns the first section called name.
func (e *elfState) section(name string) *elf.Section {
	for _, s := range e.f.Sections {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// bytes returns a section's file bytes, refusing compressed sections and
// sections outside the file: nothing here ever inflates data.
func (e *elfState) bytes(s *elf.Section) ([]byte, bool) {
	if s == nil || s.Type == elf.SHT_NOBITS || s.Flags&elf.SHF_COMPRESSED != 0 {
		return nil, false
	}
	return e.b.fileBytes(int64(s.Offset), s.FileSize)
}

// tableUsable reports whether debug/elf may read a symbol table and its
// string table: both present, uncompressed and inside the file.
func (e *elfState) tableUsable(s *elf.Section) bool {
	if _, ok := e.bytes(s); !ok {
		return false
	}
	if int(s.Link) >= len(e.f.Sections) {
		return false
	}
	_, ok := e.bytes(e.f.Sections[s.Link])
	return ok
}

// addName notes a symbol or import name for the hardening checks, which
// need only to know that names exist and which stack-protector and
// *_chk functions are among them: only those are kept, so a symbol
// table of millions of names costs no map of them.
func (e *elfState) addName(n string) {
	e.sawName = true
	if !strings.Contains(n, "_chk") && !strings.Contains(n, "security_cookie") {
		return
	}
	if e.names == nil {
		e.names = make(map[string]struct{})
	}
	e.names[n] = struct{}{}
}

func elfSymKind(t elf.SymType) SymbolKind {
	switch t {
	case elf.STT_FUNC, elf.STT_GNU_IFUNC:
		return SymFunction
	case elf.STT_OBJECT, elf.STT_COMMON:
		return SymObject
	case elf.STT_TLS:
		return SymTLS
	case elf.STT_SECTION:
		return SymSection
	case elf.STT_FILE:
		return SymFile
	}
	return SymOther
}

func elfBinding(b elf.SymBind) string {
	switch b {
	case elf.STB_GLOBAL:
		return "global"
	case elf.STB_LOCAL:
		return "local"
	case elf.STB_WEAK:
		return "weak"
	}
	return ""
}

func (e *elfState) symbols() {
	s := e.f.SectionByType(elf.SHT_SYMTAB)
	if s == nil || !e.tableUsable(s) {
		e.b.a.Stripped = true
		if s != nil {
			e.b.warn(WarnMalformed, "the symbol table is compressed or outside the file")
		}
		return
	}
	n, err := e.eachSymtab(s, func(i int, sy elf.Symbol) {
		e.symNames[i] = sy.Name
		t := elf.ST_TYPE(sy.Info)
		if sy.Section == elf.SHN_UNDEF || t == elf.STT_SECTION || t == elf.STT_FILE {
			if sy.Section == elf.SHN_UNDEF && sy.Name != "" {
				e.addName(sy.Name)
			}
			return
		}
		e.addName(sy.Name)
		e.b.addSymbol(Symbol{Name: sy.Name, Addr: sy.Value, Size: sy.Size, Kind: elfSymKind(t),
			Binding: elfBinding(elf.ST_BIND(sy.Info)), Source: "symtab"})
	})
	if err != nil {
		e.b.warn(WarnMalformed, "the symbol table is malformed")
		return
	}
	e.symNames = e.symNames[:n+1]
}

// eachSymtab reads the symbol table s (SHT_SYMTAB) as debug/elf's
// Symbols does, without its first, null, entry, but bounded and without
// a list of every entry: it calls f with each entry's index (from 1) as
// it reads it, reads at most MaxSymbols plus MaxImports entries (a
// longer table leaves the warning truncated; the symbols kept are cut at
// MaxSymbols anyway), sizes e.symNames and the symbol list once, and
// stops when the context ends. It returns the entries read.
func (e *elfState) eachSymtab(s *elf.Section, f func(i int, sy elf.Symbol)) (int, error) {
	data, _ := e.bytes(s)
	strs, _ := e.bytes(e.f.Sections[s.Link])
	size := 16
	if e.is64 {
		size = 24
	}
	if len(data)%size != 0 {
		return 0, fmt.Errorf("symbol table size %d is not a multiple of %d", len(data), size)
	}
	n := len(data)/size - 1
	if n < 0 {
		return 0, fmt.Errorf("no null symbol")
	}
	if max := e.b.o.MaxSymbols + e.b.o.MaxImports; n > max {
		e.b.warn(WarnTruncated, "the symbol table is larger than the limits: its end was not read")
		n = max
	}
	e.symNames = make([]string, n+1)
	e.b.reserveSymbols(n)
	for i := 1; i <= n; i++ {
		if i&0xfff == 0 && e.b.ctx.Err() != nil {
			return i - 1, nil
		}
		ent := data[i*size : (i+1)*size]
		var sy elf.Symbol
		var name uint32
		if e.is64 {
			name = e.bo.Uint32(ent[0:])
			sy.Info, sy.Other = ent[4], ent[5]
			sy.Section = elf.SectionIndex(e.bo.Uint16(ent[6:]))
			sy.Value = e.bo.Uint64(ent[8:])
			sy.Size = e.bo.Uint64(ent[16:])
		} else {
			name = e.bo.Uint32(ent[0:])
			sy.Value = uint64(e.bo.Uint32(ent[4:]))
			sy.Size = uint64(e.bo.Uint32(ent[8:]))
			sy.Info, sy.Other = ent[12], ent[13]
			sy.Section = elf.SectionIndex(e.bo.Uint16(ent[14:]))
		}
		if int(name) < len(strs) {
			sy.Name = cString(strs[name:])
		}
		f(i, sy)
	}
	return n, nil
}

func (e *elfState) dynamicSymbols() {
	s := e.f.SectionByType(elf.SHT_DYNSYM)
	if s == nil {
		return
	}
	if !e.tableUsable(s) {
		e.b.warn(WarnMalformed, "the dynamic symbol table is compressed or outside the file")
		return
	}
	for _, vs := range []elf.SectionType{elf.SHT_GNU_VERSYM, elf.SHT_GNU_VERNEED, elf.SHT_GNU_VERDEF} {
		if v := e.f.SectionByType(vs); v != nil && !e.tableUsable(v) {
			e.b.warn(WarnMalformed, "symbol versions are compressed or outside the file")
			return
		}
	}
	if n := s.Size / max(s.Entsize, 16); n > uint64(e.b.o.MaxSymbols+e.b.o.MaxImports) {
		// debug/elf would read every entry, unbounded: a table this
		// large is no linker's.
		e.b.warn(WarnTruncated, "the dynamic symbol table is larger than the limits and was skipped")
		return
	}
	syms, err := e.f.DynamicSymbols()
	if err != nil {
		e.b.warn(WarnMalformed, "the dynamic symbol table is malformed")
		return
	}
	e.dynNames = make([]string, len(syms)+1)
	e.importAt = make(map[int]int)
	for i, sy := range syms {
		if i&0xfff == 0 && e.b.ctx.Err() != nil {
			return
		}
		e.dynNames[i+1] = sy.Name
		if sy.Name == "" {
			continue
		}
		e.addName(sy.Name)
		t := elf.ST_TYPE(sy.Info)
		bind := elf.ST_BIND(sy.Info)
		if sy.Section == elf.SHN_UNDEF {
			lib := sy.Library
			if lib == "" && len(e.dyn.needed) == 1 {
				lib = e.dyn.needed[0]
			}
			if e.b.addImport(Import{Name: sy.Name, Library: lib, Version: sy.Version, Weak: bind == elf.STB_WEAK}) {
				e.importAt[i+1] = len(e.b.a.Imports) - 1
			}
			continue
		}
		if t == elf.STT_SECTION || t == elf.STT_FILE {
			continue
		}
		e.b.addSymbol(Symbol{Name: sy.Name, Addr: sy.Value, Size: sy.Size, Kind: elfSymKind(t),
			Binding: elfBinding(bind), Source: "dynsym"})
		if bind == elf.STB_GLOBAL || bind == elf.STB_WEAK {
			k := elfSymKind(t)
			if k != SymFunction && k != SymObject {
				k = SymOther
			}
			e.b.addExport(Export{Name: sy.Name, Addr: sy.Value, Kind: k})
		}
	}
}

func elfProgPerm(f elf.ProgFlag) Perm {
	var p Perm
	if f&elf.PF_R != 0 {
		p |= PermR
	}
	if f&elf.PF_W != 0 {
		p |= PermW
	}
	if f&elf.PF_X != 0 {
		p |= PermX
	}
	return p
}

func elfSectionType(t elf.SectionType) string {
	return strings.TrimPrefix(t.String(), "SHT_")
}

// cString returns b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// comment reads .comment: the compilers' identification strings.
func (e *elfState) comment() {
	bs, ok := e.bytes(e.section(".comment"))
	if !ok {
		return
	}
	if len(bs) > 1<<16 {
		bs = bs[:1<<16]
	}
	for _, p := range bytes.Split(bs, []byte{0}) {
		if s := strings.TrimSpace(string(p)); s != "" && len(e.comments) < 32 {
			dup := false
			for _, c := range e.comments {
				dup = dup || c == s
			}
			if !dup {
				e.comments = append(e.comments, s)
			}
		}
	}
}

// elfSectionTableCut reports whether the section header table lies past
// the end of data (a file cut short), and where it would start.
func elfSectionTableCut(data []byte) (uint64, bool) {
	if len(data) < 0x34 || string(data[:4]) != elf.ELFMAG {
		return 0, false
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if data[5] == 2 {
		bo = binary.BigEndian
	}
	var shoff, shentsize, shnum uint64
	if data[4] == 2 {
		if len(data) < 0x40 {
			return 0, false
		}
		shoff, shentsize, shnum = bo.Uint64(data[0x28:]), uint64(bo.Uint16(data[0x3a:])), uint64(bo.Uint16(data[0x3c:]))
	} else {
		shoff, shentsize, shnum = uint64(bo.Uint32(data[0x20:])), uint64(bo.Uint16(data[0x2e:])), uint64(bo.Uint16(data[0x30:]))
	}
	end := shoff + max(shnum, 1)*shentsize
	return shoff, shoff != 0 && (end < shoff || end > uint64(len(data)))
}

// withoutSectionTable reads data as if its header named no section table
// (e_shoff, e_shnum and e_shstrndx zero), without copying the file.
func withoutSectionTable(data []byte) io.ReaderAt {
	hdr := bytes.Clone(data[:min(len(data), 0x40)])
	if hdr[4] == 2 {
		clear(hdr[0x28:0x30]) // e_shoff
		clear(hdr[0x3c:0x40]) // e_shnum, e_shstrndx
	} else {
		clear(hdr[0x20:0x24])
		clear(hdr[0x30:0x34])
	}
	return patchedReader{data: data, head: hdr}
}

// patchedReader is data with its first len(head) bytes replaced by head.
type patchedReader struct {
	data, head []byte
}

func (r patchedReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("elf: negative offset")
	}
	if off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(p, r.data[off:])
	if off < int64(len(r.head)) {
		copy(p, r.head[off:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
