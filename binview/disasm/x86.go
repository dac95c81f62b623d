package disasm

import (
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

type x86Backend struct{ mode int }

// endbr reports ENDBR64 (f3 0f 1e fa) or ENDBR32 (f3 0f 1e fb), which
// x/arch decodes as a lone rep prefix.
func endbr(code []byte) (string, bool) {
	if len(code) < 4 || code[0] != 0xf3 || code[1] != 0x0f || code[2] != 0x1e {
		return "", false
	}
	switch code[3] {
	case 0xfa:
		return "endbr64", true
	case 0xfb:
		return "endbr32", true
	}
	return "", false
}

func (b x86Backend) mask(v uint64) uint64 {
	switch b.mode {
	case 16:
		return v & 0xffff
	case 32:
		return v & 0xffffffff
	}
	return v
}

func (b x86Backend) flow(code []byte, addr uint64) Flow {
	if _, ok := endbr(code); ok {
		return Flow{Len: 4, Kind: Plain, FallThrough: true, EndBr: true}
	}
	if _, _, n, ok := b.shadowStack(code); ok {
		return Flow{Len: n, Kind: Plain, FallThrough: true}
	}
	if f, ok := b.fastFlow(code, addr); ok {
		return f
	}
	return b.slowFlow(code, addr)
}

// slowFlow is flow through a full x/arch decode.
func (b x86Backend) slowFlow(code []byte, addr uint64) Flow {
	inst, ok := b.decodeInst(code)
	if !ok {
		return Flow{Len: 1, Kind: Invalid}
	}
	return b.facts(&inst, addr)
}

// decodeInst wraps x86asm.Decode with fixes for its known slips.
func (b x86Backend) decodeInst(code []byte) (x86asm.Inst, bool) {
	// VZEROUPPER and VZEROALL have no ModRM byte, but x/arch reads one
	// (and reports truncation at the end of the input).
	if len(code) >= 3 && (code[0] == 0xc5 || code[0] == 0xc4) && (b.mode == 64 || code[1]&0xc0 == 0xc0) {
		n := 3
		if code[0] == 0xc4 {
			n = 4
		}
		if len(code) >= n && code[n-1] == 0x77 && (code[0] == 0xc5 || code[1]&0x1f == 1) {
			op := x86asm.VZEROUPPER
			if code[n-2]&0x04 != 0 {
				op = x86asm.VZEROALL
			}
			return x86asm.Inst{Op: op, Len: n, Mode: b.mode, DataSize: b.mode, AddrSize: b.mode}, true
		}
	}
	inst, err := x86asm.Decode(code, b.mode)
	if err != nil || inst.Len <= 0 || inst.Len > len(code) || inst.Op == 0 {
		return inst, false
	}
	return inst, true
}

// shadowStack decodes the CET shadow-stack register forms x/arch lacks:
// rdsspd/rdsspq (f3 [rex] 0f 1e /1) and incsspd/incsspq (f3 [rex] 0f ae
// /5), both with a register operand. It returns the mnemonic, the
// register and the length.
func (b x86Backend) shadowStack(code []byte) (string, string, int, bool) {
	if len(code) < 4 || code[0] != 0xf3 {
		return "", "", 0, false
	}
	i, rex := 1, byte(0)
	if b.mode == 64 && code[1]&0xf0 == 0x40 {
		rex, i = code[1], 2
	}
	if len(code) < i+3 || code[i] != 0x0f {
		return "", "", 0, false
	}
	modrm := code[i+2]
	if modrm>>6 != 3 {
		return "", "", 0, false
	}
	var name string
	switch {
	case code[i+1] == 0x1e && (modrm>>3)&7 == 1:
		name = "rdssp"
	case code[i+1] == 0xae && (modrm>>3)&7 == 5:
		name = "incssp"
	default:
		return "", "", 0, false
	}
	reg := int(modrm&7) | int(rex&1)<<3
	if rex&8 != 0 {
		return name + "q", gpr64[reg], i + 3, true
	}
	return name + "d", gpr32[reg], i + 3, true
}

var (
	gpr64 = [16]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}
	gpr32 = [16]string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"}
)

func (b x86Backend) facts(inst *x86asm.Inst, addr uint64) Flow {
	f := Flow{Len: inst.Len, Kind: Plain, FallThrough: true}
	next := addr + uint64(inst.Len)
	rel, hasRel := inst.Args[0].(x86asm.Rel)
	switch inst.Op {
	case x86asm.CALL:
		f.Kind = IndirectCall
		if hasRel {
			f.Kind, f.HasTarget, f.Target = Call, true, b.mask(next+uint64(int64(rel)))
		}
	case x86asm.LCALL:
		f.Kind = IndirectCall
	case x86asm.JMP:
		f.Kind, f.FallThrough = IndirectJump, false
		if hasRel {
			f.Kind, f.HasTarget, f.Target = Jump, true, b.mask(next+uint64(int64(rel)))
		}
	case x86asm.LJMP:
		f.Kind, f.FallThrough = IndirectJump, false
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO,
		x86asm.JP, x86asm.JS, x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ,
		x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		f.Kind = CondJump
		if hasRel {
			f.HasTarget, f.Target = true, b.mask(next+uint64(int64(rel)))
		}
	case x86asm.RET, x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ,
		x86asm.SYSRET, x86asm.SYSEXIT:
		f.Kind, f.FallThrough = Return, false
	case x86asm.HLT, x86asm.UD0, x86asm.UD1, x86asm.UD2:
		f.Kind, f.FallThrough = Trap, false
	case x86asm.NOP:
		f.Nop = true
	case x86asm.XCHG:
		if r0, ok := inst.Args[0].(x86asm.Reg); ok && (r0 == x86asm.AX || r0 == x86asm.EAX) && inst.Args[1] == inst.Args[0] {
			f.Nop = true
		}
	case x86asm.INT:
		if imm, ok := inst.Args[0].(x86asm.Imm); ok && imm == 3 && inst.Len == 1 {
			f.Kind, f.FallThrough = Trap, false
		}
	}
	for _, a := range inst.Args {
		switch a := a.(type) {
		case nil:
			return f
		case x86asm.Mem:
			switch {
			case a.Base == x86asm.RIP || a.Base == x86asm.EIP:
				f.HasRef, f.Ref = true, b.mask(next+uint64(a.Disp))
			case a.Base == 0 && a.Index == 0 && a.Segment != x86asm.FS && a.Segment != x86asm.GS && a.Disp > 0xfff:
				f.HasRef, f.Ref = true, b.mask(uint64(a.Disp))
			case a.Base == 0 && a.Index != 0 && int(a.Scale) == b.mode/8 && f.Kind == IndirectJump && a.Disp > 0xfff:
				f.HasTable, f.Table = true, b.mask(uint64(a.Disp))
			}
		case x86asm.Imm:
			if !f.HasTarget {
				f.HasImm, f.Imm = true, b.mask(uint64(a))
			}
		}
	}
	return f
}

// objdumpNames maps x/arch's Intel condition-code spellings to the ones
// objdump and most manuals print.
var objdumpNames = map[string]string{
	"jnb": "jae", "jnbe": "ja", "jnl": "jge", "jnz": "jne", "jnle": "jg", "jz": "je",
	"setnb": "setae", "setnbe": "seta", "setnl": "setge", "setnz": "setne", "setnle": "setg", "setz": "sete",
	"cmovnb": "cmovae", "cmovnbe": "cmova", "cmovnl": "cmovge", "cmovnz": "cmovne", "cmovnle": "cmovg", "cmovz": "cmove",
}

var x86Prefixes = map[string]bool{
	"rep": true, "repe": true, "repz": true, "repne": true, "repnz": true, "lock": true,
	"bnd": true, "notrack": true, "data16": true, "data32": true, "addr16": true, "addr32": true,
	"xacquire": true, "xrelease": true, "cs": true, "ds": true, "es": true, "fs": true, "gs": true,
	"ss": true, "pt": true, "pn": true, "o16": true, "o32": true, "a16": true, "a32": true,
}

func (b x86Backend) decode(code []byte, addr uint64, syn Syntax, sym Symbolizer) (string, string, Flow) {
	if name, ok := endbr(code); ok {
		if syn == Go {
			name = strings.ToUpper(name)
		}
		return name, "", Flow{Len: 4, Kind: Plain, FallThrough: true, EndBr: true}
	}
	if name, reg, n, ok := b.shadowStack(code); ok {
		if syn == Go {
			return strings.ToUpper(name), strings.ToUpper(reg), Flow{Len: n, Kind: Plain, FallThrough: true}
		}
		if syn == GNU {
			reg = "%" + reg
		}
		return name, reg, Flow{Len: n, Kind: Plain, FallThrough: true}
	}
	inst, ok := b.decodeInst(code)
	if !ok {
		return "(bad)", "", Flow{Len: 1, Kind: Invalid}
	}
	f := b.facts(&inst, addr)
	// Only the direct target is printed as a name; data references are
	// named in a comment so the operand keeps its real form.
	lookup := func(a uint64) (string, uint64) {
		if sym == nil || !f.HasTarget || a != f.Target {
			return "", 0
		}
		if name, base, ok := sym(a); ok && base == a {
			return name, base
		}
		return "", 0
	}
	var text string
	switch syn {
	case GNU:
		text = x86asm.GNUSyntax(inst, addr, lookup)
	case Go:
		text = x86asm.GoSyntax(inst, addr, lookup)
	default:
		text = x86asm.IntelSyntax(inst, addr, lookup)
	}
	mn, ops := splitX86(text)
	if syn == Intel {
		mn, ops = b.objdumpStyle(&inst, mn, ops)
	}
	return mn, ops, f
}

// objdumpStyle brings x/arch's Intel text closer to what objdump -M intel
// and the manuals print: jae rather than jnb, movabs, notrack, index*scale
// and no bare "ptr" on lea.
func (b x86Backend) objdumpStyle(inst *x86asm.Inst, mn, ops string) (string, string) {
	last, pre := mn, ""
	if i := strings.LastIndexByte(mn, ' '); i >= 0 {
		pre, last = mn[:i+1], mn[i+1:]
	}
	if r, ok := objdumpNames[last]; ok {
		last = r
	}
	switch inst.Op {
	case x86asm.MOV:
		_, toReg := inst.Args[0].(x86asm.Reg)
		if b.mode == 64 && (inst.Len >= 10 && toReg && isImm(inst.Args[1]) ||
			inst.Opcode>>24 >= 0xa0 && inst.Opcode>>24 <= 0xa3) {
			last = "movabs"
		}
	case x86asm.PREFETCHT0, x86asm.PREFETCHT1, x86asm.PREFETCHT2, x86asm.PREFETCHNTA, x86asm.PREFETCHW:
		if i := strings.Index(ops, " ptr ["); i >= 0 {
			ops = "byte" + ops[i:]
		}
	case x86asm.NOP:
		// x/arch shows the multi-byte NOP's meaningless register field;
		// objdump and the manuals show the memory operand only.
		ops = strings.TrimSuffix(strings.TrimSuffix(ops, ", eax"), ", ax")
	case x86asm.JMP, x86asm.CALL:
		if _, rel := inst.Args[0].(x86asm.Rel); !rel && hasPrefix(inst, x86asm.PrefixDS) && !strings.Contains(pre, "notrack") {
			pre += "notrack "
		}
	case x86asm.CMPSD_XMM, x86asm.CMPSS, x86asm.CMPPD, x86asm.CMPPS:
		// The assembler's spelling: the predicate in the mnemonic
		// (cmpltsd xmm0, xmm1), as objdump and the manuals print it.
		suffix := strings.TrimSuffix(strings.TrimPrefix(last, "cmp"), "_xmm")
		if imm, ok := inst.Args[2].(x86asm.Imm); ok && imm < 8 {
			if i := strings.LastIndex(ops, ", "); i >= 0 {
				last, ops = "cmp"+cmpPredicates[imm]+suffix, ops[:i]
			}
		} else {
			last = "cmp" + suffix
		}
	}
	ops = strings.TrimPrefix(ops, "ptr ")
	ops = strings.ReplaceAll(ops, ", ptr [", ", [")
	for _, a := range inst.Args {
		m, ok := a.(x86asm.Mem)
		if !ok || m.Index == 0 {
			continue
		}
		idx := strings.ToLower(m.Index.String())
		lead := "+"
		if m.Base == 0 {
			lead = "["
		}
		from := lead + idx
		if m.Scale > 1 {
			from = lead + string(rune('0'+m.Scale)) + "*" + idx
		}
		to := lead + idx + "*" + string(rune('0'+max(m.Scale, 1)))
		if i := strings.Index(ops, "["); i >= 0 {
			if j := strings.Index(ops[i:], from); j >= 0 {
				k := i + j
				ops = ops[:k] + to + ops[k+len(from):]
			}
		}
		break
	}
	return pre + last, ops
}

// cmpPredicates are the SSE compare predicates of an immediate 0 to 7.
var cmpPredicates = [8]string{"eq", "lt", "le", "unord", "neq", "nlt", "nle", "ord"}

func isImm(a x86asm.Arg) bool {
	_, ok := a.(x86asm.Imm)
	return ok
}

func hasPrefix(inst *x86asm.Inst, p x86asm.Prefix) bool {
	for _, q := range inst.Prefix {
		if q == 0 {
			return false
		}
		if q&0xff == p {
			return true
		}
	}
	return false
}

// splitX86 splits formatted x86 text into the mnemonic (with its
// prefixes) and the operands.
func splitX86(text string) (string, string) {
	text = strings.TrimSpace(text)
	end := 0
	for {
		i := strings.IndexByte(text[end:], ' ')
		if i < 0 {
			return text, ""
		}
		word := strings.TrimSuffix(strings.ToLower(text[end:end+i]), ";")
		if !x86Prefixes[word] && !strings.HasPrefix(word, "rex") {
			mn := text[:end+i]
			return mn, strings.TrimSpace(text[end+i+1:])
		}
		end += i + 1
	}
}
