package addrexpr

// Target is the thing an expression is evaluated against, usually the
// caller's active binary. Implementations must be safe for the way the
// caller shares them; the evaluator calls them from one goroutine per
// evaluation and never retains them.
type Target interface {
	// Symbol returns the address of the symbol called name. Targets may
	// also resolve automatic names such as sub_401000.
	Symbol(name string) (addr uint64, ok bool)

	// Section returns the bounds of the section called name; end is
	// exclusive. Expressions use start.
	Section(name string) (start, end uint64, ok bool)

	// Read returns the little-endian unsigned value of size bytes at addr.
	// size is 1, 2, 4 or 8. Bits above size bytes are ignored. The
	// error is logged by the caller, never shown: it may carry detail.
	Read(addr uint64, size int) (uint64, error)

	// Here returns the current address ($here), if there is one.
	Here() (addr uint64, ok bool)

	// Start returns the first address of the target ($start).
	Start() uint64

	// End returns the address just past the target's last byte ($end).
	End() uint64

	// AddressSize returns the size of an address in bytes: 4 or 8 (1 and
	// 2 are honoured too; any other value means 8). Address expressions
	// compute modulo 2^(8×AddressSize) and [e] reads this many bytes.
	AddressSize() int
}

// SymbolHinter is an optional interface of a Target: when a name does not
// resolve, the error's message ends with SymbolHint's sentence, which
// says what names the target has and how to list them (the SDK does not
// know the tools that do).
type SymbolHinter interface {
	SymbolHint(name string) string
}

// widthMask returns the mask for an address size in bytes.
func widthMask(size int) uint64 {
	switch size {
	case 1:
		return 0xff
	case 2:
		return 0xffff
	case 4:
		return 0xffff_ffff
	default:
		return ^uint64(0)
	}
}

// addressSize normalises t.AddressSize to 1, 2, 4 or 8.
func addressSize(t Target) int {
	if t == nil {
		return 8
	}
	switch n := t.AddressSize(); n {
	case 1, 2, 4:
		return n
	default:
		return 8
	}
}
