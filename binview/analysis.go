package binview

import "strconv"

// EngineVersion is the version of the analysis this engine produces. It
// changes whenever the same file and options could analyse differently,
// or the snapshot encoding changes; a cached Analysis of another version
// is refused by UnmarshalAnalysis and must be redone.
const EngineVersion = 2

// Format is a container format.
type Format string

// Formats.
const (
	FormatELF   Format = "elf"
	FormatPE    Format = "pe"
	FormatMachO Format = "macho"
	FormatRaw   Format = "raw"
)

// Arch is an instruction-set architecture, named as tools print it.
type Arch string

// Architectures the engine recognises. ArchUnknown is a file whose
// header names another machine (see Analysis.Machine).
const (
	ArchX86     Arch = "x86"
	ArchX86_64  Arch = "x86-64"
	ArchARM64   Arch = "arm64"
	ArchARM     Arch = "arm"
	ArchRISCV64 Arch = "riscv64"
	ArchPPC64   Arch = "ppc64"
	ArchS390X   Arch = "s390x"
	ArchLoong64 Arch = "loong64"
	ArchUnknown Arch = "unknown"
)

// Arches lists the architectures a raw load may declare.
var Arches = []Arch{ArchX86, ArchX86_64, ArchARM64, ArchARM, ArchRISCV64, ArchPPC64, ArchS390X, ArchLoong64}

// Bits returns the address width of a known architecture: 32 or 64, or 0
// for ArchUnknown.
func (a Arch) Bits() int {
	switch a {
	case ArchX86, ArchARM:
		return 32
	case ArchX86_64, ArchARM64, ArchRISCV64, ArchPPC64, ArchS390X, ArchLoong64:
		return 64
	}
	return 0
}

func (a Arch) known() bool { return a.Bits() != 0 }

// Hex formats an address the way tools print every address: "0x" and
// lower-case hex digits, no padding.
func Hex(addr uint64) string { return "0x" + strconv.FormatUint(addr, 16) }

// Perm is a set of memory permissions.
type Perm uint8

// Permission bits.
const (
	PermR Perm = 1 << iota
	PermW
	PermX
)

// String returns "rwx" with dashes for missing bits.
func (p Perm) String() string {
	b := []byte("---")
	if p&PermR != 0 {
		b[0] = 'r'
	}
	if p&PermW != 0 {
		b[1] = 'w'
	}
	if p&PermX != 0 {
		b[2] = 'x'
	}
	return string(b)
}

// Analysis is the snapshot Analyze produces: everything a View needs
// besides the file's bytes. It is plain data, serializable with
// MarshalBinary, and must not be changed once a View uses it. Slices are
// sorted: segments, sections, symbols, exports, relocations, Go functions
// and function hints by address; imports by library then name.
type Analysis struct {
	// Version is EngineVersion at the time of analysis.
	Version int `json:"version"`
	// Options is the CacheKey of the options used.
	Options string `json:"options"`

	Format Format `json:"format"`
	Arch   Arch   `json:"arch"`
	// Machine is the header's own machine name ("EM_MIPS",
	// "IMAGE_FILE_MACHINE_ARM64", "CpuArm64"), kept even when Arch is
	// known.
	Machine string `json:"machine,omitempty"`
	Bits    int    `json:"bits"`
	// Endian is "little" or "big".
	Endian string `json:"endian"`
	// Kind is "executable", "pie", "shared_library", "object", "core",
	// "driver" or "raw".
	Kind string `json:"kind"`
	// FileSize is the length of the analysed bytes; New refuses bytes of
	// another length.
	FileSize int64 `json:"fileSize"`
	// ImageBase is the preferred load address (PE ImageBase, the lowest
	// ELF or Mach-O segment address, the raw base).
	ImageBase uint64 `json:"imageBase"`
	// Entry is the main entry point, 0 when there is none.
	Entry uint64 `json:"entry"`
	// Stripped reports a file without a static symbol table.
	Stripped bool `json:"stripped"`

	// Slices are the architectures of a Mach-O fat file; SliceOffset
	// is where the analysed one starts in the file. File offsets
	// everywhere else are from the start of the whole file.
	Slices      []Slice `json:"slices,omitempty"`
	SliceOffset int64   `json:"sliceOffset,omitempty"`

	Segments []Segment    `json:"segments"`
	Sections []Section    `json:"sections"`
	Entries  []EntryPoint `json:"entries"`
	// Symbols come from the symbol tables and exports. Go functions are
	// kept once, in GoFunctions; View.Symbols merges the two.
	Symbols     []Symbol       `json:"symbols"`
	Imports     []Import       `json:"imports"`
	Libraries   []string       `json:"libraries"`
	Exports     []Export       `json:"exports"`
	Relocations []Relocation   `json:"relocations"`
	GoFunctions []GoFunction   `json:"goFunctions,omitempty"`
	Hints       []FunctionHint `json:"functionHints,omitempty"`
	// EHFrameHdr is where the ELF PT_GNU_EH_FRAME segment (the
	// .eh_frame_hdr search table) is loaded: the call-frame data of a
	// file without a section table. Zero when there is none.
	EHFrameHdr AddrRange `json:"ehFrameHdr,omitzero"`

	Build     BuildInfo `json:"build"`
	Hardening []Check   `json:"hardening"`
	Toolchain Toolchain `json:"toolchain"`
	Hashes    Hashes    `json:"hashes"`

	// Warnings say what the analysis could not do: a list cut at its
	// limit, a malformed table skipped. Empty for a clean analysis.
	Warnings []Warning `json:"warnings,omitempty"`
}

// AddrRange is a range of Size bytes from Addr.
type AddrRange struct {
	Addr uint64 `json:"addr"`
	Size uint64 `json:"size"`
}

// Slice is one architecture of a Mach-O fat file.
type Slice struct {
	Arch   Arch   `json:"arch"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
	CPU    string `json:"cpu"`
}

// Segment is a loadable region: an ELF program header, a Mach-O segment
// or, for PE, the headers and each section.
type Segment struct {
	Name   string `json:"name"`
	Addr   uint64 `json:"addr"`
	Size   uint64 `json:"size"`
	Offset int64  `json:"offset"`
	// FileSize is how many bytes come from the file; the rest of Size
	// reads as zeros.
	FileSize int64 `json:"fileSize"`
	Perm     Perm  `json:"perm"`
	// Type is the format's own kind ("LOAD", "GNU_RELRO", "INTERP").
	Type string `json:"type,omitempty"`
}

// End returns the address just past the segment.
func (s Segment) End() uint64 { return s.Addr + s.Size }

// Section is a named part of the file.
type Section struct {
	Name string `json:"name"`
	// Segment is the Mach-O segment of a section ("__TEXT").
	Segment string `json:"segment,omitempty"`
	Addr    uint64 `json:"addr"`
	Size    uint64 `json:"size"`
	Offset  int64  `json:"offset"`
	// FileSize is how many bytes the file holds for the section: 0 for
	// .bss and zero-fill sections, and for any section whose bytes lie
	// outside the file (a warning says so).
	FileSize int64 `json:"fileSize"`
	Perm     Perm  `json:"perm"`
	// Mapped reports a section that occupies memory when loaded;
	// unmapped sections (.symtab, .comment) have Addr 0 and are reached
	// by name only.
	Mapped bool `json:"mapped"`
	// Type is the format's own kind ("PROGBITS", "NOBITS",
	// "S_CSTRING_LITERALS").
	Type string `json:"type,omitempty"`
	// Compressed marks an ELF SHF_COMPRESSED section; its bytes are the
	// compressed form and are never inflated.
	Compressed bool `json:"compressed,omitempty"`
	// Entropy is the Shannon entropy of the file bytes, 0–8 bits per
	// byte.
	Entropy float64 `json:"entropy"`
}

// End returns the address just past the section.
func (s Section) End() uint64 { return s.Addr + s.Size }

// FullName is "segment,section" for Mach-O, else Name.
func (s Section) FullName() string {
	if s.Segment != "" {
		return s.Segment + "," + s.Name
	}
	return s.Name
}

// EntryPoint is an address where execution may begin.
type EntryPoint struct {
	Addr uint64 `json:"addr"`
	// Kind is "entry", "tls_callback", "init" or "fini".
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
}

// SymbolKind classifies a symbol.
type SymbolKind string

// Symbol kinds.
const (
	SymFunction SymbolKind = "function"
	SymObject   SymbolKind = "object"
	SymSection  SymbolKind = "section"
	SymFile     SymbolKind = "file"
	SymTLS      SymbolKind = "tls"
	SymImport   SymbolKind = "import"
	SymOther    SymbolKind = "other"
)

// Symbol is a named address.
type Symbol struct {
	Name string `json:"name"`
	// Demangled is the C++ or Rust demangled name, when Name is mangled.
	Demangled string     `json:"demangled,omitempty"`
	Addr      uint64     `json:"addr"`
	Size      uint64     `json:"size,omitempty"`
	Kind      SymbolKind `json:"kind"`
	// Binding is "global", "local" or "weak".
	Binding string `json:"binding,omitempty"`
	// Source is where the name came from: "symtab", "dynsym", "pclntab",
	// "export", "coff", "macho".
	Source string `json:"source"`
}

// Import is one imported function or object.
type Import struct {
	Name string `json:"name"`
	// Demangled is set when Name is a mangled C++ or Rust name.
	Demangled string `json:"demangled,omitempty"`
	// Library is the DLL, shared object or dylib it comes from, when
	// the format says.
	Library string `json:"library,omitempty"`
	// Ordinal is the PE import ordinal (ByOrdinal) or hint.
	Ordinal   uint32 `json:"ordinal,omitempty"`
	ByOrdinal bool   `json:"byOrdinal,omitempty"`
	// Version is the ELF symbol version ("GLIBC_2.2.5").
	Version string `json:"version,omitempty"`
	// Slot is the address the loader writes: the PE IAT entry, the ELF
	// GOT entry of a PLT relocation, the Mach-O pointer. 0: unknown.
	Slot uint64 `json:"slot,omitempty"`
	// Stub is the ELF PLT or Mach-O stub that jumps through Slot; 0:
	// none or unknown.
	Stub uint64 `json:"stub,omitempty"`
	// Delay marks a PE delay-load import.
	Delay bool `json:"delay,omitempty"`
	// Weak marks an ELF weak or Mach-O weak-import reference.
	Weak bool `json:"weak,omitempty"`
}

// Addr is where the import resolves in an address expression: the stub
// when there is one, else the slot.
func (i Import) Addr() uint64 {
	if i.Stub != 0 {
		return i.Stub
	}
	return i.Slot
}

// Export is an exported symbol.
type Export struct {
	Name      string `json:"name"`
	Demangled string `json:"demangled,omitempty"`
	Addr      uint64 `json:"addr"`
	Ordinal   uint32 `json:"ordinal,omitempty"`
	// Forwarder is a PE forwarder string ("NTDLL.RtlAllocateHeap"); Addr
	// is then the address of that string.
	Forwarder string `json:"forwarder,omitempty"`
	// Kind is "function", "object" or "other".
	Kind SymbolKind `json:"kind,omitempty"`
}

// Relocation is one relocation entry.
type Relocation struct {
	Addr   uint64 `json:"addr"`
	Type   string `json:"type"`
	Symbol string `json:"symbol,omitempty"`
	Addend int64  `json:"addend,omitempty"`
	// Section is the relocation table it came from (".rela.dyn",
	// ".reloc").
	Section string `json:"section,omitempty"`
}

// GoFunction is a function recorded in a Go binary's pclntab, which
// survives stripping.
type GoFunction struct {
	Name  string `json:"name"`
	Entry uint64 `json:"entry"`
	End   uint64 `json:"end"`
	// File and Line are the source position of the entry.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// FunctionHint is a function start the file's metadata records, for
// function discovery.
type FunctionHint struct {
	Addr uint64 `json:"addr"`
	// End is exclusive; 0 when the source gives no end.
	End uint64 `json:"end,omitempty"`
	// Source is "pdata" (PE RUNTIME_FUNCTION) or "function_starts"
	// (Mach-O LC_FUNCTION_STARTS). Go functions are in GoFunctions.
	Source string `json:"source"`
}

// Check is one hardening property.
type Check struct {
	// Name is stable: "pie", "nx", "relro", "canary", "fortify",
	// "cet_ibt", "cet_shstk", "aslr", "high_entropy_va", "dep", "cfg",
	// "safeseh", "signed", "rpath", "code_signature", "encrypted", ...
	Name string `json:"name"`
	// Status is "yes", "no", "partial", "full", "unknown" or "n/a".
	Status string `json:"status"`
	// Detail explains a status in a few words.
	Detail string `json:"detail,omitempty"`
}

// Toolchain is what built the file.
type Toolchain struct {
	// Language is the main source language: "go", "rust", "c++", "c",
	// ".net", "swift", "objective-c", "nim", "zig", "d", or "" when
	// unknown.
	Language string `json:"language,omitempty"`
	// Languages are every language seen, main first.
	Languages []string `json:"languages,omitempty"`
	// Compilers are compiler and linker identities found ("GCC: (Debian
	// 12.2.0-14) 12.2.0", "go1.26.8", "MSVC (Rich header)").
	Compilers []string `json:"compilers,omitempty"`
	// Evidence says why, in a few words each.
	Evidence []string `json:"evidence,omitempty"`
}

// Hashes are digests of the whole file, lower-case hex.
type Hashes struct {
	MD5    string `json:"md5"`
	SHA1   string `json:"sha1"`
	SHA256 string `json:"sha256"`
	// ImpHash is the PE import hash (Mandiant's), empty for other
	// formats.
	ImpHash string `json:"imphash,omitempty"`
}

// Warning is an advisory about the analysis.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Warning codes.
const (
	// WarnTruncated: a list reached its limit and was cut.
	WarnTruncated = "truncated"
	// WarnMalformed: part of the file is malformed and was skipped.
	WarnMalformed = "malformed"
	// WarnRecovered: a parser failed on part of the file; the rest of
	// the analysis stands.
	WarnRecovered = "parser_recovered"
	// WarnFileTruncated: the file ends before a table its headers name
	// (a download or copy cut short); what lies before the cut is read.
	WarnFileTruncated = "file_truncated"
)
