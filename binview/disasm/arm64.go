package disasm

import (
	"strconv"
	"strings"

	"golang.org/x/arch/arm64/arm64asm"
)

type arm64Backend struct{}

func (arm64Backend) facts(inst *arm64asm.Inst, addr uint64) Flow {
	f := Flow{Len: 4, Kind: Plain, FallThrough: true}
	target := func(i int) {
		if r, ok := inst.Args[i].(arm64asm.PCRel); ok {
			f.HasTarget, f.Target = true, addr+uint64(int64(r))
		}
	}
	switch inst.Op {
	case arm64asm.B:
		if _, ok := inst.Args[0].(arm64asm.Cond); ok {
			f.Kind = CondJump
			target(1)
		} else {
			f.Kind, f.FallThrough = Jump, false
			target(0)
		}
	case arm64asm.BL:
		f.Kind = Call
		target(0)
	case arm64asm.CBZ, arm64asm.CBNZ:
		f.Kind = CondJump
		target(1)
	case arm64asm.TBZ, arm64asm.TBNZ:
		f.Kind = CondJump
		target(2)
	case arm64asm.BR:
		f.Kind, f.FallThrough = IndirectJump, false
	case arm64asm.BLR:
		f.Kind = IndirectCall
	case arm64asm.RET, arm64asm.ERET:
		f.Kind, f.FallThrough = Return, false
	case arm64asm.NOP:
		f.Nop = true
	case arm64asm.BRK, arm64asm.HLT:
		f.Kind, f.FallThrough = Trap, false
	case arm64asm.ADR:
		if r, ok := inst.Args[1].(arm64asm.PCRel); ok {
			f.HasRef, f.Ref = true, addr+uint64(int64(r))
		}
	case arm64asm.LDR, arm64asm.LDRSW, arm64asm.PRFM:
		for _, a := range inst.Args {
			if r, ok := a.(arm64asm.PCRel); ok {
				f.HasRef, f.Ref = true, addr+uint64(int64(r))
			}
		}
	}
	return f
}

func (b arm64Backend) flow(code []byte, addr uint64) Flow {
	if len(code) < 4 {
		return Flow{Len: len(code), Kind: Invalid}
	}
	inst, err := arm64asm.Decode(code)
	if err != nil {
		if _, _, ok := lse(le32(code)); ok {
			return Flow{Len: 4, Kind: Plain, FallThrough: true}
		}
		if le32(code)>>16 == 0 {
			return Flow{Len: 4, Kind: Trap} // udf, as decode says
		}
		return Flow{Len: 4, Kind: Invalid}
	}
	return b.facts(&inst, addr)
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func (b arm64Backend) decode(code []byte, addr uint64, syn Syntax, sym Symbolizer) (string, string, Flow) {
	if len(code) < 4 {
		return "(bad)", "", Flow{Len: len(code), Kind: Invalid}
	}
	inst, err := arm64asm.Decode(code)
	if err != nil {
		if mn, ops, ok := lse(le32(code)); ok {
			return mn, ops, Flow{Len: 4, Kind: Plain, FallThrough: true}
		}
		if w := le32(code); w>>16 == 0 {
			// UDF #imm16, the permanently undefined instruction, which
			// x/arch does not decode: compilers pad with it (a zero word
			// is udf #0) and put it after calls that never return. It
			// traps, as objdump prints it.
			return "udf", "#" + strconv.Itoa(int(w&0xffff)), Flow{Len: 4, Kind: Trap}
		}
		return "(bad)", "", Flow{Len: 4, Kind: Invalid}
	}
	f := b.facts(&inst, addr)
	var text string
	if syn == Go {
		text = arm64asm.GoSyntax(inst, addr, goLookup(sym), nil)
	} else {
		text = arm64asm.GNUSyntax(inst)
		text = replacePCRel(text, &inst, addr, sym)
	}
	mn, ops := splitFirst(text)
	return mn, ops, f
}

// replacePCRel swaps x/arch's ".+0x10" relative operands for absolute
// addresses or names, as objdump prints them; an ADRP operand is the page
// (the instruction's address with the low 12 bits clear, plus the
// operand).
func replacePCRel(text string, inst *arm64asm.Inst, addr uint64, sym Symbolizer) string {
	for _, a := range inst.Args {
		r, ok := a.(arm64asm.PCRel)
		if !ok {
			continue
		}
		if inst.Op == arm64asm.ADRP {
			// A page, not an address: the instruction that completes the
			// pair names what it points at.
			text = strings.Replace(text, r.String(), hex(addr&^0xfff+uint64(int64(r))), 1)
			continue
		}
		text = strings.Replace(text, r.String(), targetText(addr+uint64(int64(r)), sym), 1)
	}
	return text
}

// goLookup adapts a Symbolizer to x/arch's lookup signature.
func goLookup(sym Symbolizer) func(uint64) (string, uint64) {
	return func(a uint64) (string, uint64) {
		if sym == nil {
			return "", 0
		}
		if name, base, ok := sym(a); ok {
			return name, base
		}
		return "", 0
	}
}

// splitFirst splits text at its first space into mnemonic and operands.
func splitFirst(text string) (string, string) {
	text = strings.TrimSpace(text)
	if i := strings.IndexByte(text, ' '); i >= 0 {
		return text[:i], strings.TrimSpace(text[i+1:])
	}
	return text, ""
}
