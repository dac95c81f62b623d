package binview

import (
	"encoding/binary"
	"sort"
	"strconv"
	"strings"
)

// Symbol resolves a name for address expressions, in this order: a
// symbol of that name (symbol tables, exports, Go's pclntab; Mach-O
// names also without their leading underscore), an import (its PLT
// stub or IAT/GOT slot; "name@plt" is the stub and "__imp_name" the
// slot), an automatic name (sub_401000, data_4010a0,
// loc_401005: any mapped address), then a demangled C++ or Rust name
// when exactly one address has it ('ns::f(int)' or 'ns::f'), then a name
// the code analysis gave a function (main on stripped C) when one has it.
func (v *View) Symbol(name string) (uint64, bool) {
	if i, ok := v.symByName[name]; ok {
		return v.syms[i].Addr, true
	}
	if v.a.Format == FormatMachO {
		if i, ok := v.symByName["_"+name]; ok {
			return v.syms[i].Addr, true
		}
	}
	if i, ok := v.impByName[name]; ok {
		return v.a.Imports[i].Addr(), true
	}
	if v.a.Format == FormatMachO {
		if i, ok := v.impByName["_"+name]; ok {
			return v.a.Imports[i].Addr(), true
		}
	}
	// objdump's "printf@plt" is the stub; the linker's "__imp_CreateFileW"
	// the IAT slot.
	if n, ok := strings.CutSuffix(name, "@plt"); ok {
		if i, ok := v.impByName[n]; ok && v.a.Imports[i].Stub != 0 {
			return v.a.Imports[i].Stub, true
		}
	}
	if n, ok := strings.CutPrefix(name, "__imp_"); ok {
		if i, ok := v.impByName[n]; ok && v.a.Imports[i].Slot != 0 {
			return v.a.Imports[i].Slot, true
		}
	}
	if addr, ok := autoName(name); ok && v.Mapped(addr) {
		return addr, true
	}
	if i, ok := v.demangled[name]; ok && i >= 0 {
		return v.syms[i].Addr, true
	}
	// Last, a name the code analysis gave a function the file does not
	// name (main found from the start-up code of a stripped C program,
	// _start, _init, _fini), once the function stages have run and when
	// exactly one function has it.
	var at uint64
	n := 0
	for _, f := range v.CodeState().Functions {
		if f.Name == name {
			at, n = f.Addr, n+1
		}
	}
	if n == 1 {
		return at, true
	}
	return 0, false
}

// autoName parses sub_<hex>, data_<hex> and loc_<hex>.
func autoName(name string) (uint64, bool) {
	for _, p := range []string{"sub_", "data_", "loc_"} {
		if h, ok := strings.CutPrefix(name, p); ok && h != "" && len(h) <= 16 {
			n, err := strconv.ParseUint(h, 16, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// Section returns the bounds of the mapped section called name
// (".text", "__text", "__TEXT,__text"), or failing that of the segment
// called name ("__TEXT", "LOAD0"); end is exclusive.
func (v *View) Section(name string) (start, end uint64, ok bool) {
	if i, ok := v.secByName[name]; ok {
		s := v.a.Sections[i]
		return s.Addr, s.End(), true
	}
	for _, s := range v.a.Segments {
		if s.Name == name {
			return s.Addr, s.End(), true
		}
	}
	return 0, 0, false
}

// Read returns the unsigned value of size (1, 2, 4 or 8) bytes at addr
// in the file's byte order, for [e] in address expressions. A read that
// is not wholly mapped fails.
func (v *View) Read(addr uint64, size int) (uint64, error) {
	switch size {
	case 1, 2, 4, 8:
	default:
		size = 8
	}
	b, err := v.Bytes(addr, size)
	if err != nil {
		return 0, err
	}
	if len(b) < size {
		return 0, errUnmapped()
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if v.a.Endian == "big" {
		bo = binary.BigEndian
	}
	switch size {
	case 1:
		return uint64(b[0]), nil
	case 2:
		return uint64(bo.Uint16(b)), nil
	case 4:
		return uint64(bo.Uint32(b)), nil
	}
	return bo.Uint64(b), nil
}

// Here reports no current address: a View has no cursor.
func (v *View) Here() (uint64, bool) { return 0, false }

// Start is the lowest mapped address.
func (v *View) Start() uint64 {
	if len(v.regions) == 0 {
		return 0
	}
	return v.regions[0].addr
}

// End is the address just past the highest mapped byte.
func (v *View) End() uint64 {
	var e uint64
	for i := range v.regions {
		e = max(e, v.regions[i].end())
	}
	return e
}

// AddressSize is 4 for 32-bit files and 8 otherwise.
func (v *View) AddressSize() int {
	if v.a.Bits == 32 {
		return 4
	}
	return 8
}

// SymbolByName returns the symbol called name exactly (no imports,
// automatic or demangled names; see Symbol for those).
func (v *View) SymbolByName(name string) (Symbol, bool) {
	if i, ok := v.symByName[name]; ok {
		return v.syms[i], true
	}
	return Symbol{}, false
}

// SymbolAt returns the symbol that owns addr and addr's offset from it:
// the closest function or object symbol at or below addr that contains
// it (by its size, or, for a symbol without a size, by lying in the
// same section with no other symbol between).
func (v *View) SymbolAt(addr uint64) (Symbol, uint64, bool) {
	syms := v.syms
	at := v.symAt
	i := sort.Search(len(at), func(i int) bool { return syms[at[i]].Addr > addr })
	if i == 0 {
		return Symbol{}, 0, false
	}
	sec, inSec := v.SectionAt(addr)
	nearest := syms[at[i-1]].Addr
	best := -1
	for j := i - 1; j >= 0 && j >= i-16; j-- {
		s := syms[at[j]]
		ok := false
		switch {
		case s.Size > 0:
			ok = addr-s.Addr < s.Size
		case s.Addr == nearest:
			ok = !inSec || s.Addr >= sec.Addr && s.Addr < sec.End()
		}
		if !ok {
			continue
		}
		if best < 0 {
			best = j
			continue
		}
		b := syms[at[best]]
		if s.Addr > b.Addr || s.Addr == b.Addr && betterSymbol(s, b) {
			best = j
		}
	}
	if best < 0 {
		return Symbol{}, 0, false
	}
	s := syms[at[best]]
	return s, addr - s.Addr, true
}

// GoFunctionAt returns the Go function whose code holds addr.
func (v *View) GoFunctionAt(addr uint64) (GoFunction, bool) {
	fns := v.a.GoFunctions
	i := sort.Search(len(fns), func(i int) bool { return fns[i].Entry > addr })
	if i == 0 {
		return GoFunction{}, false
	}
	f := fns[i-1]
	if addr < f.End || f.End == f.Entry && addr == f.Entry {
		return f, true
	}
	return GoFunction{}, false
}
