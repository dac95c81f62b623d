package binview

import (
	"debug/elf"
	"encoding/hex"
	"fmt"
	"strings"
)

// elfDynamic is what the dynamic section says.
type elfDynamic struct {
	needed          []string
	soname          string
	rpath, runpath  []string
	flags, flags1   uint64
	bindNow         bool
	init, fini      uint64
	textrel, hasDyn bool
}

// ELFBuild is build information from an ELF file.
type ELFBuild struct {
	// BuildID is the NT_GNU_BUILD_ID note, hex.
	BuildID string `json:"buildId,omitempty"`
	// GoBuildID is the Go linker's build ID note.
	GoBuildID   string   `json:"goBuildId,omitempty"`
	Interpreter string   `json:"interpreter,omitempty"`
	Needed      []string `json:"needed,omitempty"`
	SOName      string   `json:"soname,omitempty"`
	RPath       []string `json:"rpath,omitempty"`
	RunPath     []string `json:"runpath,omitempty"`
	// Comment holds the .comment strings ("GCC: (Debian 12.2.0-14)
	// 12.2.0").
	Comment []string `json:"comment,omitempty"`
	OSABI   string   `json:"osabi,omitempty"`
}

// dynamic parses the dynamic table from .dynamic or PT_DYNAMIC.
func (e *elfState) dynamic() {
	var raw []byte
	var str []byte
	if s := e.f.SectionByType(elf.SHT_DYNAMIC); s != nil {
		raw, _ = e.bytes(s)
		if int(s.Link) < len(e.f.Sections) {
			str, _ = e.bytes(e.f.Sections[s.Link])
		}
	}
	if raw == nil {
		for _, p := range e.f.Progs {
			if p.Type == elf.PT_DYNAMIC {
				raw, _ = e.b.fileBytes(int64(p.Off), p.Filesz)
				break
			}
		}
	}
	if raw == nil {
		return
	}
	e.dyn.hasDyn = true
	word := 4
	if e.is64 {
		word = 8
	}
	get := func(b []byte) uint64 {
		if e.is64 {
			return e.bo.Uint64(b)
		}
		return uint64(e.bo.Uint32(b))
	}
	type ent struct {
		tag elf.DynTag
		val uint64
	}
	var ents []ent
	var strtab, strsz uint64
	for off := 0; off+2*word <= len(raw) && len(ents) < 1<<16; off += 2 * word {
		t := elf.DynTag(get(raw[off:]))
		v := get(raw[off+word:])
		if t == elf.DT_NULL {
			break
		}
		ents = append(ents, ent{t, v})
		switch t {
		case elf.DT_STRTAB:
			strtab = v
		case elf.DT_STRSZ:
			strsz = v
		}
	}
	if str == nil && strtab != 0 {
		if off, ok := e.offsetOf(strtab); ok {
			str, _ = e.b.fileBytes(off, strsz)
		}
	}
	name := func(v uint64) string {
		if v >= uint64(len(str)) {
			return ""
		}
		return cString(str[v:])
	}
	for _, d := range ents {
		switch d.tag {
		case elf.DT_NEEDED:
			if n := name(d.val); n != "" && len(e.dyn.needed) < 4096 {
				e.dyn.needed = append(e.dyn.needed, n)
				e.b.addLibrary(n)
			}
		case elf.DT_SONAME:
			e.dyn.soname = name(d.val)
		case elf.DT_RPATH:
			e.dyn.rpath = append(e.dyn.rpath, strings.Split(name(d.val), ":")...)
		case elf.DT_RUNPATH:
			e.dyn.runpath = append(e.dyn.runpath, strings.Split(name(d.val), ":")...)
		case elf.DT_FLAGS:
			e.dyn.flags = d.val
		case elf.DT_FLAGS_1:
			e.dyn.flags1 = d.val
		case elf.DT_BIND_NOW:
			e.dyn.bindNow = true
		case elf.DT_INIT:
			e.dyn.init = d.val
		case elf.DT_FINI:
			e.dyn.fini = d.val
		case elf.DT_TEXTREL:
			e.dyn.textrel = true
		}
	}
	if e.dyn.flags&uint64(elf.DF_BIND_NOW) != 0 || e.dyn.flags1&uint64(elf.DF_1_NOW) != 0 {
		e.dyn.bindNow = true
	}
	if e.dyn.flags&uint64(elf.DF_TEXTREL) != 0 {
		e.dyn.textrel = true
	}
}

// offsetOf maps an address to a file offset through the PT_LOAD
// segments.
func (e *elfState) offsetOf(addr uint64) (int64, bool) {
	for _, s := range e.b.a.Segments {
		if addr >= s.Addr && addr-s.Addr < uint64(s.FileSize) {
			return s.Offset + int64(addr-s.Addr), true
		}
	}
	return 0, false
}

// pltLayout returns where the stub for PLT relocation i lives, for the
// architectures whose PLT has a fixed layout (a 32-byte header, then
// 16-byte entries in relocation order).
func (e *elfState) pltLayout() func(i int) uint64 {
	plt := e.section(".plt")
	switch e.b.a.Arch {
	case ArchARM64, ArchRISCV64:
		if plt != nil && plt.Size >= 48 {
			return func(i int) uint64 { return plt.Addr + 32 + 16*uint64(i) }
		}
	}
	return nil
}

// x86PLTStubs decodes the x86 PLT sections (.plt, .plt.sec, .plt.got)
// as objdump does: each stub's indirect jump names the GOT slot it goes
// through. It returns the stub address for each slot.
func (e *elfState) x86PLTStubs() map[uint64]uint64 {
	out := map[uint64]uint64{}
	var gotplt uint64
	if s := e.section(".got.plt"); s != nil {
		gotplt = s.Addr
	} else if s := e.section(".got"); s != nil {
		gotplt = s.Addr
	}
	for _, name := range []string{".plt", ".plt.sec", ".plt.got"} {
		s := e.section(name)
		bs, ok := e.bytes(s)
		if !ok || len(bs) > 1<<24 {
			continue
		}
		step := 16
		if s.Entsize == 8 {
			step = 8
		}
		for at := 0; at+step <= len(bs); at += step {
			ent := bs[at : at+step]
			addr := s.Addr + uint64(at)
			for k := 0; k+6 <= len(ent) && k <= 8; k++ {
				if ent[k] != 0xff {
					continue
				}
				disp := int64(int32(e.bo.Uint32(ent[k+2:])))
				var slot uint64
				switch {
				case ent[k+1] == 0x25 && e.b.a.Arch == ArchX86_64: // jmp *disp(%rip)
					slot = addr + uint64(k) + 6 + uint64(disp)
				case ent[k+1] == 0x25: // jmp *abs32
					slot = uint64(uint32(disp))
				case ent[k+1] == 0xa3 && gotplt != 0: // jmp *disp(%ebx)
					slot = uint64(uint32(gotplt + uint64(disp)))
				default:
					continue
				}
				if _, dup := out[slot]; !dup {
					out[slot] = addr
				}
				break
			}
		}
	}
	return out
}

// relocations reads every REL and RELA table, and fills the import
// slots and PLT stubs from the jump-slot relocations.
func (e *elfState) relocations() {
	var stub func(int) uint64
	var stubBySlot map[uint64]uint64
	if a := e.b.a.Arch; a == ArchX86_64 || a == ArchX86 {
		stubBySlot = e.x86PLTStubs()
	} else {
		stub = e.pltLayout()
	}
	n := 0
	for _, s := range e.f.Sections {
		if s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL {
			continue
		}
		raw, ok := e.bytes(s)
		if !ok {
			continue
		}
		rela := s.Type == elf.SHT_RELA
		var size int
		switch {
		case e.is64 && rela:
			size = 24
		case e.is64:
			size = 16
		case rela:
			size = 12
		default:
			size = 8
		}
		names, dynLinked := e.symNames, false
		if int(s.Link) < len(e.f.Sections) && e.f.Sections[s.Link].Type == elf.SHT_DYNSYM {
			names, dynLinked = e.dynNames, true
		}
		isPLT := s.Name == ".rela.plt" || s.Name == ".rel.plt"
		for i := 0; (i+1)*size <= len(raw); i++ {
			if err := e.b.check(n); err != nil {
				return
			}
			n++
			r := raw[i*size:]
			var off, info uint64
			var addend int64
			var sym int
			var typ uint32
			if e.is64 {
				off, info = e.bo.Uint64(r), e.bo.Uint64(r[8:])
				sym, typ = int(info>>32), uint32(info)
				if rela {
					addend = int64(e.bo.Uint64(r[16:]))
				}
			} else {
				off, info = uint64(e.bo.Uint32(r)), uint64(e.bo.Uint32(r[4:]))
				sym, typ = int(info>>8), uint32(info&0xff)
				if rela {
					addend = int64(int32(e.bo.Uint32(r[8:])))
				}
			}
			rel := Relocation{Addr: off, Type: elfRelocName(e.f.Machine, typ), Addend: addend, Section: s.Name}
			if sym > 0 && sym < len(names) {
				rel.Symbol = names[sym]
			}
			if !e.b.addReloc(rel) {
				return
			}
			if idx, ok := e.importAt[sym]; ok && dynLinked {
				imp := &e.b.a.Imports[idx]
				if isPLT || imp.Slot == 0 {
					imp.Slot = off
				}
				if isPLT && stub != nil {
					imp.Stub = stub(i)
				}
				if st, ok := stubBySlot[off]; ok && (imp.Stub == 0 || isPLT) {
					imp.Stub = st
				}
			}
		}
	}
}

func elfRelocName(m elf.Machine, t uint32) string {
	var s string
	switch m {
	case elf.EM_X86_64:
		s = elf.R_X86_64(t).String()
	case elf.EM_386:
		s = elf.R_386(t).String()
	case elf.EM_AARCH64:
		s = elf.R_AARCH64(t).String()
	case elf.EM_ARM:
		s = elf.R_ARM(t).String()
	case elf.EM_RISCV:
		s = elf.R_RISCV(t).String()
	case elf.EM_PPC64:
		s = elf.R_PPC64(t).String()
	case elf.EM_S390:
		s = elf.R_390(t).String()
	case elf.EM_LOONGARCH:
		s = elf.R_LARCH(t).String()
	default:
		return fmt.Sprintf("R_%d", t)
	}
	return s
}

// GNU property types.
const (
	gnuPropertyX86Feature1    = 0xc0000002
	gnuPropertyAArch64Feature = 0xc0000000
)

// notes reads the build ID, the Go build ID and GNU properties from
// the note sections (or PT_NOTE segments when there are no sections).
func (e *elfState) notes() {
	var blobs [][]byte
	var aligns []uint64
	for _, s := range e.f.Sections {
		if s.Type == elf.SHT_NOTE {
			if bs, ok := e.bytes(s); ok {
				blobs, aligns = append(blobs, bs), append(aligns, s.Addralign)
			}
		}
	}
	if len(blobs) == 0 {
		for _, p := range e.f.Progs {
			if p.Type == elf.PT_NOTE {
				if bs, ok := e.b.fileBytes(int64(p.Off), p.Filesz); ok {
					blobs, aligns = append(blobs, bs), append(aligns, p.Align)
				}
			}
		}
	}
	for i, bs := range blobs {
		align := 4
		if aligns[i] == 8 {
			align = 8
		}
		e.noteBlob(bs, align)
	}
}

func alignUp(n, a int) int { return (n + a - 1) &^ (a - 1) }

func (e *elfState) noteBlob(bs []byte, align int) {
	for count := 0; len(bs) >= 12 && count < 256; count++ {
		namesz, descsz, typ := int(e.bo.Uint32(bs)), int(e.bo.Uint32(bs[4:])), e.bo.Uint32(bs[8:])
		if namesz < 0 || descsz < 0 || namesz > len(bs) || descsz > len(bs) {
			return
		}
		nameEnd := 12 + namesz
		descOff := alignUp(nameEnd, align)
		descEnd := descOff + descsz
		if descEnd > len(bs) || descEnd < 0 {
			return
		}
		name := cString(bs[12:nameEnd])
		desc := bs[descOff:descEnd]
		switch {
		case name == "GNU" && typ == 3: // NT_GNU_BUILD_ID
			if len(desc) <= 64 {
				e.buildID = hex.EncodeToString(desc)
			}
		case name == "Go" && typ == 4: // the Go linker's build ID
			if len(desc) <= 256 {
				e.goBuildID = string(desc)
			}
		case name == "GNU" && typ == 5: // NT_GNU_PROPERTY_TYPE_0
			e.gnuProperties(desc)
		}
		next := alignUp(descEnd, align)
		if next > len(bs) {
			return
		}
		bs = bs[next:]
	}
}

func (e *elfState) gnuProperties(desc []byte) {
	pad := 4
	if e.is64 {
		pad = 8
	}
	for count := 0; len(desc) >= 8 && count < 64; count++ {
		typ, sz := e.bo.Uint32(desc), int(e.bo.Uint32(desc[4:]))
		if sz < 0 || 8+sz > len(desc) {
			return
		}
		if sz >= 4 {
			v := e.bo.Uint32(desc[8:])
			switch typ {
			case gnuPropertyX86Feature1:
				e.x86Features, e.hasProperty = v, true
			case gnuPropertyAArch64Feature:
				e.armFeatures, e.hasProperty = v, true
			}
		}
		next := alignUp(8+sz, pad)
		if next > len(desc) {
			return
		}
		desc = desc[next:]
	}
}
