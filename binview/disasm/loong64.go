package disasm

import (
	"strings"

	"golang.org/x/arch/loong64/loong64asm"
)

type loongBackend struct{}

func (loongBackend) facts(inst *loong64asm.Inst, addr uint64) Flow {
	f := Flow{Len: 4, Kind: Plain, FallThrough: true}
	var off *loong64asm.OffsetSimm
	for _, a := range inst.Args {
		if o, ok := a.(loong64asm.OffsetSimm); ok {
			off = &o
		}
	}
	setTarget := func() {
		if off != nil {
			f.HasTarget, f.Target = true, addr+uint64(int64(off.Imm))
		}
	}
	switch inst.Op {
	case loong64asm.B:
		f.Kind, f.FallThrough = Jump, false
		setTarget()
	case loong64asm.BL:
		f.Kind = Call
		setTarget()
	case loong64asm.BEQ, loong64asm.BNE, loong64asm.BLT, loong64asm.BGE, loong64asm.BLTU,
		loong64asm.BGEU, loong64asm.BEQZ, loong64asm.BNEZ, loong64asm.BCEQZ, loong64asm.BCNEZ:
		f.Kind = CondJump
		setTarget()
	case loong64asm.JIRL:
		rd, _ := inst.Args[0].(loong64asm.Reg)
		rj, _ := inst.Args[1].(loong64asm.Reg)
		switch {
		case rd == loong64asm.R0 && rj == loong64asm.R1 && (off == nil || off.Imm == 0):
			f.Kind, f.FallThrough = Return, false
		case rd == loong64asm.R0:
			f.Kind, f.FallThrough = IndirectJump, false
		default:
			f.Kind = IndirectCall
		}
	case loong64asm.BREAK:
		f.Kind, f.FallThrough = Trap, false
	}
	return f
}

func (b loongBackend) flow(code []byte, addr uint64) Flow {
	if len(code) < 4 {
		return Flow{Len: len(code), Kind: Invalid}
	}
	inst, err := loong64asm.Decode(code)
	if err != nil || inst.Op == 0 {
		return Flow{Len: 4, Kind: Invalid}
	}
	return b.facts(&inst, addr)
}

func (b loongBackend) decode(code []byte, addr uint64, syn Syntax, sym Symbolizer) (string, string, Flow) {
	if len(code) < 4 {
		return "(bad)", "", Flow{Len: len(code), Kind: Invalid}
	}
	inst, err := loong64asm.Decode(code)
	if err != nil || inst.Op == 0 {
		return "(bad)", "", Flow{Len: 4, Kind: Invalid}
	}
	f := b.facts(&inst, addr)
	var text string
	if syn == Go {
		text = loong64asm.GoSyntax(inst, addr, goLookup(sym))
	} else {
		text = loong64asm.GNUSyntax(inst)
		if f.HasTarget {
			// x/arch prints the byte offset last; show the target.
			if i := strings.LastIndexByte(text, ','); i >= 0 {
				text = text[:i+1] + " " + targetText(f.Target, sym)
			} else if j := strings.IndexByte(text, ' '); j >= 0 {
				text = text[:j+1] + targetText(f.Target, sym)
			}
		}
	}
	mn, ops := splitFirst(text)
	return mn, ops, f
}
