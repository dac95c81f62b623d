package funcs

import (
	"debug/elf"
	"encoding/binary"
	"strings"
	"testing"
)

// elfImage builds an Image from an ELF file with the standard library,
// as the binview loader will: allocated sections as regions, entry
// points (e_entry, DT_INIT, DT_FINI), the init/fini arrays as hints,
// symbols, the PLT sections excluded, and the call-frame sections.
func elfImage(t testing.TB, path string) *Image {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img := &Image{BigEndian: f.ByteOrder == binary.BigEndian}
	switch f.Machine {
	case elf.EM_X86_64:
		img.Arch = "x86-64"
	case elf.EM_386:
		img.Arch = "x86"
	case elf.EM_AARCH64:
		img.Arch = "arm64"
	case elf.EM_RISCV:
		img.Arch = "riscv64"
	case elf.EM_PPC64:
		img.Arch = "ppc64"
		if !img.BigEndian {
			img.Arch = "ppc64le"
		}
	case elf.EM_ARM:
		img.Arch = "arm"
	case elf.EM_S390:
		img.Arch = "s390x"
	case elf.EM_LOONGARCH:
		img.Arch = "loong64"
	default:
		t.Skipf("machine %v", f.Machine)
	}
	ptr := 8
	if f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	img.Entries = append(img.Entries, f.Entry)
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS {
			if s.Name == ".debug_frame" {
				d, _ := s.Data()
				img.DebugFrame = Section{0, d}
			}
			continue
		}
		d, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(s.Name, ".plt") {
			img.Excluded = append(img.Excluded, Range{s.Addr, s.Addr + s.Size})
		}
		switch s.Name {
		case ".eh_frame":
			img.EHFrame = Section{s.Addr, d}
		case ".eh_frame_hdr":
			img.EHFrameHdr = Section{s.Addr, d}
		case ".init_array", ".fini_array", ".preinit_array":
			for off := 0; off+ptr <= len(d); off += ptr {
				var v uint64
				if ptr == 4 {
					v = uint64(f.ByteOrder.Uint32(d[off:]))
				} else {
					v = f.ByteOrder.Uint64(d[off:])
				}
				if v != 0 && v != ^uint64(0) {
					img.Hints = append(img.Hints, Seed{Addr: v, Source: "init_array"})
				}
			}
		}
		img.Regions = append(img.Regions, Region{Name: s.Name, Addr: s.Addr, Data: d, Exec: s.Flags&elf.SHF_EXECINSTR != 0})
	}
	for _, tag := range []elf.DynTag{elf.DT_INIT, elf.DT_FINI} {
		if v, err := f.DynValue(tag); err == nil {
			img.Entries = append(img.Entries, v...)
		}
	}
	addSyms := func(syms []elf.Symbol, src Source) {
		for _, s := range syms {
			typ := elf.ST_TYPE(s.Info)
			if (typ != elf.STT_FUNC && typ != elf.SymType(10)) || s.Section == elf.SHN_UNDEF || s.Value == 0 {
				continue
			}
			img.Symbols = append(img.Symbols, Seed{Addr: s.Value, Name: s.Name, Size: s.Size, Source: src})
		}
	}
	if syms, err := f.Symbols(); err == nil {
		addSyms(syms, SourceSymbol)
	}
	dyn, _ := f.DynamicSymbols()
	addSyms(dyn, SourceExport)
	img.Symbols = append(img.Symbols, pltNames(f, dyn)...)
	return img
}

// pltNames names the PLT stubs from .rela.plt, as objdump does: stub i is
// at .plt.sec + 16*i with CET, else at .plt + 16*(i+1).
func pltNames(f *elf.File, dyn []elf.Symbol) []Seed {
	rel := f.Section(".rela.plt")
	if rel == nil || f.Class != elf.ELFCLASS64 {
		return nil
	}
	d, err := rel.Data()
	if err != nil {
		return nil
	}
	var base uint64
	first := uint64(1)
	if s := f.Section(".plt.sec"); s != nil {
		base, first = s.Addr, 0
	} else if s := f.Section(".plt"); s != nil {
		base = s.Addr
	} else {
		return nil
	}
	var out []Seed
	for i := 0; (i+1)*24 <= len(d); i++ {
		info := f.ByteOrder.Uint64(d[i*24+8:])
		sym := int(info >> 32)
		if sym < 1 || sym > len(dyn) {
			continue
		}
		out = append(out, Seed{Addr: base + 16*(uint64(i)+first), Name: dyn[sym-1].Name + "@plt"})
	}
	return out
}
