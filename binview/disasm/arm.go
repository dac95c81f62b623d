package disasm

import (
	"strings"

	"golang.org/x/arch/arm/armasm"
)

// armBackend decodes the A32 encoding only; x/arch has no Thumb decoder.
type armBackend struct{}

func (armBackend) facts(inst *armasm.Inst, addr uint64) Flow {
	f := Flow{Len: 4, Kind: Plain, FallThrough: true}
	name := inst.Op.String()
	base, cond, _ := strings.Cut(name, ".")
	conditional := cond != "" && cond != "AL"
	pcrel := func() {
		for _, a := range inst.Args {
			if r, ok := a.(armasm.PCRel); ok {
				f.HasTarget, f.Target = true, uint64(uint32(addr)+8+uint32(r))
			}
		}
	}
	set := func(k Kind, falls bool) {
		f.Kind, f.FallThrough = k, falls || conditional
	}
	switch base {
	case "B":
		pcrel()
		if conditional {
			f.Kind = CondJump
		} else {
			set(Jump, false)
		}
	case "BL":
		set(Call, true)
		pcrel()
	case "BLX":
		set(IndirectCall, true)
		if _, ok := inst.Args[0].(armasm.PCRel); ok {
			set(Call, true)
			pcrel()
		}
	case "BX":
		if r, ok := inst.Args[0].(armasm.Reg); ok && r == armasm.LR {
			set(Return, false)
		} else {
			set(IndirectJump, false)
		}
	case "POP", "LDM", "LDMIA", "LDMFD":
		for _, a := range inst.Args {
			if l, ok := a.(armasm.RegList); ok && l&(1<<15) != 0 {
				set(Return, false)
			}
		}
	case "LDR":
		if r, ok := inst.Args[0].(armasm.Reg); ok && r == armasm.PC {
			set(IndirectJump, false)
		}
	case "MOV":
		if r, ok := inst.Args[0].(armasm.Reg); ok && r == armasm.PC {
			if s, ok := inst.Args[1].(armasm.Reg); ok && s == armasm.LR {
				set(Return, false)
			} else {
				set(IndirectJump, false)
			}
		}
	case "BKPT", "UDF":
		set(Trap, false)
	}
	for _, a := range inst.Args {
		if m, ok := a.(armasm.Mem); ok && m.Base == armasm.PC && m.Mode == armasm.AddrOffset && m.Index == 0 {
			off := int32(m.Offset)
			if m.Sign < 0 {
				off = -off
			}
			f.HasRef, f.Ref = true, uint64(uint32(addr)+8+uint32(off))
			if r, ok := inst.Args[0].(armasm.Reg); ok && base == "LDR" && r != armasm.PC {
				f.Literal = true
			}
		}
	}
	return f
}

func (b armBackend) flow(code []byte, addr uint64) Flow {
	if len(code) < 4 {
		return Flow{Len: len(code), Kind: Invalid}
	}
	inst, err := armasm.Decode(code, armasm.ModeARM)
	if err != nil {
		return Flow{Len: 4, Kind: Invalid}
	}
	return b.facts(&inst, addr)
}

func (b armBackend) decode(code []byte, addr uint64, syn Syntax, sym Symbolizer) (string, string, Flow) {
	if len(code) < 4 {
		return "(bad)", "", Flow{Len: len(code), Kind: Invalid}
	}
	inst, err := armasm.Decode(code, armasm.ModeARM)
	if err != nil {
		return "(bad)", "", Flow{Len: 4, Kind: Invalid}
	}
	f := b.facts(&inst, addr)
	var text string
	if syn == Go {
		text = armasm.GoSyntax(inst, addr, goLookup(sym), nil)
	} else {
		text = armasm.GNUSyntax(inst)
		for _, a := range inst.Args {
			if r, ok := a.(armasm.PCRel); ok {
				text = strings.Replace(text, strings.ToLower(r.String()), targetText(uint64(uint32(addr)+8+uint32(r)), sym), 1)
			}
		}
	}
	mn, ops := splitFirst(text)
	return mn, ops, f
}
