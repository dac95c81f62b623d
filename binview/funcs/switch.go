package funcs

import (
	"encoding/binary"

	"github.com/warden-mcp/warden/binview/disasm"
)

// history keeps the last few instructions of a straight-line run, for
// recognising the code in front of an indirect jump.
type history struct {
	buf [12]disasm.Flow
	pc  [12]uint64
	n   int
	// lea holds, per x86-64 register, the last address a
	// lea r, [rip+d] anywhere in the function's walk put in it (0:
	// none): compilers load a jump table's base once, far from the
	// jumps that use it (clang's computed gotos).
	lea [16]uint64
	// bounds maps the target of a conditional jump that follows a
	// compare with a constant to that constant plus one: the bound of a
	// table whose code the jump enters (cmp eax, 6; jbe L; L: lea ...).
	// bound is that of the path being walked.
	bounds map[uint64]int
	bound  int
}

// resetAt starts a new straight-line path at pc.
func (h *history) resetAt(pc uint64) {
	h.n = 0
	h.bound = h.bounds[pc]
}

// noteCond records, for the x86 conditional jump just pushed (code is
// its bytes), the bound the compare before it sets on the code it jumps
// to: jbe (below or equal, N+1 cases) and jb (below, N) enter the range;
// other conditions leave it.
func (h *history) noteCond(target uint64, code []byte) {
	c, ok := h.at(1)
	if !ok || !c.HasImm || c.Imm >= maxCases || len(code) < 2 {
		return
	}
	op := code[0]
	if op == 0x0f {
		op = code[1] - 0x10 // 0f 86 / 0f 82: the rel32 forms of 76 / 72
	}
	n := int(c.Imm)
	switch op {
	case 0x76: // jbe
		n++
	case 0x72: // jb
	default:
		return
	}
	if h.bounds == nil {
		h.bounds = map[uint64]int{}
	}
	h.bounds[target] = n
}

func (h *history) push(pc uint64, f disasm.Flow) {
	h.buf[h.n%len(h.buf)] = f
	h.pc[h.n%len(h.buf)] = pc
	h.n++
}

// at returns the i-th most recent instruction (0: the last pushed).
func (h *history) at(i int) (disasm.Flow, bool) {
	if i >= h.n || i >= len(h.buf) {
		return disasm.Flow{}, false
	}
	return h.buf[(h.n-1-i)%len(h.buf)], true
}

// noteLea records a lea r64, [rip+d] at pc.
func (h *history) noteLea(code []byte, pc uint64) {
	if len(code) < 7 || code[0]&0xfb != 0x48 || code[1] != 0x8d || code[2]&0xc7 != 0x05 {
		return
	}
	r := int(code[2]>>3&7) | int(code[0]&4)<<1
	h.lea[r] = pc + 7 + uint64(int64(int32(binary.LittleEndian.Uint32(code[3:]))))
}

// pcAt returns the address of the i-th most recent instruction.
func (h *history) pcAt(i int) uint64 { return h.pc[(h.n-1-i)%len(h.buf)] }

const maxCases = 1024

// jumpTable recognises the jump tables compilers emit for switch
// statements (and computed gotos) on x86 and returns the case targets
// that stay in f:
//
//	cmp idx, N ; ja default ; lea base, [rip+T] ; movsxd r, [base+idx*4] ; add r, base ; jmp r
//	cmp idx, N ; ja default ; jmp [idx*8+T]
//	cmp idx, N ; ja default ; mov r, [idx*8+T] ; jmp r
//	lea base, [rip+T] ; mov r, [base+idx*8] ; jmp r
//
// The first holds offsets from T, the others absolute pointers. The
// bound comes from the compare before the conditional jump; without
// one, entries are read until one leaves the function (at most 1024).
func (a *Analyzer) jumpTable(f *fn, jmp disasm.Flow, h *history) []uint64 {
	if a.arch != disasm.X86_64 && a.arch != disasm.X86 {
		return nil
	}
	var base uint64
	relative := false
	if jmp.HasTable {
		base = jmp.Table
	} else if code, _ := a.mem.code(h.pcAt(0)); a.arch == disasm.X86_64 && h.viaLea(code) != 0 {
		base = h.viaLea(code) // jmp [b+idx*8], b loaded by a lea
	} else {
		pointers := false // a load of pointer-sized, pointer-scaled entries
		for i := 1; i < len(h.buf); i++ {
			p, ok := h.at(i)
			if !ok {
				break
			}
			code, _ := a.mem.code(h.pcAt(i))
			if t, ok := x86TableLoad(code, a.arch == disasm.X86_64); ok {
				pointers = true
				if t == 0 && a.arch == disasm.X86_64 {
					t = h.viaLea(code) // mov r, [b+idx*8], b loaded by a lea
				}
				if t != 0 && !a.mem.isExec(t) && a.mem.mapped(t) {
					base = t // mov r, [idx*8+T]: the table is the displacement
					break
				}
				continue
			}
			if t := h.viaLeaRel(code); t != 0 && a.arch == disasm.X86_64 && !a.mem.isExec(t) && a.mem.mapped(t) {
				base, relative = t, true // movsxd r, [b+idx*4], b loaded by a lea
				break
			}
			if p.HasRef && !a.mem.isExec(p.Ref) && a.mem.mapped(p.Ref) {
				base, relative = p.Ref, !pointers
				break
			}
			if p.Kind != disasm.Plain {
				break
			}
		}
	}
	if base == 0 {
		return nil
	}
	n := maxCases
	if h.bound > 0 {
		n = h.bound // the compare guarded the jump into this path
	}
	for i := 1; i+1 < len(h.buf); i++ {
		p, ok := h.at(i)
		if !ok {
			break
		}
		if p.Kind == disasm.CondJump {
			if c, ok := h.at(i + 1); ok && c.HasImm && c.Imm < maxCases {
				n = int(c.Imm) + 1
			}
			break
		}
		if p.Kind != disasm.Plain {
			break
		}
	}
	ri := a.mem.find(base)
	if ri < 0 {
		return nil
	}
	r := &a.mem.regions[ri]
	size := 4
	if !relative {
		size = a.arch.PtrSize()
	}
	order := a.byteOrder()
	var out []uint64
	for i := 0; i < n; i++ {
		off := base - r.Addr + uint64(i*size)
		if off+uint64(size) > uint64(len(r.Data)) {
			break
		}
		var t uint64
		switch {
		case relative:
			t = base + uint64(int64(int32(order.Uint32(r.Data[off:]))))
		case size == 4:
			t = uint64(order.Uint32(r.Data[off:]))
		default:
			t = order.Uint64(r.Data[off:])
		}
		if !a.mem.isExec(t) || !a.internal(f, t) {
			break
		}
		out = append(out, t)
	}
	return out
}

// x86TableLoad recognises a load of a pointer-sized entry from a table
// indexed by a register scaled by the pointer size: mov r64, [b+i*8+d]
// (x86-64) or mov r32, [b+i*4+d] (x86). It returns the displacement, 0
// when the table's address is in a base register instead.
func x86TableLoad(code []byte, x64 bool) (uint64, bool) {
	if x64 {
		if len(code) < 4 || code[0]&0xf8 != 0x48 { // REX.W
			return 0, false
		}
		code = code[1:]
	}
	if len(code) < 3 || code[0] != 0x8b {
		return 0, false
	}
	modrm, sib := code[1], code[2]
	mod, rm := modrm>>6, modrm&7
	scale := uint(2) // *4
	if x64 {
		scale = 3 // *8
	}
	if rm != 4 || uint(sib>>6) != scale || sib>>3&7 == 4 {
		return 0, false // no SIB, another scale, or no index
	}
	switch {
	case mod == 0 && sib&7 == 5: // [idx*s+disp32], no base
		if len(code) < 7 {
			return 0, false
		}
		d := binary.LittleEndian.Uint32(code[3:])
		if x64 {
			return uint64(int64(int32(d))), true
		}
		return uint64(d), true
	case mod == 0: // [base+idx*s]
		return 0, true
	}
	return 0, false
}

// viaLea returns the table address of an x86-64 jmp [b+idx*8(+d8)] or
// mov r, [b+idx*8(+d8)] whose base register b a lea of the function
// loaded, 0 when code is neither or b is unknown.
func (h *history) viaLea(code []byte) uint64 { return h.leaBased(code, false) }

// viaLeaRel is viaLea for movsxd r64, [b+idx*4]: a table of 32-bit
// offsets from its own start.
func (h *history) viaLeaRel(code []byte) uint64 { return h.leaBased(code, true) }

func (h *history) leaBased(code []byte, rel bool) uint64 {
	rexB := 0
	if len(code) > 0 && code[0]&0xf0 == 0x40 {
		rexB = int(code[0]&1) << 3
		code = code[1:]
	}
	if len(code) < 3 {
		return 0
	}
	scale := byte(3)
	switch {
	case rel && code[0] == 0x63: // movsxd r, r/m32
		scale = 2
	case rel:
		return 0
	case code[0] == 0xff && code[1]>>3&7 == 4: // jmp r/m
	case code[0] == 0x8b: // mov r, r/m
	default:
		return 0
	}
	modrm, sib := code[1], code[2]
	mod := modrm >> 6
	if modrm&7 != 4 || sib>>6 != scale || sib>>3&7 == 4 || sib&7 == 5 && mod == 0 {
		return 0
	}
	var disp uint64
	switch mod {
	case 0:
	case 1:
		if len(code) < 4 {
			return 0
		}
		disp = uint64(int64(int8(code[3])))
	default:
		return 0
	}
	b := h.lea[int(sib&7)|rexB]
	if b == 0 {
		return 0
	}
	return b + disp
}
