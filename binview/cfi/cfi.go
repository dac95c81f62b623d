package cfi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/warden-mcp/warden/errcode"
)

// Options describe where the section sits, for the relative pointer
// encodings. The zero value (or nil) suits a little-endian 64-bit file
// whose section is not loaded (addresses taken as absolute).
type Options struct {
	// Addr is the address of the section's first byte; pc-relative
	// pointers are relative to it. Zero: the section starts at 0.
	Addr uint64
	// TextAddr and DataAddr are the bases of text- and data-relative
	// pointers (DataAddr is the GOT on i386). Zero: 0.
	TextAddr, DataAddr uint64
	// PtrSize is the size of an address, 4 or 8. Zero: 8.
	PtrSize int
	// ByteOrder of the file. Nil: little-endian.
	ByteOrder binary.ByteOrder
	// MaxEntries caps the number of CIEs and FDEs read. Zero: 1<<20.
	MaxEntries int
	// ReadPointer reads a pointer-sized word at an address, to resolve
	// indirect encodings. Nil: FDEs whose start is indirect are dropped.
	ReadPointer func(addr uint64) (uint64, bool)
}

// CIE is a Common Information Entry.
type CIE struct {
	Offset       uint64 // from the start of the section
	Version      uint8
	Augmentation string
	CodeAlign    uint64
	DataAlign    int64
	ReturnReg    uint64
	FDEEncoding  uint8 // pointer encoding of FDE addresses
	LSDAEncoding uint8 // 0xff: none
	Personality  uint64
	Signal       bool // "S": a signal trampoline's frame
	AddrSize     uint8
}

// FDE is a Frame Description Entry: one function, or one part of a
// function split by the compiler (foo.cold).
type FDE struct {
	Offset uint64 // from the start of the section
	CIE    int    // index into Table.CIEs
	Start  uint64
	End    uint64 // exclusive
	LSDA   uint64 // language-specific data area; 0: none
}

// Table is the parsed contents of one call-frame section.
type Table struct {
	CIEs []CIE
	FDEs []FDE
}

// Range is a half-open address range [Start, End).
type Range struct{ Start, End uint64 }

// Ranges returns the FDE ranges sorted by start, empty ranges dropped and
// duplicates (same start) merged to the longest.
func (t *Table) Ranges() []Range {
	out := make([]Range, 0, len(t.FDEs))
	for _, f := range t.FDEs {
		if f.End > f.Start {
			out = append(out, Range{f.Start, f.End})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Start < out[j].Start || out[i].Start == out[j].Start && out[i].End > out[j].End
	})
	n := 0
	for i, r := range out {
		if i > 0 && r.Start == out[n-1].Start {
			continue
		}
		out[n] = r
		n++
	}
	return out[:n]
}

const defaultMaxEntries = 1 << 20

type format uint8

const (
	ehFrame format = iota
	debugFrame
)

// ParseEHFrame parses an .eh_frame (or Mach-O __eh_frame) section. On a
// malformed entry it returns what it read before it, with an error whose
// code is malformed_cfi.
func ParseEHFrame(data []byte, opts *Options) (*Table, error) {
	return parse(data, opts, ehFrame)
}

// ParseDebugFrame parses a .debug_frame section.
func ParseDebugFrame(data []byte, opts *Options) (*Table, error) {
	return parse(data, opts, debugFrame)
}

func malformed(err error) error {
	return errcode.Wrap("malformed_cfi", "the call-frame section is malformed", err)
}

type parser struct {
	data   []byte
	o      Options
	f      format
	t      *Table
	cieAt  map[uint64]int // section offset -> index in t.CIEs; -1: bad
	budget int
}

func parse(data []byte, opts *Options, f format) (t *Table, err error) {
	p := &parser{data: data, f: f, t: &Table{}, cieAt: map[uint64]int{}}
	if opts != nil {
		p.o = *opts
	}
	if p.o.PtrSize != 4 {
		p.o.PtrSize = 8
	}
	if p.o.ByteOrder == nil {
		p.o.ByteOrder = binary.LittleEndian
	}
	p.budget = p.o.MaxEntries
	if p.budget <= 0 {
		p.budget = defaultMaxEntries
	}
	defer func() {
		if r := recover(); r != nil {
			t, err = p.t, malformed(fmt.Errorf("cfi: panic: %v", r))
		}
	}()
	err = p.walk()
	return p.t, err
}

// header reads an entry's length and id at off. It returns the reader
// limited to the entry, the id, the id's offset and the offset of the next
// entry. end == 0 means the terminator.
func (p *parser) header(off int) (r reader, id uint64, idOff, end int, is64 bool, err error) {
	r = reader{b: p.data, off: off, order: p.o.ByteOrder}
	l32, err := r.u32()
	if err != nil {
		return r, 0, 0, 0, false, err
	}
	length := uint64(l32)
	if l32 == 0xffffffff {
		is64 = true
		if length, err = r.u64(); err != nil {
			return r, 0, 0, 0, false, err
		}
	}
	if length == 0 {
		return r, 0, 0, 0, is64, nil
	}
	if length > uint64(r.left()) {
		return r, 0, 0, 0, is64, errShort
	}
	end = r.off + int(length)
	r.b = p.data[:end]
	idOff = r.off
	if is64 {
		id, err = r.u64()
	} else {
		var v uint32
		v, err = r.u32()
		id = uint64(v)
	}
	return r, id, idOff, end, is64, err
}

func (p *parser) isCIE(id uint64, is64 bool) bool {
	if p.f == ehFrame {
		return id == 0
	}
	if is64 {
		return id == ^uint64(0)
	}
	return id == 0xffffffff
}

func (p *parser) walk() error {
	for off := 0; off < len(p.data); {
		if p.budget <= 0 {
			return errTooMany()
		}
		p.budget--
		r, id, idOff, end, is64, err := p.header(off)
		if err != nil {
			return malformed(err)
		}
		if end == 0 {
			if p.f == ehFrame {
				return nil // terminator
			}
			off = r.off
			continue
		}
		if p.isCIE(id, is64) {
			if _, err := p.cie(off); err != nil {
				return malformed(err)
			}
		} else if err := p.fde(r, off, id, idOff); err != nil {
			return malformed(err)
		}
		off = end
	}
	return nil
}

// cie parses (once) the CIE that starts at off.
func (p *parser) cie(off int) (int, error) {
	if i, ok := p.cieAt[uint64(off)]; ok {
		if i < 0 {
			return -1, errors.New("cfi: bad CIE")
		}
		return i, nil
	}
	p.cieAt[uint64(off)] = -1
	r, id, _, end, is64, err := p.header(off)
	if err != nil {
		return -1, err
	}
	if end == 0 || !p.isCIE(id, is64) {
		return -1, errors.New("cfi: FDE points at something that is not a CIE")
	}
	c := CIE{Offset: uint64(off), FDEEncoding: peAbsptr, LSDAEncoding: peOmit, AddrSize: uint8(p.o.PtrSize)}
	if c.Version, err = r.u8(); err != nil {
		return -1, err
	}
	switch c.Version {
	case 1, 3, 4:
	default:
		return -1, fmt.Errorf("cfi: CIE version %d", c.Version)
	}
	if c.Augmentation, err = r.cstring(); err != nil {
		return -1, err
	}
	if strings.HasPrefix(c.Augmentation, "eh") {
		// GCC 2.x: a pointer-sized "eh data" word.
		if err := r.skip(uint64(p.o.PtrSize)); err != nil {
			return -1, err
		}
	}
	if c.Version >= 4 {
		a, err := r.u8()
		if err != nil {
			return -1, err
		}
		if _, err := r.u8(); err != nil { // segment selector size
			return -1, err
		}
		if a != 4 && a != 8 {
			return -1, fmt.Errorf("cfi: address size %d", a)
		}
		c.AddrSize = a
	}
	if c.CodeAlign, err = r.uleb(); err != nil {
		return -1, err
	}
	if c.DataAlign, err = r.sleb(); err != nil {
		return -1, err
	}
	if c.Version == 1 {
		v, err := r.u8()
		if err != nil {
			return -1, err
		}
		c.ReturnReg = uint64(v)
	} else if c.ReturnReg, err = r.uleb(); err != nil {
		return -1, err
	}
	if strings.HasPrefix(c.Augmentation, "z") {
		n, err := r.uleb()
		if err != nil {
			return -1, err
		}
		if n > uint64(r.left()) {
			return -1, errShort
		}
		aug := reader{b: r.b[:r.off+int(n)], off: r.off, order: r.order}
		b := p.bases(int(c.AddrSize))
		for _, ch := range c.Augmentation[1:] {
			switch ch {
			case 'R':
				if c.FDEEncoding, err = aug.u8(); err != nil {
					return -1, err
				}
			case 'L':
				if c.LSDAEncoding, err = aug.u8(); err != nil {
					return -1, err
				}
			case 'P':
				enc, err := aug.u8()
				if err != nil {
					return -1, err
				}
				if c.Personality, _, err = aug.pointer(enc, &b); err != nil {
					return -1, err
				}
			case 'S':
				c.Signal = true
			case 'B', 'G':
				// AArch64 BTI / MTE-tagged frames: no data.
			default:
				// Unknown letters: the data length lets us skip the rest.
			}
		}
	} else if c.Augmentation != "" && c.Augmentation != "eh" {
		return -1, fmt.Errorf("cfi: augmentation %q without z", c.Augmentation)
	}
	if c.FDEEncoding != peOmit && c.FDEEncoding&0x0f > peSdata8 {
		return -1, errors.New("cfi: unknown FDE pointer encoding")
	}
	p.t.CIEs = append(p.t.CIEs, c)
	i := len(p.t.CIEs) - 1
	p.cieAt[uint64(off)] = i
	return i, nil
}

func (p *parser) bases(ptrSize int) bases {
	return bases{section: p.o.Addr, text: p.o.TextAddr, data: p.o.DataAddr, ptrSize: ptrSize}
}

func (p *parser) fde(r reader, off int, id uint64, idOff int) error {
	var cieOff uint64
	if p.f == ehFrame {
		if id > uint64(idOff) {
			return errors.New("cfi: CIE pointer out of the section")
		}
		cieOff = uint64(idOff) - id
	} else {
		cieOff = id
	}
	if cieOff >= uint64(len(p.data)) {
		return errors.New("cfi: CIE pointer out of the section")
	}
	ci, err := p.cie(int(cieOff))
	if err != nil {
		return err
	}
	c := &p.t.CIEs[ci]
	b := p.bases(int(c.AddrSize))
	enc := c.FDEEncoding
	if p.f == debugFrame {
		enc = peAbsptr
	}
	start, indirect, err := r.pointer(enc, &b)
	if err != nil {
		return err
	}
	length, err := r.value(enc&0x0f, int(c.AddrSize))
	if err != nil {
		return err
	}
	if indirect {
		if p.o.ReadPointer == nil {
			return nil
		}
		v, ok := p.o.ReadPointer(start)
		if !ok {
			return nil
		}
		start = v
	}
	fd := FDE{Offset: uint64(off), CIE: ci, Start: start, End: start + length}
	if fd.End < fd.Start {
		fd.End = fd.Start // a wrapping range describes nothing
	}
	if strings.HasPrefix(c.Augmentation, "z") {
		n, err := r.uleb()
		if err != nil {
			return err
		}
		if n > uint64(r.left()) {
			return errShort
		}
		if c.LSDAEncoding != peOmit && n > 0 {
			aug := reader{b: r.b[:r.off+int(n)], off: r.off, order: r.order}
			b.fn = start
			if fd.LSDA, _, err = aug.pointer(c.LSDAEncoding, &b); err != nil {
				return err
			}
		}
	}
	p.t.FDEs = append(p.t.FDEs, fd)
	return nil
}

func errTooMany() error {
	return errcode.New("too_many_entries", "the call-frame section has more entries than allowed")
}
