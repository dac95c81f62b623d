package binview

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/saferwall/pe"
	pelog "github.com/saferwall/pe/log"
)

// PEBuild is build information from a PE file.
type PEBuild struct {
	// PDBPath is the CodeView debug record's PDB file name, as the
	// linker wrote it (a build machine's path, not ours).
	PDBPath string `json:"pdbPath,omitempty"`
	PDBGUID string `json:"pdbGuid,omitempty"`
	PDBAge  uint32 `json:"pdbAge,omitempty"`
	// Timestamp is the COFF header's TimeDateStamp (seconds since 1970;
	// a hash in reproducible builds).
	Timestamp     uint32 `json:"timestamp"`
	Subsystem     string `json:"subsystem,omitempty"`
	LinkerVersion string `json:"linkerVersion,omitempty"`
	OSVersion     string `json:"osVersion,omitempty"`
	// VersionInfo holds the VS_VERSIONINFO strings (CompanyName,
	// FileVersion, OriginalFilename, ...), sorted by key.
	VersionInfo []Setting `json:"versionInfo,omitempty"`
	// Rich lists the Rich header's tool records.
	Rich     []RichEntry `json:"rich,omitempty"`
	RichHash string      `json:"richHash,omitempty"`
	// DotNet is set for a .NET assembly.
	DotNet *DotNet `json:"dotnet,omitempty"`
	// Signers are the Authenticode certificates' subjects.
	Signers []Signer `json:"signers,omitempty"`
	// Anomalies are structural oddities saferwall/pe reports
	// (packers and hand-made files have many).
	Anomalies []string `json:"anomalies,omitempty"`
	// Overlay is the number of bytes after the last section.
	Overlay int64 `json:"overlay,omitempty"`
}

// RichEntry is one Rich header record: a tool (product id and build)
// and how many objects it made.
type RichEntry struct {
	ProductID uint16 `json:"productId"`
	Build     uint16 `json:"build"`
	Count     uint32 `json:"count"`
}

// DotNet is the CLR header of a .NET assembly.
type DotNet struct {
	// RuntimeVersion is the metadata version string ("v4.0.30319").
	RuntimeVersion string `json:"runtimeVersion,omitempty"`
	// Flags are the COR20 flags ("ILOnly", "32BitRequired").
	Flags []string `json:"flags,omitempty"`
}

// Signer is one Authenticode certificate.
type Signer struct {
	Subject string `json:"subject"`
	Issuer  string `json:"issuer,omitempty"`
	// Valid reports that the signed hash matches the file.
	Valid bool `json:"valid"`
}

// discardLogger silences saferwall/pe, whose default logger writes to
// standard output (where the isolated worker writes its snapshot).
type discardLogger struct{}

func (discardLogger) Log(pelog.Level, ...any) error { return nil }

func peArch(m uint16) Arch {
	switch m {
	case 0x14c:
		return ArchX86
	case 0x8664:
		return ArchX86_64
	case 0xaa64:
		return ArchARM64
	case 0x1c0, 0x1c2, 0x1c4:
		return ArchARM
	case 0x5064:
		return ArchRISCV64
	case 0x6264:
		return ArchLoong64
	}
	return ArchUnknown
}

// PE characteristics and DLL characteristics bits.
const (
	peRelocsStripped = 0x0001
	peDLL            = 0x2000
	peSystem         = 0x1000

	peHighEntropyVA  = 0x0020
	peDynamicBase    = 0x0040
	peForceIntegrity = 0x0080
	peNXCompat       = 0x0100
	peNoSEH          = 0x0400
	peAppContainer   = 0x1000
	peGuardCF        = 0x4000

	peScnExecute = 0x20000000
	peScnRead    = 0x40000000
	peScnWrite   = 0x80000000
)

func (b *builder) pe() error {
	f, err := pe.NewBytes(b.data, &pe.Options{
		Logger:                discardLogger{},
		DisableCertValidation: true,
		MaxCOFFSymbolsCount:   uint32(min(b.o.MaxSymbols, 1<<20)),
		MaxRelocEntriesCount:  uint32(min(b.o.MaxRelocations, 1<<20)),
	})
	if err != nil {
		return errAnalysisFailed(err)
	}
	if err := f.Parse(); err != nil && !f.HasNTHdr {
		return errAnalysisFailed(err)
	} else if err != nil {
		b.warn(WarnRecovered, "some PE data directories could not be parsed")
	}
	if !f.HasNTHdr {
		return errAnalysisFailed(fmt.Errorf("pe: no NT header"))
	}
	h, err := b.peHeader(f)
	if err != nil {
		return err
	}
	b.peEntries(f, h)
	b.peSections(f, h)
	if err := b.ctx.Err(); err != nil {
		return err
	}
	b.guard("PE imports", func() { b.peImports(f, h.imageBase) })
	b.guard("PE exports", func() { b.peExports(f, h.imageBase) })
	b.guard("PE symbols", func() { b.peSymbols(f, h.imageBase) })
	b.guard("PE exception data", func() { b.pePdata(f, h.imageBase) })
	b.guard("PE relocations", func() { b.peRelocs(f, h.imageBase) })
	b.peBuild(f, h)
	b.peHardening(f, h.dllChars, h.chars)
	return nil
}

// peHeaderFacts is what the file and optional headers say that the rest
// of the parse needs.
type peHeaderFacts struct {
	imageBase           uint64
	entryRVA, sizeOfHdr uint32
	dllChars, subsystem uint16
	chars               uint16
	timestamp           uint32
	linker, osVersion   string
}

// peHeader reads the file and optional headers: architecture, image base,
// kind (executable, library, driver).
func (b *builder) peHeader(f *pe.File) (peHeaderFacts, error) {
	a := b.a
	fh := f.NtHeader.FileHeader
	a.Arch = peArch(uint16(fh.Machine))
	a.Machine = fmt.Sprintf("IMAGE_FILE_MACHINE_%#x", uint16(fh.Machine))
	a.Endian = "little"
	h := peHeaderFacts{chars: uint16(fh.Characteristics), timestamp: fh.TimeDateStamp}
	switch oh := f.NtHeader.OptionalHeader.(type) {
	case pe.ImageOptionalHeader64:
		a.Bits, h.imageBase, h.entryRVA, h.sizeOfHdr = 64, oh.ImageBase, oh.AddressOfEntryPoint, oh.SizeOfHeaders
		h.dllChars, h.subsystem = uint16(oh.DllCharacteristics), uint16(oh.Subsystem)
		h.linker = fmt.Sprintf("%d.%d", oh.MajorLinkerVersion, oh.MinorLinkerVersion)
		h.osVersion = fmt.Sprintf("%d.%d", oh.MajorOperatingSystemVersion, oh.MinorOperatingSystemVersion)
	case pe.ImageOptionalHeader32:
		a.Bits, h.imageBase, h.entryRVA, h.sizeOfHdr = 32, uint64(oh.ImageBase), oh.AddressOfEntryPoint, oh.SizeOfHeaders
		h.dllChars, h.subsystem = uint16(oh.DllCharacteristics), uint16(oh.Subsystem)
		h.linker = fmt.Sprintf("%d.%d", oh.MajorLinkerVersion, oh.MinorLinkerVersion)
		h.osVersion = fmt.Sprintf("%d.%d", oh.MajorOperatingSystemVersion, oh.MinorOperatingSystemVersion)
	default:
		return h, errAnalysisFailed(fmt.Errorf("pe: no optional header"))
	}
	a.ImageBase = h.imageBase
	switch {
	case h.subsystem == 1 || h.chars&peSystem != 0:
		a.Kind = "driver"
	case h.chars&peDLL != 0:
		a.Kind = "shared_library"
	default:
		a.Kind = "executable"
	}
	return h, nil
}

// peEntries lists the entry point and the TLS callbacks (at most 256).
func (b *builder) peEntries(f *pe.File, h peHeaderFacts) {
	a := b.a
	if h.entryRVA != 0 {
		a.Entry = h.imageBase + uint64(h.entryRVA)
		a.Entries = append(a.Entries, EntryPoint{Addr: a.Entry, Kind: "entry"})
	}
	switch cb := f.TLS.Callbacks.(type) {
	case []uint64:
		for i, c := range cb {
			if i >= 256 {
				break
			}
			a.Entries = append(a.Entries, EntryPoint{Addr: c, Kind: "tls_callback", Name: fmt.Sprintf("tls_callback_%d", i)})
		}
	case []uint32:
		for i, c := range cb {
			if i >= 256 {
				break
			}
			a.Entries = append(a.Entries, EntryPoint{Addr: uint64(c), Kind: "tls_callback", Name: fmt.Sprintf("tls_callback_%d", i)})
		}
	}
}

// peSections maps the headers and each section, and notes where .text
// starts (Go's tables are found from it).
func (b *builder) peSections(f *pe.File, h peHeaderFacts) {
	imageBase := h.imageBase
	hdr := uint64(h.sizeOfHdr)
	if hdr > uint64(len(b.data)) {
		hdr = uint64(len(b.data))
	}
	b.addSegment(Segment{Name: "HEADER", Addr: imageBase, Size: hdr, Offset: 0, FileSize: int64(hdr), Perm: PermR, Type: "HEADER"})
	var textAddr uint64
	for i := range f.Sections {
		s := &f.Sections[i]
		sh := s.Header
		name := peSectionName(f, s.String())
		vsize := uint64(sh.VirtualSize)
		if vsize == 0 {
			vsize = uint64(sh.SizeOfRawData)
		}
		fsize := int64(min(uint64(sh.SizeOfRawData), vsize))
		var perm Perm
		if sh.Characteristics&peScnRead != 0 {
			perm |= PermR
		}
		if sh.Characteristics&peScnWrite != 0 {
			perm |= PermW
		}
		if sh.Characteristics&peScnExecute != 0 {
			perm |= PermX
		}
		addr := imageBase + uint64(sh.VirtualAddress)
		if !b.addSection(Section{Name: name, Addr: addr, Size: vsize, Offset: int64(sh.PointerToRawData), FileSize: fsize,
			Perm: perm, Mapped: true, Type: fmt.Sprintf("%#x", sh.Characteristics)}) {
			break
		}
		b.addSegment(Segment{Name: name, Addr: addr, Size: vsize, Offset: int64(sh.PointerToRawData), FileSize: fsize, Perm: perm, Type: "SECTION"})
		if name == ".text" && textAddr == 0 {
			textAddr = addr
		}
	}
	b.goTextStart = textAddr
}

// peBuild reads what says how the file was built and signed: debug
// directory, version resources, Rich header, .NET header, certificates,
// anomalies, overlay and import hash, each bounded.
func (b *builder) peBuild(f *pe.File, h peHeaderFacts) {
	a := b.a
	bi := &PEBuild{Timestamp: h.timestamp, Subsystem: peSubsystem(h.subsystem), LinkerVersion: h.linker, OSVersion: h.osVersion}
	a.Build.PE = bi
	b.guard("PE debug directory", func() { peDebug(f, bi) })
	b.guard("PE version resources", func() {
		if !f.HasResource {
			return
		}
		vi, err := f.ParseVersionResources()
		if err != nil {
			return
		}
		for k, v := range vi {
			if len(bi.VersionInfo) < 64 {
				bi.VersionInfo = append(bi.VersionInfo, Setting{Key: k, Value: v})
			}
		}
		sort.Slice(bi.VersionInfo, func(i, j int) bool { return bi.VersionInfo[i].Key < bi.VersionInfo[j].Key })
	})
	if f.HasRichHdr {
		for _, c := range f.RichHeader.CompIDs {
			if len(bi.Rich) < 256 {
				bi.Rich = append(bi.Rich, RichEntry{ProductID: c.ProdID, Build: c.MinorCV, Count: c.Count})
			}
		}
		b.guard("Rich header", func() { bi.RichHash = f.RichHeaderHash() })
	}
	if f.HasCLR {
		d := &DotNet{RuntimeVersion: strings.TrimRight(f.CLR.MetadataHeader.Version, "\x00")}
		fl := uint32(f.CLR.CLRHeader.Flags)
		for bit, n := range map[uint32]string{1: "ILOnly", 2: "32BitRequired", 8: "StrongNameSigned", 0x10: "NativeEntryPoint", 0x20000: "32BitPreferred"} {
			if fl&bit != 0 {
				d.Flags = append(d.Flags, n)
			}
		}
		sort.Strings(d.Flags)
		bi.DotNet = d
	}
	for _, c := range f.Certificates.Certificates {
		if len(bi.Signers) < 16 {
			bi.Signers = append(bi.Signers, Signer{Subject: c.Info.Subject, Issuer: c.Info.Issuer, Valid: c.SignatureValid})
		}
	}
	b.guard("PE anomalies", func() {
		_ = f.GetAnomalies()
		bi.Anomalies = capList(f.Anomalies, 64)
	})
	if f.HasOverlay {
		bi.Overlay = f.OverlayLength()
	}
	b.guard("PE import hash", func() {
		if h, err := f.ImpHash(); err == nil {
			a.Hashes.ImpHash = h
		}
	})
}

// peSectionName resolves a "/123" long section name through the COFF
// string table.
func peSectionName(f *pe.File, name string) string {
	if rest, ok := strings.CutPrefix(name, "/"); ok {
		if n, err := strconv.ParseUint(rest, 10, 32); err == nil {
			if s, ok := f.COFF.StringTableM[f.COFF.StringTableOffset+uint32(n)]; ok && s != "" {
				return s
			}
		}
	}
	return name
}

func peSubsystem(s uint16) string {
	switch s {
	case 1:
		return "native"
	case 2:
		return "windows_gui"
	case 3:
		return "windows_cui"
	case 9:
		return "windows_ce_gui"
	case 10:
		return "efi_application"
	case 11:
		return "efi_boot_service_driver"
	case 12:
		return "efi_runtime_driver"
	case 16:
		return "windows_boot_application"
	}
	return fmt.Sprintf("%d", s)
}

func (b *builder) peImports(f *pe.File, base uint64) {
	add := func(lib string, fns []pe.ImportFunction, delay bool) bool {
		b.addLibrary(lib)
		for _, fn := range fns {
			name := fn.Name
			if fn.ByOrdinal && name == "" {
				name = fmt.Sprintf("Ordinal_%d", fn.Ordinal)
			}
			imp := Import{Name: name, Library: lib, ByOrdinal: fn.ByOrdinal, Delay: delay}
			if fn.ByOrdinal {
				imp.Ordinal = fn.Ordinal
			} else {
				imp.Ordinal = uint32(fn.Hint)
			}
			if fn.ThunkRVA != 0 {
				imp.Slot = base + uint64(fn.ThunkRVA)
			}
			if !b.addImport(imp) {
				return false
			}
		}
		return true
	}
	for _, im := range f.Imports {
		if !add(im.Name, im.Functions, false) {
			return
		}
	}
	for _, im := range f.DelayImports {
		if !add(im.Name, im.Functions, true) {
			return
		}
	}
}

func (b *builder) peExports(f *pe.File, base uint64) {
	for _, e := range f.Export.Functions {
		name := e.Name
		if name == "" {
			name = fmt.Sprintf("Ordinal_%d", e.Ordinal)
		}
		ex := Export{Name: name, Addr: base + uint64(e.FunctionRVA), Ordinal: e.Ordinal, Forwarder: e.Forwarder, Kind: SymFunction}
		if e.Forwarder != "" {
			ex.Kind = SymOther
		}
		if !b.addExport(ex) {
			return
		}
		if e.Forwarder == "" && e.FunctionRVA != 0 {
			b.addSymbol(Symbol{Name: name, Addr: ex.Addr, Kind: SymFunction, Binding: "global", Source: "export"})
		}
	}
}

func (b *builder) peSymbols(f *pe.File, base uint64) {
	syms := f.COFF.SymbolTable
	if len(syms) == 0 {
		b.a.Stripped = true
		return
	}
	// Compilers that type their symbols (gcc, MSVC, Go) mark functions
	// 0x20; their other symbols in code (labels, constructor lists,
	// import thunks) are not functions. Without any typed symbol, a
	// symbol in code is taken for a function.
	typed := false
	for i := range syms {
		if (syms[i].Type>>4)&3 == 2 {
			typed = true
			break
		}
	}
	for i := range syms {
		if err := b.check(i); err != nil {
			return
		}
		s := &syms[i]
		if s.SectionNumber <= 0 || int(s.SectionNumber) > len(f.Sections) {
			continue
		}
		if s.StorageClass != 2 && s.StorageClass != 3 && s.StorageClass != 6 {
			continue // external, static and label symbols only
		}
		name, err := s.String(f)
		if err != nil || name == "" || strings.HasPrefix(name, ".") && s.Value == 0 {
			continue
		}
		sec := f.Sections[s.SectionNumber-1].Header
		kind := SymObject
		switch {
		case (s.Type>>4)&3 == 2:
			kind = SymFunction
		case sec.Characteristics&peScnExecute == 0:
		case typed || strings.HasPrefix(name, "."):
			kind = SymOther
		default:
			kind = SymFunction
		}
		bind := "global"
		if s.StorageClass != 2 {
			bind = "local"
		}
		b.addSymbol(Symbol{Name: name, Addr: base + uint64(sec.VirtualAddress) + uint64(s.Value), Kind: kind, Binding: bind, Source: "coff"})
	}
}

// pePdata records x64 RUNTIME_FUNCTION entries as function hints.
func (b *builder) pePdata(f *pe.File, base uint64) {
	if b.a.Arch != ArchX86_64 {
		return
	}
	for _, e := range f.Exceptions {
		rf := e.RuntimeFunction
		if rf.BeginAddress == 0 || rf.EndAddress < rf.BeginAddress {
			continue
		}
		if !b.addHint(FunctionHint{Addr: base + uint64(rf.BeginAddress), End: base + uint64(rf.EndAddress), Source: "pdata"}) {
			return
		}
	}
}

var peRelocTypes = map[uint8]string{1: "HIGH", 2: "LOW", 3: "HIGHLOW", 4: "HIGHADJ", 5: "ARM_MOV32", 7: "THUMB_MOV32", 10: "DIR64"}

func (b *builder) peRelocs(f *pe.File, base uint64) {
	for _, r := range f.Relocations {
		for _, e := range r.Entries {
			t := uint8(e.Type)
			if t == 0 {
				continue // IMAGE_REL_BASED_ABSOLUTE is padding
			}
			name, ok := peRelocTypes[t]
			if !ok {
				name = fmt.Sprintf("TYPE_%d", t)
			}
			if !b.addReloc(Relocation{Addr: base + uint64(r.Data.VirtualAddress) + uint64(e.Offset), Type: "IMAGE_REL_BASED_" + name, Section: ".reloc"}) {
				return
			}
		}
	}
}

func peDebug(f *pe.File, bi *PEBuild) {
	for _, d := range f.Debugs {
		switch info := d.Info.(type) {
		case pe.CVInfoPDB70:
			bi.PDBPath = strings.TrimRight(info.PDBFileName, "\x00")
			g := info.Signature
			bi.PDBGUID = fmt.Sprintf("%08x-%04x-%04x-%x-%x", g.Data1, g.Data2, g.Data3, g.Data4[:2], g.Data4[2:])
			bi.PDBAge = info.Age
		case pe.CVInfoPDB20:
			bi.PDBPath = strings.TrimRight(info.PDBFileName, "\x00")
			bi.PDBAge = info.Age
		}
	}
}

func (b *builder) peHardening(f *pe.File, dll, chars uint16) {
	a := b.a
	var c []Check
	aslr := dll&peDynamicBase != 0
	switch {
	case aslr && chars&peRelocsStripped != 0:
		c = append(c, Check{Name: "aslr", Status: StatusNo, Detail: "dynamic base set but relocations stripped"})
	default:
		c = append(c, Check{Name: "aslr", Status: yesNo(aslr)})
	}
	if a.Bits == 64 {
		c = append(c, Check{Name: "high_entropy_va", Status: yesNo(dll&peHighEntropyVA != 0)})
	}
	c = append(c, Check{Name: "dep", Status: yesNo(dll&peNXCompat != 0)})
	c = append(c, Check{Name: "cfg", Status: yesNo(dll&peGuardCF != 0)})
	switch {
	case a.Bits == 64:
		c = append(c, Check{Name: "safeseh", Status: StatusNA, Detail: "64-bit code uses table-based exception handling"})
	case dll&peNoSEH != 0:
		c = append(c, Check{Name: "safeseh", Status: StatusNA, Detail: "the image uses no SEH"})
	case len(f.LoadConfig.SEH) > 0:
		c = append(c, Check{Name: "safeseh", Status: StatusYes})
	default:
		c = append(c, Check{Name: "safeseh", Status: StatusNo})
	}
	var cookie uint64
	switch lc := f.LoadConfig.Struct.(type) {
	case pe.ImageLoadConfigDirectory64:
		cookie = lc.SecurityCookie
	case pe.ImageLoadConfigDirectory32:
		cookie = uint64(lc.SecurityCookie)
	}
	switch {
	case cookie != 0:
		c = append(c, Check{Name: "gs", Status: StatusYes, Detail: "security cookie in the load configuration"})
	case b.goTextStart != 0 && b.goPclntab == nil && f.HasLoadCFG:
		c = append(c, Check{Name: "gs", Status: StatusNo})
	default:
		c = append(c, Check{Name: "gs", Status: StatusUnknown, Detail: "no load configuration"})
	}
	cet := false
	for _, d := range f.Debugs {
		if v, ok := d.Info.(pe.DllCharacteristicsExType); ok && v&pe.ImageDllCharacteristicsExCETCompat != 0 {
			cet = true
		}
	}
	c = append(c, Check{Name: "cet_shstk", Status: yesNo(cet), Detail: "CET shadow-stack compatible"})
	switch {
	case f.HasCertificate && len(f.Certificates.Certificates) > 0 && f.Certificates.Certificates[0].SignatureValid:
		c = append(c, Check{Name: "signed", Status: StatusYes, Detail: "Authenticode hash matches (chain not verified)"})
	case f.HasCertificate:
		c = append(c, Check{Name: "signed", Status: StatusPartial, Detail: "signature present but its hash does not match the file"})
	default:
		c = append(c, Check{Name: "signed", Status: StatusNo})
	}
	c = append(c, Check{Name: "force_integrity", Status: yesNo(dll&peForceIntegrity != 0)})
	if dll&peAppContainer != 0 {
		c = append(c, Check{Name: "appcontainer", Status: StatusYes})
	}
	a.Hardening = c
}
