package binview

// raw maps the whole file at Options.Base as one readable, writable and
// executable section of the declared architecture.
func (b *builder) raw() error {
	a := b.a
	a.Arch = b.o.Arch
	a.Machine = string(b.o.Arch)
	a.Bits = a.Arch.Bits()
	a.Endian = "little"
	if b.o.BigEndian && (a.Arch == ArchPPC64 || a.Arch == ArchS390X) {
		a.Endian = "big"
	}
	a.Kind = "raw"
	a.ImageBase = b.o.Base
	a.Stripped = true
	n := uint64(len(b.data))
	if a.Bits == 32 && (b.o.Base > 0xffffffff || n > 0x1_0000_0000-b.o.Base) {
		return newErr(CodeInvalidOptions, "the raw base and size do not fit a 32-bit address space")
	}
	if n > 0 && b.o.Base+n < b.o.Base {
		return newErr(CodeInvalidOptions, "the raw base and size wrap around the address space")
	}
	perm := PermR | PermW | PermX
	b.addSegment(Segment{Name: "raw", Addr: b.o.Base, Size: n, Offset: 0, FileSize: int64(n), Perm: perm, Type: "RAW"})
	b.addSection(Section{Name: "raw", Addr: b.o.Base, Size: n, Offset: 0, FileSize: int64(n), Perm: perm, Mapped: true, Type: "RAW"})
	a.Entry = b.o.Base
	a.Entries = append(a.Entries, EntryPoint{Addr: b.o.Base, Kind: "entry"})
	return nil
}
