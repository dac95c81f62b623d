package binview

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// MachOBuild is build information from a Mach-O file.
type MachOBuild struct {
	UUID string `json:"uuid,omitempty"`
	// Platform is the LC_BUILD_VERSION platform ("macos", "ios") or
	// the LC_VERSION_MIN_* one.
	Platform string `json:"platform,omitempty"`
	MinOS    string `json:"minOs,omitempty"`
	SDK      string `json:"sdk,omitempty"`
	// Tools are the LC_BUILD_VERSION tool records ("ld 1015.7").
	Tools   []string `json:"tools,omitempty"`
	DylibID string   `json:"dylibId,omitempty"`
	RPaths  []string `json:"rpaths,omitempty"`
	// Dylibs are the linked libraries in load-command order.
	Dylibs []string `json:"dylibs,omitempty"`
	Flags  []string `json:"flags,omitempty"`
}

func machoArch(c macho.Cpu) Arch {
	switch c {
	case macho.Cpu386:
		return ArchX86
	case macho.CpuAmd64:
		return ArchX86_64
	case macho.CpuArm:
		return ArchARM
	case macho.CpuArm64:
		return ArchARM64
	case macho.CpuPpc64:
		return ArchPPC64
	}
	return ArchUnknown
}

// fatSlices reads a fat header (big-endian, 32- or 64-bit arch records).
func fatSlices(data []byte) ([]Slice, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("short fat header")
	}
	is64 := binary.BigEndian.Uint32(data) == 0xcafebabf
	n := int(binary.BigEndian.Uint32(data[4:]))
	rec := 20
	if is64 {
		rec = 32
	}
	if n <= 0 || n > 64 || 8+n*rec > len(data) {
		return nil, fmt.Errorf("bad fat arch count")
	}
	var out []Slice
	for i := 0; i < n; i++ {
		r := data[8+i*rec:]
		cpu := macho.Cpu(binary.BigEndian.Uint32(r))
		var off, size uint64
		if is64 {
			off, size = binary.BigEndian.Uint64(r[8:]), binary.BigEndian.Uint64(r[16:])
		} else {
			off, size = uint64(binary.BigEndian.Uint32(r[8:])), uint64(binary.BigEndian.Uint32(r[12:]))
		}
		if off > uint64(len(data)) || size > uint64(len(data))-off {
			return nil, fmt.Errorf("fat slice outside the file")
		}
		out = append(out, Slice{Arch: machoArch(cpu), Offset: int64(off), Size: int64(size), CPU: cpu.String()})
	}
	return out, nil
}

// Mach-O load commands read by hand.
const (
	lcUnixThread     = 0x5
	lcLoadDylib      = 0xc
	lcIDDylib        = 0xd
	lcUUID           = 0x1b
	lcCodeSignature  = 0x1d
	lcEncryption     = 0x21
	lcVersionMinMac  = 0x24
	lcVersionMinIOS  = 0x25
	lcFunctionStarts = 0x26
	lcEncryption64   = 0x2c
	lcVersionMinTV   = 0x2f
	lcVersionMinWat  = 0x30
	lcBuildVersion   = 0x32
	lcReqDyld        = 0x80000000
	lcMain           = 0x28 | lcReqDyld
	lcRPath          = 0x1c | lcReqDyld
	lcLoadWeakDylib  = 0x18 | lcReqDyld
	lcReexportDylib  = 0x1f | lcReqDyld
	lcLazyLoadDylib  = 0x20
	lcLoadUpward     = 0x23 | lcReqDyld
)

func (b *builder) macho() error {
	data, sliceOff := b.data, int64(0)
	if m := binary.BigEndian.Uint32(data); m == 0xcafebabe || m == 0xcafebabf {
		slices, err := fatSlices(data)
		if err != nil {
			return errAnalysisFailed(err)
		}
		b.a.Slices = slices
		pick := -1
		for i, s := range slices {
			if b.o.Slice == "" || s.Arch == b.o.Slice {
				pick = i
				break
			}
		}
		if pick < 0 {
			return newErr(CodeInvalidOptions, "the fat file has no slice of that architecture")
		}
		sliceOff = slices[pick].Offset
		data = data[sliceOff : sliceOff+slices[pick].Size]
		b.a.SliceOffset = sliceOff
	}
	f, err := macho.NewFile(bytes.NewReader(data))
	if err != nil {
		return errAnalysisFailed(err)
	}
	a := b.a
	a.Arch = machoArch(f.Cpu)
	a.Machine = f.Cpu.String()
	a.Bits = 32
	if f.Magic == macho.Magic64 {
		a.Bits = 64
	}
	a.Endian = "little"
	if f.ByteOrder == binary.BigEndian {
		a.Endian = "big"
	}
	const mhPIE, mhNoHeapExec, mhAllowStackExec = 0x200000, 0x1000000, 0x20000
	switch f.Type {
	case macho.TypeExec:
		a.Kind = "executable"
		if f.Flags&mhPIE != 0 {
			a.Kind = "pie"
		}
	case macho.TypeDylib, macho.TypeBundle:
		a.Kind = "shared_library"
	case macho.TypeObj:
		a.Kind = "object"
	default:
		a.Kind = "other"
	}
	m := &machoState{b: b, f: f, sliceOff: sliceOff, data: data}
	lowest := ^uint64(0)
	for _, l := range f.Loads {
		seg, ok := l.(*macho.Segment)
		if !ok {
			continue
		}
		m.segs = append(m.segs, seg)
		if seg.Name == "__TEXT" {
			m.textVM = seg.Addr
		}
		if seg.Prot == 0 && seg.Filesz == 0 {
			continue // __PAGEZERO
		}
		if b.addSegment(Segment{Name: seg.Name, Addr: seg.Addr, Size: seg.Memsz, Offset: sliceOff + int64(seg.Offset),
			FileSize: int64(seg.Filesz), Perm: machoPerm(seg.Prot), Type: "SEGMENT"}) && seg.Addr < lowest {
			lowest = seg.Addr
		}
	}
	if lowest != ^uint64(0) {
		a.ImageBase = lowest
	}
	for _, s := range f.Sections {
		typ := s.Flags & 0xff
		sec := Section{Name: s.Name, Segment: s.Seg, Addr: s.Addr, Size: s.Size, Offset: sliceOff + int64(s.Offset),
			FileSize: int64(s.Size), Mapped: true, Type: machoSectionType(typ)}
		if typ == 0x1 || typ == 0xc || typ == 0x12 || s.Offset == 0 {
			sec.FileSize = 0
		}
		for _, seg := range m.segs {
			if seg.Name == s.Seg {
				sec.Perm = machoPerm(seg.Prot)
			}
		}
		if !b.addSection(sec) {
			break
		}
		switch {
		case s.Name == "__gopclntab":
			if bs, ok := b.fileBytes(sec.Offset, uint64(sec.FileSize)); ok {
				b.goPclntab, b.goPclntabAddr = bs, s.Addr
			}
		case s.Name == "__go_buildinfo":
			b.goBuildInfo, _ = b.fileBytes(sec.Offset, uint64(sec.FileSize))
		case s.Name == "__text" && s.Seg == "__TEXT":
			b.goTextStart = s.Addr
		}
	}
	if err := b.ctx.Err(); err != nil {
		return err
	}
	bi := &MachOBuild{}
	a.Build.MachO = bi
	b.guard("Mach-O load commands", func() { m.loads(bi) })
	b.guard("Mach-O symbols", m.symbols)
	b.guard("Mach-O indirect symbols", m.indirect)
	for _, fl := range []struct {
		bit  uint32
		name string
	}{{0x1, "NOUNDEFS"}, {0x4, "DYLDLINK"}, {0x80, "TWOLEVEL"}, {mhPIE, "PIE"}, {mhNoHeapExec, "NO_HEAP_EXECUTION"}, {mhAllowStackExec, "ALLOW_STACK_EXECUTION"}} {
		if f.Flags&fl.bit != 0 {
			bi.Flags = append(bi.Flags, fl.name)
		}
	}
	m.hardening(f.Flags&mhPIE != 0, f.Flags&mhNoHeapExec != 0, f.Flags&mhAllowStackExec != 0)
	return nil
}

func machoPerm(p uint32) Perm {
	var r Perm
	if p&1 != 0 {
		r |= PermR
	}
	if p&2 != 0 {
		r |= PermW
	}
	if p&4 != 0 {
		r |= PermX
	}
	return r
}

var machoSectionTypes = map[uint32]string{
	0x0: "S_REGULAR", 0x1: "S_ZEROFILL", 0x2: "S_CSTRING_LITERALS", 0x3: "S_4BYTE_LITERALS", 0x4: "S_8BYTE_LITERALS",
	0x5: "S_LITERAL_POINTERS", 0x6: "S_NON_LAZY_SYMBOL_POINTERS", 0x7: "S_LAZY_SYMBOL_POINTERS", 0x8: "S_SYMBOL_STUBS",
	0x9: "S_MOD_INIT_FUNC_POINTERS", 0xa: "S_MOD_TERM_FUNC_POINTERS", 0xb: "S_COALESCED", 0xc: "S_GB_ZEROFILL",
	0xd: "S_INTERPOSING", 0xe: "S_16BYTE_LITERALS", 0x10: "S_LAZY_DYLIB_SYMBOL_POINTERS", 0x11: "S_THREAD_LOCAL_REGULAR",
	0x12: "S_THREAD_LOCAL_ZEROFILL", 0x13: "S_THREAD_LOCAL_VARIABLES", 0x14: "S_THREAD_LOCAL_VARIABLE_POINTERS",
	0x15: "S_THREAD_LOCAL_INIT_FUNCTION_POINTERS",
}

func machoSectionType(t uint32) string {
	if s, ok := machoSectionTypes[t]; ok {
		return s
	}
	return fmt.Sprintf("%#x", t)
}

type machoState struct {
	b        *builder
	f        *macho.File
	data     []byte // the slice
	sliceOff int64
	segs     []*macho.Segment
	textVM   uint64
	dylibs   []string
	// importAt maps a symbol table index to its import.
	importAt map[int]int
	names    map[string]struct{}
	signed   bool
	crypt    bool
}

func (m *machoState) u32(b []byte) uint32 { return m.f.ByteOrder.Uint32(b) }
func (m *machoState) u64(b []byte) uint64 { return m.f.ByteOrder.Uint64(b) }

// lcString reads the string a load command points to at offset field.
func (m *machoState) lcString(raw []byte, field int) string {
	if len(raw) < field+4 {
		return ""
	}
	off := int(m.u32(raw[field:]))
	if off <= 0 || off >= len(raw) {
		return ""
	}
	return cString(raw[off:])
}

func machoVersion(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", v>>16, (v>>8)&0xff, v&0xff)
}

var machoPlatforms = map[uint32]string{1: "macos", 2: "ios", 3: "tvos", 4: "watchos", 5: "bridgeos", 6: "maccatalyst",
	7: "ios_simulator", 8: "tvos_simulator", 9: "watchos_simulator", 10: "driverkit", 11: "visionos", 12: "visionos_simulator"}

var machoTools = map[uint32]string{1: "clang", 2: "swift", 3: "ld", 4: "lld"}

func (m *machoState) loads(bi *MachOBuild) {
	a := m.b.a
	for _, l := range m.f.Loads {
		raw := l.Raw()
		if len(raw) < 8 {
			continue
		}
		switch cmd := m.u32(raw); cmd {
		case lcLoadDylib, lcLoadWeakDylib, lcReexportDylib, lcLazyLoadDylib, lcLoadUpward:
			n := m.lcString(raw, 8)
			m.dylibs = append(m.dylibs, n)
			m.b.addLibrary(n)
		case lcIDDylib:
			bi.DylibID = m.lcString(raw, 8)
		case lcRPath:
			if len(bi.RPaths) < 64 {
				bi.RPaths = append(bi.RPaths, m.lcString(raw, 8))
			}
		case lcUUID:
			if len(raw) >= 24 {
				bi.UUID = hex.EncodeToString(raw[8:24])
			}
		case lcBuildVersion:
			if len(raw) >= 24 {
				bi.Platform = machoPlatforms[m.u32(raw[8:])]
				bi.MinOS, bi.SDK = machoVersion(m.u32(raw[12:])), machoVersion(m.u32(raw[16:]))
				n := int(m.u32(raw[20:]))
				for i := 0; i < n && i < 16 && 24+8*i+8 <= len(raw); i++ {
					t := m.u32(raw[24+8*i:])
					name, ok := machoTools[t]
					if !ok {
						name = fmt.Sprintf("tool%d", t)
					}
					bi.Tools = append(bi.Tools, name+" "+machoVersion(m.u32(raw[28+8*i:])))
				}
			}
		case lcVersionMinMac, lcVersionMinIOS, lcVersionMinTV, lcVersionMinWat:
			if len(raw) >= 16 && bi.Platform == "" {
				bi.Platform = map[uint32]string{lcVersionMinMac: "macos", lcVersionMinIOS: "ios", lcVersionMinTV: "tvos", lcVersionMinWat: "watchos"}[cmd]
				bi.MinOS, bi.SDK = machoVersion(m.u32(raw[8:])), machoVersion(m.u32(raw[12:]))
			}
		case lcMain:
			if len(raw) >= 16 {
				a.Entry = m.textVM + m.u64(raw[8:])
				a.Entries = append(a.Entries, EntryPoint{Addr: a.Entry, Kind: "entry"})
			}
		case lcUnixThread:
			if pc, ok := m.threadPC(raw); ok && a.Entry == 0 {
				a.Entry = pc
				a.Entries = append(a.Entries, EntryPoint{Addr: pc, Kind: "entry"})
			}
		case lcFunctionStarts:
			if len(raw) >= 16 {
				m.functionStarts(int64(m.u32(raw[8:])), uint64(m.u32(raw[12:])))
			}
		case lcCodeSignature:
			m.signed = true
		case lcEncryption, lcEncryption64:
			if len(raw) >= 20 && m.u32(raw[16:]) != 0 {
				m.crypt = true
			}
		}
	}
	bi.Dylibs = capList(m.dylibs, 4096)
}

// threadPC reads the program counter of an LC_UNIXTHREAD state.
func (m *machoState) threadPC(raw []byte) (uint64, bool) {
	if len(raw) < 16 {
		return 0, false
	}
	flavor := m.u32(raw[8:])
	st := raw[16:]
	switch {
	case m.f.Cpu == macho.CpuAmd64 && flavor == 4 && len(st) >= 17*8:
		return m.u64(st[16*8:]), true
	case m.f.Cpu == macho.CpuArm64 && flavor == 6 && len(st) >= 33*8:
		return m.u64(st[32*8:]), true
	case m.f.Cpu == macho.Cpu386 && flavor == 1 && len(st) >= 11*4:
		return uint64(m.u32(st[10*4:])), true
	case m.f.Cpu == macho.CpuArm && flavor == 1 && len(st) >= 16*4:
		return uint64(m.u32(st[15*4:])), true
	}
	return 0, false
}

// functionStarts decodes LC_FUNCTION_STARTS: ULEB128 deltas from the
// start of __TEXT, ended by a zero.
func (m *machoState) functionStarts(off int64, size uint64) {
	bs, ok := m.b.fileBytes(m.sliceOff+off, size)
	if !ok {
		m.b.warn(WarnMalformed, "the function starts table lies outside the file")
		return
	}
	addr := m.textVM
	for len(bs) > 0 {
		d, n := binary.Uvarint(bs)
		if n <= 0 || d == 0 {
			return
		}
		bs = bs[n:]
		addr += d
		if !m.b.addHint(FunctionHint{Addr: addr, Source: "function_starts"}) {
			return
		}
	}
}

func (m *machoState) symbols() {
	st := m.f.Symtab
	if st == nil || len(st.Syms) == 0 {
		m.b.a.Stripped = true
		return
	}
	m.importAt = make(map[int]int)
	m.names = make(map[string]struct{})
	const nStab, nType, nExt, nPext, nUndf, nSect = 0xe0, 0x0e, 0x01, 0x10, 0x0, 0xe
	defined := 0
	for i, s := range st.Syms {
		if err := m.b.check(i); err != nil {
			return
		}
		if s.Type&nStab != 0 || s.Name == "" {
			continue
		}
		m.names[s.Name] = struct{}{}
		switch s.Type & nType {
		case nUndf:
			if s.Type&nExt == 0 || s.Value != 0 {
				continue
			}
			lib := ""
			if ord := int(s.Desc >> 8); ord >= 1 && ord <= len(m.dylibs) {
				lib = m.dylibs[ord-1]
			}
			if m.b.addImport(Import{Name: s.Name, Library: lib, Weak: s.Desc&0x80 != 0}) {
				m.importAt[i] = len(m.b.a.Imports) - 1
			}
		case nSect:
			defined++
			kind := SymObject
			if int(s.Sect) >= 1 && int(s.Sect) <= len(m.f.Sections) {
				sec := m.f.Sections[s.Sect-1]
				if sec.Flags&0x80000400 != 0 { // S_ATTR_PURE_INSTRUCTIONS | S_ATTR_SOME_INSTRUCTIONS
					kind = SymFunction
				}
			}
			bind := "local"
			if s.Type&nExt != 0 {
				bind = "global"
				if s.Desc&0x80 != 0 {
					bind = "weak"
				}
			}
			m.b.addSymbol(Symbol{Name: s.Name, Addr: s.Value, Kind: kind, Binding: bind, Source: "macho"})
			if s.Type&nExt != 0 && s.Type&nPext == 0 {
				m.b.addExport(Export{Name: s.Name, Addr: s.Value, Kind: kind})
			}
		}
	}
	m.b.a.Stripped = defined == 0
}

// indirect fills import slots and stubs from the indirect symbol table
// and the section headers' reserved fields.
func (m *machoState) indirect() {
	dt := m.f.Dysymtab
	if dt == nil || len(dt.IndirectSyms) == 0 || m.importAt == nil {
		return
	}
	ptr := uint64(m.b.a.Bits / 8)
	hdr, rec := 56, 68
	if m.b.a.Bits == 64 {
		hdr, rec = 72, 80
	}
	for _, seg := range m.segs {
		raw := seg.Raw()
		for i := 0; i < int(seg.Nsect) && hdr+(i+1)*rec <= len(raw); i++ {
			r := raw[hdr+i*rec:]
			var addr, size uint64
			var flagsAt int
			if m.b.a.Bits == 64 {
				addr, size, flagsAt = m.u64(r[32:]), m.u64(r[40:]), 64
			} else {
				addr, size, flagsAt = uint64(m.u32(r[32:])), uint64(m.u32(r[36:])), 56
			}
			flags, res1, res2 := m.u32(r[flagsAt:]), m.u32(r[flagsAt+4:]), m.u32(r[flagsAt+8:])
			stride, stub := ptr, false
			switch flags & 0xff {
			case 0x6, 0x7, 0x10, 0x14:
			case 0x8:
				stride, stub = uint64(res2), true
			default:
				continue
			}
			if stride == 0 {
				continue
			}
			for j := uint64(0); j < size/stride && j < 1<<20; j++ {
				k := uint64(res1) + j
				if k >= uint64(len(dt.IndirectSyms)) {
					break
				}
				idx, ok := m.importAt[int(dt.IndirectSyms[k])]
				if !ok {
					continue
				}
				imp := &m.b.a.Imports[idx]
				if stub {
					imp.Stub = addr + j*stride
				} else if imp.Slot == 0 {
					imp.Slot = addr + j*stride
				}
			}
		}
	}
}

func (m *machoState) hardening(pie, nxHeap, execStack bool) {
	a := m.b.a
	var c []Check
	switch a.Kind {
	case "pie":
		c = append(c, Check{Name: "pie", Status: StatusYes})
	case "executable":
		c = append(c, Check{Name: "pie", Status: StatusNo})
	default:
		c = append(c, Check{Name: "pie", Status: StatusNA})
	}
	c = append(c, Check{Name: "nx_stack", Status: yesNo(!execStack)})
	c = append(c, Check{Name: "nx_heap", Status: yesNo(nxHeap)})
	isGo := m.b.goPclntab != nil
	switch {
	case hasAny(m.names, canaryNames):
		c = append(c, Check{Name: "canary", Status: StatusYes})
	case isGo:
		c = append(c, Check{Name: "canary", Status: StatusNA, Detail: "Go checks stack bounds in every function prologue"})
	case len(m.names) == 0:
		c = append(c, Check{Name: "canary", Status: StatusUnknown})
	default:
		c = append(c, Check{Name: "canary", Status: StatusNo})
	}
	if hasAny(m.names, []string{"objc_release"}) {
		c = append(c, Check{Name: "arc", Status: StatusYes})
	}
	if fort := fortified(m.names); len(fort) > 0 {
		c = append(c, Check{Name: "fortify", Status: StatusYes, Detail: strings.Join(capList(fort, 8), ", ")})
	}
	c = append(c, Check{Name: "code_signature", Status: yesNo(m.signed)})
	c = append(c, Check{Name: "encrypted", Status: yesNo(m.crypt)})
	for _, s := range m.segs {
		if s.Name == "__RESTRICT" {
			c = append(c, Check{Name: "restrict", Status: StatusYes})
		}
	}
	a.Hardening = c
}
