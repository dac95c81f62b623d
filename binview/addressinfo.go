package binview

// MaxPreview bounds AddressInfo's data preview.
const MaxPreview = 256

// AddressInfo is what a view knows about one address.
type AddressInfo struct {
	Addr uint64 `json:"addr"`
	// Offset is the file offset of the byte; HasOffset is false in
	// zero-fill memory (.bss).
	Offset    int64  `json:"offset"`
	HasOffset bool   `json:"hasOffset"`
	Perm      Perm   `json:"perm"`
	Segment   string `json:"segment,omitempty"`
	Section   string `json:"section,omitempty"`
	// SectionOffset is Addr's distance from the start of Section.
	SectionOffset uint64 `json:"sectionOffset,omitempty"`
	// Symbol owns the address (see View.SymbolAt); SymbolOffset is the
	// distance from it.
	Symbol       string `json:"symbol,omitempty"`
	SymbolAddr   uint64 `json:"symbolAddr,omitempty"`
	SymbolOffset uint64 `json:"symbolOffset,omitempty"`
	// Function is the Go function that holds the address, with the
	// source position of its entry.
	Function *GoFunction `json:"function,omitempty"`
	// Import is set when the address is an import's slot or stub.
	Import *Import `json:"import,omitempty"`
	// String is set when the address lies in an extracted string.
	String *String `json:"string,omitempty"`
	// Preview holds up to the requested number of bytes from Addr
	// (fewer at the end of mapped memory).
	Preview []byte `json:"preview"`
}

// AddressInfo describes addr: where it is in the file, which section,
// segment, symbol, Go function, import or string holds it, and the first
// preview bytes there (at most MaxPreview). An unmapped address is
// address_unmapped.
func (v *View) AddressInfo(addr uint64, preview int) (AddressInfo, error) {
	r, ok := v.regionAt(addr)
	if !ok {
		return AddressInfo{}, errUnmapped()
	}
	info := AddressInfo{Addr: addr, Perm: r.perm}
	info.Offset, info.HasOffset = v.OffsetOf(addr)
	if s, ok := v.SegmentAt(addr); ok {
		info.Segment = s.Name
	}
	if s, ok := v.SectionAt(addr); ok {
		info.Section, info.SectionOffset = s.FullName(), addr-s.Addr
		if s.Perm != 0 {
			info.Perm = s.Perm
		}
	}
	if s, off, ok := v.SymbolAt(addr); ok {
		info.Symbol, info.SymbolAddr, info.SymbolOffset = s.Name, s.Addr, off
	}
	if f, ok := v.GoFunctionAt(addr); ok {
		info.Function = &f
	}
	for i := range v.a.Imports {
		im := v.a.Imports[i]
		if addr == im.Slot || addr == im.Stub && im.Stub != 0 {
			info.Import = &im
			break
		}
	}
	if v.stringsReady() {
		if s, ok := v.StringAt(addr); ok {
			info.String = &s
		}
	}
	preview = min(max(preview, 0), MaxPreview)
	b, err := v.Bytes(addr, preview)
	if err != nil {
		return AddressInfo{}, err
	}
	info.Preview = b
	return info, nil
}
