package disasm

import (
	"strings"

	"golang.org/x/arch/s390x/s390xasm"
)

type s390xBackend struct{}

func s390xLen(code []byte) int {
	switch code[0] >> 6 {
	case 0:
		return 2
	case 1, 2:
		return 4
	}
	return 6
}

func (s390xBackend) facts(inst *s390xasm.Inst, addr uint64) Flow {
	f := Flow{Len: inst.Len, Kind: Plain, FallThrough: true}
	var mask = -1
	for _, a := range inst.Args {
		switch a := a.(type) {
		case s390xasm.Mask:
			if mask < 0 {
				mask = int(a)
			}
		case s390xasm.RegIm12:
			v := int64(int16(uint16(a)<<4) >> 4)
			f.HasTarget, f.Target = true, addr+uint64(2*v)
		case s390xasm.RegIm16:
			f.HasTarget, f.Target = true, addr+uint64(2*int64(int16(a)))
		case s390xasm.RegIm24:
			v := int64(int32(uint32(a)<<8) >> 8)
			f.HasTarget, f.Target = true, addr+uint64(2*v)
		case s390xasm.RegIm32:
			f.HasTarget, f.Target = true, addr+uint64(2*int64(int32(a)))
		}
	}
	switch inst.Op {
	case s390xasm.BRAS, s390xasm.BRASL:
		f.Kind = Call
	case s390xasm.BASR, s390xasm.BAS:
		f.Kind = IndirectCall
	case s390xasm.BRC, s390xasm.BRCL:
		switch mask {
		case 15:
			f.Kind, f.FallThrough = Jump, false
		case 0:
			f.HasTarget = false
		default:
			f.Kind = CondJump
		}
	case s390xasm.BRCT, s390xasm.BRCTG, s390xasm.BRCTH, s390xasm.BRXH, s390xasm.BRXHG, s390xasm.BRXLE, s390xasm.BRXLG:
		f.Kind = CondJump
	case s390xasm.CRJ, s390xasm.CGRJ, s390xasm.CLRJ, s390xasm.CLGRJ, s390xasm.CIJ, s390xasm.CGIJ, s390xasm.CLIJ, s390xasm.CLGIJ:
		// Compare and branch relative: the mask is the condition.
		switch mask {
		case 14, 15:
			// 14 covers every result of a compare: always taken.
			f.Kind, f.FallThrough = Jump, false
		case 0:
			f.HasTarget = false
		default:
			f.Kind = CondJump
		}
	case s390xasm.BALR, s390xasm.BAL:
		f.Kind = IndirectCall
	case s390xasm.BCTR, s390xasm.BCTGR, s390xasm.BCT, s390xasm.BCTG:
		// Decrement and branch through a register; BCTR with r0 does
		// not branch.
		f.Kind = IndirectJump
	case s390xasm.BCR, s390xasm.BC:
		if mask == 0 {
			break
		}
		f.Kind, f.FallThrough = IndirectJump, mask != 15
		if r, ok := inst.Args[1].(s390xasm.Reg); ok && r == s390xasm.R14 && inst.Op == s390xasm.BCR {
			f.Kind = Return
		}
	default:
		// Relative-long loads and address computations (larl, lgrl) name
		// data, not code.
		if f.HasTarget {
			f.HasTarget, f.HasRef, f.Ref = false, true, f.Target
		}
	}
	if f.Kind == Plain && f.HasTarget {
		f.HasTarget, f.HasRef, f.Ref = false, true, f.Target
	}
	return f
}

func (b s390xBackend) flow(code []byte, addr uint64) Flow {
	inst, err := s390xasm.Decode(code)
	if err != nil || inst.Len <= 0 || inst.Op == 0 {
		return Flow{Len: min(s390xLen(code), len(code)), Kind: Invalid}
	}
	return b.facts(&inst, addr)
}

func (b s390xBackend) decode(code []byte, addr uint64, syn Syntax, sym Symbolizer) (string, string, Flow) {
	inst, err := s390xasm.Decode(code)
	if err != nil || inst.Len <= 0 || inst.Op == 0 {
		return "(bad)", "", Flow{Len: min(s390xLen(code), len(code)), Kind: Invalid}
	}
	f := b.facts(&inst, addr)
	var text string
	if syn == Go {
		text = s390xasm.GoSyntax(inst, addr, goLookup(sym))
	} else {
		text = s390xasm.GNUSyntax(inst, addr)
		if f.HasTarget && sym != nil {
			text = strings.Replace(text, hex(f.Target), targetText(f.Target, sym), 1)
		}
	}
	mn, ops := splitFirst(text)
	return mn, ops, f
}
