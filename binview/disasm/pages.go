package disasm

// Pages completes the ARM64 addresses that take two instructions: ADRP
// puts a 4 KiB page in a register, and an ADD or a load or store with an
// unsigned offset adds the offset within the page:
//
//	adrp x0, 0xe0000
//	add  x0, x0, #0x758     ; go:itab.*os.File,io.Writer
//
// Fed each instruction of a run in address order, Next returns the address
// an instruction completes. A register keeps its page until an instruction
// may write it; a call forgets the registers it may clobber (x0-x18, x30),
// and a gap in the addresses, a branch or a return forgets them all, so a
// page never leaks into code it does not reach by falling through. Pages
// may miss a pair (a page kept across a branch) but it does not invent
// one. The zero value is ready; a Pages is not for concurrent use.
type Pages struct {
	page  [31]uint64
	valid uint32 // bit r: page[r] holds x<r>'s page
	next  uint64 // the address that continues the run
}

// Reset forgets every page.
func (p *Pages) Reset() { p.valid = 0 }

// Next reads the ARM64 instruction at the start of code, which sits at
// addr, and returns the address it completes, if any.
func (p *Pages) Next(code []byte, addr uint64) (uint64, bool) {
	if len(code) < 4 {
		p.valid = 0
		return 0, false
	}
	if addr != p.next {
		p.valid = 0
	}
	p.next = addr + 4
	x := uint32(code[0]) | uint32(code[1])<<8 | uint32(code[2])<<16 | uint32(code[3])<<24
	rd, rn := x&31, (x>>5)&31
	switch {
	case x&0x9f000000 == 0x90000000: // ADRP
		imm := int64(((x>>5)&0x7ffff)<<2|(x>>29)&3) << 43 >> 31 // sign-extended, times 4 KiB
		p.set(rd, addr&^0xfff+uint64(imm))
		return 0, false
	case x&0xff800000 == 0x91000000: // ADD (immediate), 64-bit
		base, ok := p.get(rn)
		p.clear(rd)
		if !ok {
			return 0, false
		}
		return base + uint64((x>>10)&0xfff)<<(12*((x>>22)&1)), true
	case x&0x3b000000 == 0x39000000: // LDR/STR (unsigned offset), every size
		base, ok := p.get(rn)
		size, vector, opc := x>>30, x>>26&1 == 1, (x>>22)&3
		scale := size
		if vector && opc >= 2 {
			scale = 4 // a 128-bit q register
		}
		if !vector && opc != 0 {
			p.clear(rd) // a load writes its register
		}
		if !ok {
			return 0, false
		}
		return base + uint64((x>>10)&0xfff)<<scale, true
	case x&0xfc000000 == 0x94000000 || x&0xfffffc1f == 0xd63f0000: // BL, BLR
		p.valid &^= 1<<19 - 1 | 1<<30
	case x&0xfc000000 == 0x14000000 || x&0xfe000000 == 0xd6000000: // B, BR, RET, ERET
		p.valid = 0
	default:
		// Whatever else may write a register: the one in bits 0-4 of
		// most instructions, and for the other loads and stores the
		// second register and a written-back base.
		p.clear(rd)
		if x&0x0a000000 == 0x08000000 {
			p.clear(rn)
			p.clear((x >> 10) & 31)
		}
	}
	return 0, false
}

// complete adds to f, the facts of the instruction at addr, the address
// it completes, if any. A nil Pages adds nothing.
func (p *Pages) complete(f *Flow, code []byte, addr uint64) {
	if p == nil {
		return
	}
	if f.Kind == Invalid {
		p.Reset()
		return
	}
	if ref, ok := p.Next(code, addr); ok && !f.HasRef {
		f.HasRef, f.Ref = true, ref
	}
}

func (p *Pages) set(r uint32, page uint64) {
	if r < 31 {
		p.page[r] = page
		p.valid |= 1 << r
	}
}

func (p *Pages) get(r uint32) (uint64, bool) {
	if r < 31 && p.valid&(1<<r) != 0 {
		return p.page[r], true
	}
	return 0, false
}

func (p *Pages) clear(r uint32) {
	if r < 31 {
		p.valid &^= 1 << r
	}
}
