package disasm

import (
	"encoding/binary"
	"strings"

	"golang.org/x/arch/ppc64/ppc64asm"
)

type ppcBackend struct{ big bool }

func (b ppcBackend) order() binary.ByteOrder {
	if b.big {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// boAlways reports a BO field that ignores both the condition and CTR.
func boAlways(a ppc64asm.Arg) bool {
	bo, ok := a.(ppc64asm.Imm)
	return ok && bo&0x14 == 0x14
}

func (ppcBackend) facts(inst *ppc64asm.Inst, addr uint64) Flow {
	f := Flow{Len: inst.Len, Kind: Plain, FallThrough: true}
	target := func() {
		for _, a := range inst.Args {
			switch a := a.(type) {
			case ppc64asm.PCRel:
				f.HasTarget, f.Target = true, addr+uint64(int64(a))
			case ppc64asm.Label:
				f.HasTarget, f.Target = true, uint64(a)
			}
		}
	}
	switch inst.Op {
	case ppc64asm.B, ppc64asm.BA:
		f.Kind, f.FallThrough = Jump, false
		target()
	case ppc64asm.BL, ppc64asm.BLA:
		f.Kind = Call
		target()
	case ppc64asm.BC, ppc64asm.BCA:
		target()
		if boAlways(inst.Args[0]) {
			f.Kind, f.FallThrough = Jump, false
		} else {
			f.Kind = CondJump
		}
	case ppc64asm.BCL, ppc64asm.BCLA:
		f.Kind = Call
		target()
	case ppc64asm.BCLR:
		f.Kind, f.FallThrough = Return, !boAlways(inst.Args[0])
	case ppc64asm.BCCTR, ppc64asm.BCTAR:
		f.Kind, f.FallThrough = IndirectJump, !boAlways(inst.Args[0])
	case ppc64asm.BCLRL, ppc64asm.BCCTRL, ppc64asm.BCTARL:
		f.Kind = IndirectCall
	case ppc64asm.TW, ppc64asm.TD:
		if to, ok := inst.Args[0].(ppc64asm.Imm); ok && to == 31 {
			f.Kind, f.FallThrough = Trap, false
		}
	}
	return f
}

func (b ppcBackend) flow(code []byte, addr uint64) Flow {
	inst, err := ppc64asm.Decode(code, b.order())
	if err != nil || inst.Len <= 0 || inst.Op == 0 {
		return Flow{Len: 4, Kind: Invalid}
	}
	return b.facts(&inst, addr)
}

func (b ppcBackend) decode(code []byte, addr uint64, syn Syntax, sym Symbolizer) (string, string, Flow) {
	inst, err := ppc64asm.Decode(code, b.order())
	if err != nil || inst.Len <= 0 || inst.Op == 0 {
		return "(bad)", "", Flow{Len: 4, Kind: Invalid}
	}
	f := b.facts(&inst, addr)
	var text string
	if syn == Go {
		text = ppc64asm.GoSyntax(inst, addr, goLookup(sym))
	} else {
		text = ppc64asm.GNUSyntax(inst, addr)
		if f.HasTarget && sym != nil {
			text = strings.Replace(text, hex(f.Target), targetText(f.Target, sym), 1)
		}
	}
	mn, ops := splitFirst(text)
	return mn, ops, f
}
