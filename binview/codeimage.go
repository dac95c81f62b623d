package binview

import (
	"encoding/binary"
	"sort"
	"strings"

	"github.com/warden-mcp/warden/binview/funcs"
	"github.com/warden-mcp/warden/errcode"
)

// maxInitArray bounds the pointers read from one .init_array-like
// section.
const maxInitArray = 1 << 16

// funcArch names the view's architecture as package funcs (and disasm)
// does; "" when the code cannot be analysed.
func (v *View) funcArch() string {
	switch v.a.Arch {
	case ArchPPC64:
		if v.a.Endian == "little" {
			return "ppc64le"
		}
		return "ppc64"
	case ArchX86, ArchX86_64, ArchARM64, ArchARM, ArchRISCV64, ArchS390X, ArchLoong64:
		return string(v.a.Arch)
	}
	return ""
}

// fileSpan returns the file bytes loaded at [addr, addr+n), shared with
// the view, or false when any of them is unmapped or zero-fill.
func (v *View) fileSpan(addr, n uint64) ([]byte, bool) {
	r, ok := v.regionAt(addr)
	if !ok {
		return nil, false
	}
	in := addr - r.addr
	if in > uint64(r.fileSize) || n > uint64(r.fileSize)-in {
		return nil, false
	}
	off := r.off + int64(in)
	return v.data[off : off+int64(n) : off+int64(n)], true
}

// codeAt returns the file bytes loaded from addr to the end of its
// region, at most max of them: what a decoder may read at addr.
func (v *View) codeAt(addr uint64, max int) []byte {
	r, ok := v.regionAt(addr)
	if !ok {
		return nil
	}
	in := addr - r.addr
	if in >= uint64(r.fileSize) {
		return nil
	}
	n := min(uint64(r.fileSize)-in, uint64(max))
	off := r.off + int64(in)
	return v.data[off : off+int64(n) : off+int64(n)]
}

// sectionBytes returns the file bytes of a mapped or unmapped section,
// never of a compressed one.
func (v *View) sectionBytes(s Section) []byte {
	if s.Compressed || s.FileSize <= 0 {
		return nil
	}
	return v.data[s.Offset : s.Offset+s.FileSize : s.Offset+s.FileSize]
}

// machoCode reports whether a Mach-O section holds instructions. The
// section attributes are not kept, so this goes by name: every section
// of an executable segment has the segment's permissions, strings and
// constants included.
func machoCode(name string) bool {
	return strings.HasPrefix(name, "__text") || strings.Contains(name, "stub") || name == "__StaticInit"
}

// excludedSection reports sections that hold stubs and not functions.
func excludedSection(f Format, name string) bool {
	switch f {
	case FormatELF:
		return name == ".plt" || strings.HasPrefix(name, ".plt.") || name == ".iplt"
	case FormatMachO:
		return strings.Contains(name, "stub")
	}
	return false
}

// FuncImage returns what function discovery (package funcs) needs from
// the view: the mapped bytes with their executable flag, entry points,
// function symbols and exports, the names of PLT and Mach-O stubs,
// function-start hints (PE .pdata, Mach-O LC_FUNCTION_STARTS, Go's
// pclntab, pointers in .init_array and its kin), the stub sections to
// leave out, and the raw call-frame sections. The byte slices are shared
// with the view and must not be modified. A view whose architecture
// cannot be analysed gives unsupported_arch.
func (v *View) FuncImage() (*funcs.Image, error) {
	arch := v.funcArch()
	if arch == "" {
		return nil, errcode.New(CodeUnsupportedArch, "the code of this architecture cannot be analysed")
	}
	a := v.a
	img := &funcs.Image{Arch: arch, Base: a.ImageBase, BigEndian: a.Endian == "big"}
	img.Regions = v.funcRegions()

	for _, e := range a.Entries {
		if e.Addr != 0 || a.Format == FormatRaw {
			img.Entries = append(img.Entries, e.Addr)
			// Name what the format names (_init, _fini, TLS
			// callbacks) and an executable's entry point, _start by
			// the C runtime's convention; a symbol's name wins.
			name := e.Name
			if name == "" && e.Kind == "entry" && a.Format == FormatELF && (a.Kind == "executable" || a.Kind == "pie") {
				name = "_start"
			}
			if name != "" {
				img.Hints = append(img.Hints, funcs.Seed{Addr: e.Addr, Name: name, Source: funcs.SourceEntry})
			}
		}
	}
	for _, s := range a.Symbols {
		if s.Kind != SymFunction || s.Addr == 0 && a.Format != FormatRaw {
			continue
		}
		src := funcs.SourceSymbol
		if s.Source == "dynsym" || s.Source == "export" {
			src = funcs.SourceExport
		}
		img.Symbols = append(img.Symbols, funcs.Seed{Addr: s.Addr, Name: s.Name, Size: s.Size, Source: src})
	}
	for _, s := range a.Sections {
		if s.Mapped && s.Size > 0 && excludedSection(a.Format, s.Name) {
			img.Excluded = append(img.Excluded, funcs.Range{Start: s.Addr, End: s.End()})
		}
	}
	// Stub names tell which calls never return; they name stubs only
	// inside the stub sections, never a function.
	for _, im := range a.Imports {
		if im.Stub == 0 || im.Name == "" {
			continue
		}
		for _, x := range img.Excluded {
			if x.Contains(im.Stub) {
				img.Symbols = append(img.Symbols, funcs.Seed{Addr: im.Stub, Name: im.Name + "@plt"})
				break
			}
		}
	}
	for _, h := range a.Hints {
		src := funcs.Source(h.Source)
		switch h.Source {
		case "pdata":
			src = funcs.SourcePdata
		case "function_starts":
			src = funcs.SourceFunctionStarts
		}
		var size uint64
		if h.End > h.Addr {
			size = h.End - h.Addr
		}
		img.Hints = append(img.Hints, funcs.Seed{Addr: h.Addr, Size: size, Source: src})
	}
	for _, g := range a.GoFunctions {
		var size uint64
		if g.End > g.Entry {
			size = g.End - g.Entry
		}
		img.Hints = append(img.Hints, funcs.Seed{Addr: g.Entry, Name: g.Name, Size: size, Source: funcs.SourcePclntab})
	}
	img.Hints = append(img.Hints, v.initArrays()...)
	img.DataPointers = v.relativeTargets()

	// Call-frame sections.
	for _, s := range a.Sections {
		if s.Compressed {
			continue
		}
		switch s.Name {
		case ".eh_frame", "__eh_frame":
			if s.Mapped && img.EHFrame.Data == nil {
				img.EHFrame = funcs.Section{Addr: s.Addr, Data: v.sectionBytes(s)}
			}
		case ".eh_frame_hdr":
			if s.Mapped && img.EHFrameHdr.Data == nil {
				img.EHFrameHdr = funcs.Section{Addr: s.Addr, Data: v.sectionBytes(s)}
			}
		case ".debug_frame":
			if img.DebugFrame.Data == nil {
				img.DebugFrame = funcs.Section{Data: v.sectionBytes(s)}
			}
		}
	}
	if img.EHFrameHdr.Data == nil && a.EHFrameHdr.Size > 0 {
		if b, ok := v.fileSpan(a.EHFrameHdr.Addr, a.EHFrameHdr.Size); ok {
			img.EHFrameHdr = funcs.Section{Addr: a.EHFrameHdr.Addr, Data: b}
		}
	}
	return img, nil
}

// funcRegions are the mapped file bytes: allocated sections when the
// file has them, else its segments; sorted, with overlaps cut so that no
// byte belongs to two regions.
func (v *View) funcRegions() []funcs.Region {
	a := v.a
	var rs []funcs.Region
	for _, s := range a.Sections {
		if !s.Mapped || s.Size == 0 {
			continue
		}
		d := v.sectionBytes(s)
		if len(d) == 0 {
			continue
		}
		exec := s.Perm&PermX != 0
		if a.Format == FormatMachO {
			exec = exec && machoCode(s.Name)
		}
		rs = append(rs, funcs.Region{Name: s.FullName(), Addr: s.Addr, Data: d[:min(uint64(len(d)), s.Size)], Exec: exec})
	}
	if len(rs) == 0 {
		for _, s := range a.Segments {
			if s.FileSize <= 0 || s.Size == 0 {
				continue
			}
			n := min(uint64(s.FileSize), s.Size)
			d := v.data[s.Offset : s.Offset+int64(n) : s.Offset+int64(n)]
			rs = append(rs, funcs.Region{Name: s.Name, Addr: s.Addr, Data: d, Exec: s.Perm&PermX != 0})
		}
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Addr < rs[j].Addr })
	out := rs[:0]
	var end uint64
	for _, r := range rs {
		if r.Addr+uint64(len(r.Data)) < r.Addr {
			continue // wraps
		}
		if len(out) > 0 && r.Addr < end {
			if r.End() <= end {
				continue
			}
			r.Data = r.Data[end-r.Addr:]
			r.Addr = end
		}
		out = append(out, r)
		end = r.End()
	}
	return out
}

// initArrays returns the function pointers of the ELF .init_array,
// .fini_array and .preinit_array and the Mach-O __mod_init_func and
// __mod_term_func sections.
func (v *View) initArrays() []funcs.Seed {
	var bo binary.ByteOrder = binary.LittleEndian
	if v.a.Endian == "big" {
		bo = binary.BigEndian
	}
	ps := v.AddressSize()
	var out []funcs.Seed
	for _, s := range v.a.Sections {
		switch s.Name {
		case ".init_array", ".fini_array", ".preinit_array", "__mod_init_func", "__mod_term_func":
		default:
			continue
		}
		d := v.sectionBytes(s)
		for off, n := 0, 0; off+ps <= len(d) && n < maxInitArray; off, n = off+ps, n+1 {
			var p uint64
			if ps == 4 {
				p = uint64(bo.Uint32(d[off:]))
			} else {
				p = bo.Uint64(d[off:])
			}
			if p != 0 && p != ^uint64(0) && p != uint64(^uint32(0)) {
				out = append(out, funcs.Seed{Addr: p, Source: "init_array"})
			}
		}
	}
	return out
}

// relativeTargets returns the addresses that ELF R_*_RELATIVE
// relocations write into the image, in the executable sections only:
// the function pointers of a position-independent file's data. The
// addend is the target (RELA), or the word at the relocated address
// (REL).
func (v *View) relativeTargets() []funcs.Pointer {
	if v.a.Format != FormatELF {
		return nil
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if v.a.Endian == "big" {
		bo = binary.BigEndian
	}
	ps := uint64(v.AddressSize())
	var out []funcs.Pointer
	for _, r := range v.a.Relocations {
		if !strings.HasSuffix(r.Type, "_RELATIVE") {
			continue
		}
		t := uint64(r.Addend)
		if t == 0 {
			b, ok := v.fileSpan(r.Addr, ps)
			if !ok {
				continue
			}
			if ps == 4 {
				t = uint64(bo.Uint32(b))
			} else {
				t = bo.Uint64(b)
			}
		}
		if v.isExecAddr(t) {
			out = append(out, funcs.Pointer{At: r.Addr, To: t})
		}
	}
	return out
}

// isExecAddr reports whether addr is inside a mapped executable section.
func (v *View) isExecAddr(addr uint64) bool {
	r, ok := v.regionAt(addr)
	return ok && r.perm&PermX != 0
}
