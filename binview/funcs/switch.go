package funcs

import (
	"github.com/warden-mcp/warden/binview/disasm"
)

// history keeps the last few instructions of a straight-line run, for
// recognising the code in front of an indirect jump.
type history struct {
	buf [8]disasm.Flow
	n   int
}

func (h *history) reset() { h.n = 0 }

func (h *history) push(f disasm.Flow) {
	h.buf[h.n%len(h.buf)] = f
	h.n++
}

// at returns the i-th most recent instruction (0: the last pushed).
func (h *history) at(i int) (disasm.Flow, bool) {
	if i >= h.n || i >= len(h.buf) {
		return disasm.Flow{}, false
	}
	return h.buf[(h.n-1-i)%len(h.buf)], true
}

const maxCases = 1024

// jumpTable recognises the jump tables compilers emit for switch
// statements on x86 and returns the case targets that stay in f:
//
//	cmp idx, N ; ja default ; lea base, [rip+T] ; movsxd r, [base+idx*4] ; add r, base ; jmp r
//	cmp idx, N ; ja default ; jmp [idx*8+T]
//
// The bound comes from the compare before the conditional jump; without
// one, entries are read until one leaves the function (at most 1024).
func (a *Analyzer) jumpTable(f *fn, jmp disasm.Flow, h *history) []uint64 {
	if a.arch != disasm.X86_64 && a.arch != disasm.X86 {
		return nil
	}
	var base uint64
	relative := false
	if jmp.HasTable {
		base = jmp.Table
	} else {
		for i := 1; i < len(h.buf); i++ {
			p, ok := h.at(i)
			if !ok {
				break
			}
			if p.HasRef && !a.mem.isExec(p.Ref) && a.mem.mapped(p.Ref) {
				base, relative = p.Ref, true
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
