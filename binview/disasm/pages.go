package disasm

// Pages completes the addresses RISC compilers build in two instructions:
// the first puts a PC-relative page (or address) in a register, and the
// next adds the rest, in an add or as the offset of a load or store:
//
//	arm64    adrp x0, 0xe0000            add  x0, x0, #0x758
//	riscv64  auipc a0, 0x2               addi a0, a0, -1234   (ld, sd, flw ...)
//	loong64  pcalau12i $a0, 0x2          addi.d $a0, $a0, 0x758   (ld.d, st.w ...)
//	ppc64    lis r5, 25                  addi r5, r5, 20720   (ld, stw, ori ...)
//
// ppc64's pairs are absolute (lis is addis from r0), as Go and non-PIC code
// write them; TOC-relative pairs (addis from r2) need the TOC's value and
// are not completed.
//
// Fed each instruction of a run in address order, Next returns the address
// an instruction completes. A register keeps its page until an instruction
// may write it; a call forgets the registers the calling convention lets
// the callee clobber, and a gap in the addresses, an unconditional branch
// or a return forgets them all, so a page is joined only to code it reaches
// by falling through. Code that a jump also reaches could see another
// value there; compilers keep the two instructions together, so that is
// rare, and a page kept across a branch is missed rather than guessed. A
// Pages is not for concurrent use.
type Pages struct {
	arch  Arch
	page  [32]uint64
	valid uint32 // bit r: page[r] holds register r's page
	next  uint64 // the address that continues the run
}

// NewPages returns a Pages for arch, or nil for an architecture whose
// addresses fit in one instruction (x86) or that Pages does not know; a
// nil Pages completes nothing.
func NewPages(arch Arch) *Pages {
	switch arch {
	case ARM64, RISCV64, LOONG64, PPC64, PPC64LE:
		return &Pages{arch: arch}
	}
	return nil
}

// Reset forgets every page.
func (p *Pages) Reset() {
	if p != nil {
		p.valid = 0
	}
}

// Next reads the instruction at the start of code, which sits at addr, and
// returns the address it completes, if any.
func (p *Pages) Next(code []byte, addr uint64) (uint64, bool) {
	if p == nil {
		return 0, false
	}
	if addr != p.next {
		p.valid = 0
	}
	if len(code) < 2 || p.arch != RISCV64 && len(code) < 4 {
		p.valid, p.next = 0, 0
		return 0, false
	}
	x := uint32(code[0]) | uint32(code[1])<<8
	if p.arch == RISCV64 && x&3 != 3 {
		p.next = addr + 2
		p.compressed(x)
		return 0, false
	}
	if len(code) < 4 {
		p.valid, p.next = 0, 0
		return 0, false
	}
	x |= uint32(code[2])<<16 | uint32(code[3])<<24
	p.next = addr + 4
	switch p.arch {
	case ARM64:
		return p.arm64(x, addr)
	case RISCV64:
		return p.riscv64(x, addr)
	case LOONG64:
		return p.loong64(x, addr)
	case PPC64:
		return p.ppc64(x>>24 | x>>8&0xff00 | x<<8&0xff0000 | x<<24)
	default:
		return p.ppc64(x)
	}
}

// offset completes base register r's page with off, if r holds one.
func (p *Pages) offset(r uint32, off int64) (uint64, bool) {
	if p.valid&(1<<r) == 0 {
		return 0, false
	}
	return p.page[r] + uint64(off), true
}

func (p *Pages) arm64(x uint32, addr uint64) (uint64, bool) {
	rd, rn := x&31, (x>>5)&31
	switch {
	case x&0x9f000000 == 0x90000000: // ADRP
		imm := int64(((x>>5)&0x7ffff)<<2|(x>>29)&3) << 43 >> 31 // sign-extended, times 4 KiB
		p.set(rd, addr&^0xfff+uint64(imm))
	case x&0xff800000 == 0x91000000: // ADD (immediate), 64-bit
		ref, ok := p.offset(rn, int64((x>>10)&0xfff)<<(12*((x>>22)&1)))
		p.clear(rd)
		return ref, ok
	case x&0x3b000000 == 0x39000000: // LDR/STR (unsigned offset), every size
		scale := x >> 30
		vector, opc := x>>26&1 == 1, (x>>22)&3
		if vector && opc >= 2 {
			scale = 4 // a 128-bit q register
		}
		ref, ok := p.offset(rn, int64((x>>10)&0xfff)<<scale)
		if !vector && opc != 0 {
			p.clear(rd) // a load writes its register
		}
		return ref, ok
	case x&0xfc000000 == 0x94000000 || x&0xfffffc1f == 0xd63f0000: // BL, BLR
		p.valid &^= 1<<19 - 1 | 1<<30 // x0-x18 and the link register
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

func (p *Pages) riscv64(x uint32, addr uint64) (uint64, bool) {
	rd, rs1 := (x>>7)&31, (x>>15)&31
	iImm := int64(int32(x) >> 20)
	sImm := int64(int32(x)>>25)<<5 | int64((x>>7)&31)
	switch x & 0x7f {
	case 0x17: // AUIPC
		p.set(rd, addr+uint64(int64(int32(x&0xfffff000))))
	case 0x13: // OP-IMM: ADDI completes; the others only write rd
		if (x>>12)&7 == 0 {
			ref, ok := p.offset(rs1, iImm)
			p.clear(rd)
			return ref, ok
		}
		p.clear(rd)
	case 0x03: // loads
		ref, ok := p.offset(rs1, iImm)
		p.clear(rd)
		return ref, ok
	case 0x07: // floating-point loads (rd is an f register)
		return p.offset(rs1, iImm)
	case 0x23, 0x27: // stores
		return p.offset(rs1, sImm)
	case 0x6f, 0x67: // JAL, JALR
		switch rd {
		case 0:
			p.valid = 0 // a jump or a return
		default:
			// A call: ra, t0-t2, a0-a7, t3-t6 may be clobbered.
			p.valid &^= 1<<1 | 7<<5 | 0xff<<10 | 0xf<<28
		}
	case 0x63: // branches write nothing
	default:
		p.clear(rd)
	}
	return 0, false
}

// compressed follows a 16-bit riscv64 instruction. None completes a pair
// as compilers write them; each may write the register in one of three
// places, depending on its format, and all three are forgotten. Jumps end
// the run, and C.JALR is a call.
func (p *Pages) compressed(x uint32) {
	switch {
	case x&0xe003 == 0xa001: // C.J
		p.valid = 0
	case x&0xe07f == 0x8002 && (x>>7)&31 != 0: // C.JR, C.JALR (and C.EBREAK)
		if x&0x1000 == 0 {
			p.valid = 0
		} else {
			p.valid &^= 1<<1 | 7<<5 | 0xff<<10 | 0xf<<28
		}
	case x&0xe003 == 0xc000 || x&0xe003 == 0xe000 || x&0xe003 == 0xa000 ||
		x&0xe003 == 0xc002 || x&0xe003 == 0xe002 || x&0xe003 == 0xa002 ||
		x&0xc003 == 0xc001:
		// Stores (C.SW, C.SD, C.FSD, C.SWSP, C.SDSP, C.FSDSP) and
		// branches (C.BEQZ, C.BNEZ) write nothing.
	default:
		p.clear((x >> 7) & 31)
		p.clear(8 + (x>>2)&7)
		p.clear(8 + (x>>7)&7)
	}
}

func (p *Pages) loong64(x uint32, addr uint64) (uint64, bool) {
	rd, rj := x&31, (x>>5)&31
	si12 := int64(int32(x<<10) >> 20)
	si20 := int64(int32(x<<7)>>12) << 12
	switch {
	case x&0xfe000000 == 0x1a000000: // PCALAU12I
		p.set(rd, addr&^0xfff+uint64(si20))
	case x&0xfe000000 == 0x1c000000: // PCADDU12I
		p.set(rd, addr+uint64(si20))
	case x&0xffc00000 == 0x02c00000: // ADDI.D
		ref, ok := p.offset(rj, si12)
		p.clear(rd)
		return ref, ok
	case x&0xfc000000 == 0x28000000: // LD.*, ST.*, FLD.*, FST.* with a 12-bit offset
		ref, ok := p.offset(rj, si12)
		if op := (x >> 22) & 0xf; op <= 3 || op >= 8 && op <= 0xa {
			p.clear(rd) // a load writes its register
		}
		return ref, ok
	case x&0xfc000000 == 0x54000000: // BL: ra, a0-a7, t0-t8 may be clobbered
		p.valid &^= 1<<1 | 0x1ffff<<4
	case x&0xfc000000 == 0x50000000: // B
		p.valid = 0
	case x&0xfc000000 == 0x4c000000: // JIRL: a return, an indirect jump or call
		if rd == 0 {
			p.valid = 0
		} else {
			p.valid &^= 1<<1 | 0x1ffff<<4
		}
	case x&0xf0000000 == 0x40000000 || x&0xf0000000 == 0x50000000 || x&0xf0000000 == 0x60000000:
		// Other branches (BEQZ, BEQ ...) write nothing.
	default:
		p.clear(rd)
	}
	return 0, false
}

func (p *Pages) ppc64(x uint32) (uint64, bool) {
	rd, ra := (x>>21)&31, (x>>16)&31
	d := int64(int16(x))
	switch op := x >> 26; op {
	case 15: // ADDIS; from r0 it is lis, an absolute high half
		if ra == 0 {
			p.set(rd, uint64(d<<16))
		} else {
			p.clear(rd)
		}
	case 14: // ADDI; from r0 it is li
		var ref uint64
		ok := false
		if ra != 0 {
			ref, ok = p.offset(ra, d)
		}
		p.clear(rd)
		return ref, ok
	case 24: // ORI rA, rS, UIMM (lis then ori builds a 32-bit address)
		ref, ok := p.offset(rd, int64(0))
		if ok {
			ref |= uint64(x & 0xffff)
		}
		p.clear(ra)
		return ref, ok
	case 32, 34, 40, 42, 48, 50: // lwz, lbz, lhz, lha, lfs, lfd
		ref, ok := p.offset(ra, d)
		if op < 48 {
			p.clear(rd)
		}
		return ref, ok
	case 36, 38, 44, 52, 54: // stw, stb, sth, stfs, stfd
		return p.offset(ra, d)
	case 58, 62: // ld, lwa (DS form); std
		ref, ok := p.offset(ra, int64(int16(x&^3)))
		if op == 58 {
			p.clear(rd)
		}
		if x&3 == 1 {
			p.clear(ra) // ldu, stdu write the address back
		}
		return ref, ok
	case 18: // b, bl
		if x&1 == 1 {
			p.valid &^= 1 | 0x1ff8 // a call: r0, r3-r12 may be clobbered
		} else {
			p.valid = 0
		}
	case 19: // bclr, bcctr (returns, indirect jumps and calls)
		p.valid = 0
	case 16: // bc writes no register
	default:
		// Most instructions write bits 21-25 (D form) or 16-20 (X-form
		// logical, update forms): forget both.
		p.clear(rd)
		p.clear(ra)
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
	zero := uint32(0) // riscv64's x0 and loong64's r0 read as zero
	if p.arch == ARM64 {
		zero = 31 // sp or xzr
	}
	if r != zero {
		p.page[r] = page
		p.valid |= 1 << r
	}
}

func (p *Pages) clear(r uint32) { p.valid &^= 1 << r }
