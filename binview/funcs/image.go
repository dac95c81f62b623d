package funcs

import (
	"sort"

	"github.com/warden-mcp/warden/errcode"
)

// Image is what the analysis needs to know of a binary.
type Image struct {
	// Arch names the instruction set: "x86-64", "x86", "arm64", "arm",
	// "riscv64", "ppc64", "ppc64le", "s390x", "loong64" (aliases such as
	// amd64 are accepted).
	Arch string
	// Base is the preferred load address; reports may show addresses
	// relative to it.
	Base uint64
	// Regions are the mapped bytes. Overlapping regions are refused.
	Regions []Region
	// Entries are entry points (ELF e_entry, PE AddressOfEntryPoint and
	// TLS callbacks, Mach-O LC_MAIN).
	Entries []uint64
	// Symbols are named functions: FUNC symbols (Source "symbol") and
	// exports (Source "export"); Source "" means "symbol". Symbols that
	// fall in Excluded ranges (PLT stubs, "abort@plt") only name call
	// targets: they are not functions.
	Symbols []Seed
	// Hints are function starts from format metadata, with Source
	// "pdata", "function_starts", "pclntab" (or another name), and Size
	// when the end is known. A hint's Name is used when no symbol names
	// the address.
	Hints []Seed
	// DataPointers are the pointers into code the loader writes into
	// data: the ELF R_*_RELATIVE relocations whose targets are in
	// executable sections. When the image has any, the data-pointer
	// heuristic takes them instead of reading every aligned word (a
	// position-independent file's small addresses look like text and
	// integers).
	DataPointers []Pointer
	// Excluded ranges hold no functions (.plt, .plt.got, .plt.sec).
	Excluded []Range
	// EHFrame, EHFrameHdr and DebugFrame are the raw call-frame sections,
	// parsed by package cfi. A zero Section is absent.
	EHFrame, EHFrameHdr, DebugFrame Section
	// BigEndian is the byte order of the file; the zero value is
	// little-endian. It matters for ppc64 and s390x data.
	BigEndian bool
}

// Region is a run of mapped bytes.
type Region struct {
	Name string // section or segment name, for reports
	Addr uint64
	Data []byte
	Exec bool
}

// End returns the first address past the region.
func (r *Region) End() uint64 { return r.Addr + uint64(len(r.Data)) }

// Seed is a known function start.
type Seed struct {
	Addr   uint64
	Name   string
	Size   uint64 // 0: unknown
	Source Source // see Image.Symbols and Image.Hints
}

// Pointer is a pointer stored in data: at address At, it holds To.
type Pointer struct{ At, To uint64 }

// Range is a half-open address range [Start, End).
type Range struct{ Start, End uint64 }

// Contains reports whether a is in the range.
func (r Range) Contains(a uint64) bool { return a >= r.Start && a < r.End }

// Section is a raw section and the address it is loaded at (0 when it is
// not loaded, as .debug_frame).
type Section struct {
	Addr uint64
	Data []byte
}

// memory is the sorted, non-overlapping regions with a one-entry cache.
type memory struct {
	regions []Region
	exec    []int // indices of executable regions
}

func newMemory(rs []Region) (*memory, error) {
	m := &memory{}
	for _, r := range rs {
		if len(r.Data) == 0 {
			continue
		}
		if r.Addr+uint64(len(r.Data)) < r.Addr {
			return nil, errcode.New("invalid_image", "a region wraps around the address space")
		}
		m.regions = append(m.regions, r)
	}
	sort.Slice(m.regions, func(i, j int) bool { return m.regions[i].Addr < m.regions[j].Addr })
	for i := range m.regions {
		if i > 0 && m.regions[i].Addr < m.regions[i-1].End() {
			return nil, errcode.New("invalid_image", "two regions overlap")
		}
		if m.regions[i].Exec {
			m.exec = append(m.exec, i)
		}
	}
	return m, nil
}

// find returns the index of the region holding a, or -1.
func (m *memory) find(a uint64) int {
	i := sort.Search(len(m.regions), func(i int) bool { return m.regions[i].End() > a })
	if i < len(m.regions) && m.regions[i].Addr <= a {
		return i
	}
	return -1
}

// code returns the executable bytes from a to the end of its region.
func (m *memory) code(a uint64) ([]byte, int) {
	i := m.find(a)
	if i < 0 || !m.regions[i].Exec {
		return nil, -1
	}
	r := &m.regions[i]
	return r.Data[a-r.Addr:], i
}

func (m *memory) isExec(a uint64) bool {
	i := m.find(a)
	return i >= 0 && m.regions[i].Exec
}

func (m *memory) mapped(a uint64) bool { return m.find(a) >= 0 }
