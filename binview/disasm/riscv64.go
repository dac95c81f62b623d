package disasm

import (
	"strings"

	"golang.org/x/arch/riscv64/riscv64asm"
)

type riscvBackend struct{}

func riscvLen(code []byte) int {
	if len(code) >= 2 && code[0]&3 != 3 {
		return 2
	}
	return 4
}

func (riscvBackend) facts(inst *riscv64asm.Inst, addr uint64) Flow {
	f := Flow{Len: inst.Len, Kind: Plain, FallThrough: true}
	switch inst.Op {
	case riscv64asm.JAL:
		rd, _ := inst.Args[0].(riscv64asm.Reg)
		if s, ok := inst.Args[1].(riscv64asm.Simm); ok {
			f.HasTarget, f.Target = true, addr+uint64(int64(s.Imm))
		}
		if rd == riscv64asm.X0 {
			f.Kind, f.FallThrough = Jump, false
		} else {
			f.Kind = Call
		}
	case riscv64asm.JALR:
		rd, _ := inst.Args[0].(riscv64asm.Reg)
		ro, _ := inst.Args[1].(riscv64asm.RegOffset)
		switch {
		case rd == riscv64asm.X0 && ro.OfsReg == riscv64asm.X1 && ro.Ofs.Imm == 0:
			f.Kind, f.FallThrough = Return, false
		case rd == riscv64asm.X0:
			f.Kind, f.FallThrough = IndirectJump, false
		default:
			f.Kind = IndirectCall
		}
	case riscv64asm.BEQ, riscv64asm.BNE, riscv64asm.BLT, riscv64asm.BGE, riscv64asm.BLTU, riscv64asm.BGEU:
		f.Kind = CondJump
		if s, ok := inst.Args[2].(riscv64asm.Simm); ok {
			f.HasTarget, f.Target = true, addr+uint64(int64(s.Imm))
		}
	case riscv64asm.ADDI:
		rd, _ := inst.Args[0].(riscv64asm.Reg)
		rs, _ := inst.Args[1].(riscv64asm.Reg)
		imm, _ := inst.Args[2].(riscv64asm.Simm)
		f.Nop = rd == riscv64asm.X0 && rs == riscv64asm.X0 && imm.Imm == 0
	case riscv64asm.EBREAK, riscv64asm.C_EBREAK:
		f.Kind, f.FallThrough = Trap, false
	}
	return f
}

func (b riscvBackend) flow(code []byte, addr uint64) Flow {
	inst, err := riscv64asm.Decode(code)
	if err != nil || inst.Len <= 0 {
		return Flow{Len: min(riscvLen(code), len(code)), Kind: Invalid}
	}
	return b.facts(&inst, addr)
}

func (b riscvBackend) decode(code []byte, addr uint64, syn Syntax, sym Symbolizer) (string, string, Flow) {
	inst, err := riscv64asm.Decode(code)
	if err != nil || inst.Len <= 0 {
		return "(bad)", "", Flow{Len: min(riscvLen(code), len(code)), Kind: Invalid}
	}
	f := b.facts(&inst, addr)
	var text string
	if syn == Go {
		text = riscv64asm.GoSyntax(inst, addr, goLookup(sym), nil)
	} else {
		text = riscv64asm.GNUSyntax(inst)
		if f.HasTarget {
			// x/arch prints the offset; show the target as objdump does.
			if i := strings.LastIndexByte(text, ','); i >= 0 {
				text = text[:i+1] + targetText(f.Target, sym)
			} else if j := strings.IndexByte(text, ' '); j >= 0 {
				text = text[:j+1] + targetText(f.Target, sym)
			}
		}
	}
	mn, ops := splitFirst(text)
	return mn, ops, f
}
