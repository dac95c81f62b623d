package cfi

import (
	"encoding/binary"
	"errors"
)

// Pointer encodings (DW_EH_PE_*).
const (
	peAbsptr  = 0x00
	peULEB128 = 0x01
	peUdata2  = 0x02
	peUdata4  = 0x03
	peUdata8  = 0x04
	peSLEB128 = 0x09
	peSdata2  = 0x0a
	peSdata4  = 0x0b
	peSdata8  = 0x0c

	pePCRel   = 0x10
	peTextRel = 0x20
	peDataRel = 0x30
	peFuncRel = 0x40
	peAligned = 0x50

	peIndirect = 0x80
	peOmit     = 0xff
)

var errShort = errors.New("cfi: truncated")

// reader walks a byte slice; every read checks the bytes that remain.
type reader struct {
	b     []byte
	off   int
	order binary.ByteOrder
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) u8() (uint8, error) {
	if r.left() < 1 {
		return 0, errShort
	}
	v := r.b[r.off]
	r.off++
	return v, nil
}

func (r *reader) u16() (uint16, error) {
	if r.left() < 2 {
		return 0, errShort
	}
	v := r.order.Uint16(r.b[r.off:])
	r.off += 2
	return v, nil
}

func (r *reader) u32() (uint32, error) {
	if r.left() < 4 {
		return 0, errShort
	}
	v := r.order.Uint32(r.b[r.off:])
	r.off += 4
	return v, nil
}

func (r *reader) u64() (uint64, error) {
	if r.left() < 8 {
		return 0, errShort
	}
	v := r.order.Uint64(r.b[r.off:])
	r.off += 8
	return v, nil
}

func (r *reader) uleb() (uint64, error) {
	var v uint64
	var shift uint
	for {
		c, err := r.u8()
		if err != nil {
			return 0, err
		}
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v, nil
		}
		if shift > 70 {
			return 0, errors.New("cfi: LEB128 too long")
		}
	}
}

func (r *reader) sleb() (int64, error) {
	var v int64
	var shift uint
	for {
		c, err := r.u8()
		if err != nil {
			return 0, err
		}
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, nil
		}
		if shift > 70 {
			return 0, errors.New("cfi: LEB128 too long")
		}
	}
}

func (r *reader) cstring() (string, error) {
	for i := r.off; i < len(r.b); i++ {
		if r.b[i] == 0 {
			s := string(r.b[r.off:i])
			r.off = i + 1
			return s, nil
		}
	}
	return "", errShort
}

func (r *reader) skip(n uint64) error {
	if n > uint64(r.left()) {
		return errShort
	}
	r.off += int(n)
	return nil
}

// bases are the addresses relative encodings apply to.
type bases struct {
	section uint64 // address of the section's first byte (pcrel)
	text    uint64 // textrel
	data    uint64 // datarel
	fn      uint64 // funcrel: the FDE's start, once known
	ptrSize int
}

// value reads a value in the format part of enc (low nibble), without
// applying any base.
func (r *reader) value(enc uint8, ptrSize int) (uint64, error) {
	switch enc & 0x0f {
	case peAbsptr:
		if ptrSize == 4 {
			v, err := r.u32()
			return uint64(v), err
		}
		return r.u64()
	case peULEB128:
		return r.uleb()
	case peUdata2:
		v, err := r.u16()
		return uint64(v), err
	case peUdata4:
		v, err := r.u32()
		return uint64(v), err
	case peUdata8:
		return r.u64()
	case peSLEB128:
		v, err := r.sleb()
		return uint64(v), err
	case peSdata2:
		v, err := r.u16()
		return uint64(int64(int16(v))), err
	case peSdata4:
		v, err := r.u32()
		return uint64(int64(int32(v))), err
	case peSdata8:
		return r.u64()
	}
	return 0, errors.New("cfi: unknown pointer format")
}

// pointer reads an encoded pointer and applies its base. It reports
// whether the result is the address of the pointer (indirect) rather
// than the pointer itself.
func (r *reader) pointer(enc uint8, b *bases) (v uint64, indirect bool, err error) {
	if enc == peOmit {
		return 0, false, nil
	}
	if enc&0x70 == peAligned {
		a := b.ptrSize
		if a <= 0 {
			a = 8
		}
		pos := b.section + uint64(r.off)
		if pad := (uint64(a) - pos%uint64(a)) % uint64(a); pad > 0 {
			if err := r.skip(pad); err != nil {
				return 0, false, err
			}
		}
		enc = enc&peIndirect | peAbsptr
	}
	at := b.section + uint64(r.off)
	v, err = r.value(enc, b.ptrSize)
	if err != nil {
		return 0, false, err
	}
	switch enc & 0x70 {
	case pePCRel:
		v += at
	case peTextRel:
		v += b.text
	case peDataRel:
		v += b.data
	case peFuncRel:
		v += b.fn
	}
	if b.ptrSize == 4 {
		v &= 0xffffffff
	}
	return v, enc&peIndirect != 0, nil
}
