package disasm

// A length and control-flow decoder for the common x86 instructions,
// several times faster than a full decode: analysis loops need only the
// length, the kind, direct targets and referenced addresses. Anything it
// does not know for certain (VEX and EVEX encodings, x87 escapes with
// odd forms, 16-bit addressing, far branches, system instructions)
// returns ok == false and goes to x/arch. TestFastFlowMatchesXArch holds
// it to x/arch instruction by instruction on real binaries, and
// FuzzFastFlow on random bytes.

// Immediate kinds.
const (
	immNone uint8 = iota
	imm8
	imm16
	immZ // 16 or 32 bits by operand size
	immV // 16, 32 or 64 bits by operand size (mov r, imm)
	immSpecial
)

// Flags of a one-byte opcode.
const (
	opOK    uint8 = 1 << iota // the fast path knows it
	opModRM                   // a ModRM byte follows
)

type opInfo struct {
	flags uint8
	imm   uint8
}

var oneByte, twoByte [256]opInfo

// Two-byte opcodes that stay valid under a mandatory F3 or F2 prefix
// (scalar SSE, movdqu, tzcnt/lzcnt).
var f3Ops, f2Ops [256]bool

// Two-byte opcodes known to take REX.W (64-bit operands).
var wOps [256]bool

func init() {
	for op := 0x40; op <= 0x4f; op++ {
		wOps[op] = true
	}
	for op := 0xc8; op <= 0xcf; op++ {
		wOps[op] = true
	}
	for _, op := range []byte{0x2a, 0x2c, 0x2d, 0x6e, 0x7e, 0xa3, 0xab, 0xaf, 0xb0, 0xb1, 0xb3, 0xb6, 0xb7, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf, 0xc0, 0xc1} {
		wOps[op] = true
	}
}

func init() {
	for _, op := range []byte{0x10, 0x11, 0x2a, 0x2c, 0x2d, 0x51, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x6f, 0x70, 0x7e, 0x7f, 0xbc, 0xbd} {
		f3Ops[op] = true
	}
	for _, op := range []byte{0x10, 0x11, 0x2a, 0x2c, 0x2d, 0x51, 0x58, 0x59, 0x5a, 0x5c, 0x5d, 0x5e, 0x5f, 0x70} {
		f2Ops[op] = true
	}
}

func init() {
	set := func(t *[256]opInfo, lo, hi int, flags, imm uint8) {
		for i := lo; i <= hi; i++ {
			t[i] = opInfo{flags | opOK, imm}
		}
	}
	// ALU blocks: op r/m,r; op r,r/m; op al,imm8; op eax,immZ.
	for base := 0x00; base <= 0x38; base += 8 {
		set(&oneByte, base, base+3, opModRM, immNone)
		set(&oneByte, base+4, base+4, 0, imm8)
		set(&oneByte, base+5, base+5, 0, immZ)
	}
	set(&oneByte, 0x50, 0x5f, 0, immNone) // push/pop
	set(&oneByte, 0x63, 0x63, opModRM, immNone)
	set(&oneByte, 0x68, 0x68, 0, immZ)
	set(&oneByte, 0x69, 0x69, opModRM, immZ)
	set(&oneByte, 0x6a, 0x6a, 0, imm8)
	set(&oneByte, 0x6b, 0x6b, opModRM, imm8)
	set(&oneByte, 0x70, 0x7f, 0, imm8) // jcc rel8
	set(&oneByte, 0x80, 0x80, opModRM, imm8)
	set(&oneByte, 0x81, 0x81, opModRM, immZ)
	set(&oneByte, 0x83, 0x83, opModRM, imm8)
	set(&oneByte, 0x84, 0x8b, opModRM, immNone)
	set(&oneByte, 0x8d, 0x8d, opModRM, immNone)
	set(&oneByte, 0x90, 0x99, 0, immNone)
	set(&oneByte, 0x9c, 0x9d, 0, immNone)
	set(&oneByte, 0xa8, 0xa8, 0, imm8)
	set(&oneByte, 0xa9, 0xa9, 0, immZ)
	set(&oneByte, 0xb0, 0xb7, 0, imm8)
	set(&oneByte, 0xb8, 0xbf, 0, immV)
	set(&oneByte, 0xc0, 0xc1, opModRM, imm8)
	set(&oneByte, 0xc2, 0xc2, 0, imm16) // ret imm16
	set(&oneByte, 0xc3, 0xc3, 0, immNone)
	set(&oneByte, 0xc6, 0xc6, opModRM, imm8)
	set(&oneByte, 0xc7, 0xc7, opModRM, immZ)
	set(&oneByte, 0xc9, 0xc9, 0, immNone)
	set(&oneByte, 0xcc, 0xcc, 0, immNone)
	set(&oneByte, 0xd0, 0xd3, opModRM, immNone)
	set(&oneByte, 0xe8, 0xe9, 0, immZ) // call/jmp rel32
	set(&oneByte, 0xeb, 0xeb, 0, imm8)
	set(&oneByte, 0xf4, 0xf4, 0, immNone)
	set(&oneByte, 0xf6, 0xf7, opModRM, immSpecial) // test has an immediate
	set(&oneByte, 0xfe, 0xfe, opModRM, immNone)
	set(&oneByte, 0xff, 0xff, opModRM, immNone)

	set(&twoByte, 0x05, 0x05, 0, immNone) // syscall
	set(&twoByte, 0x0b, 0x0b, 0, immNone) // ud2
	set(&twoByte, 0x10, 0x17, opModRM, immNone)
	set(&twoByte, 0x1f, 0x1f, opModRM, immNone) // nop r/m
	set(&twoByte, 0x28, 0x2f, opModRM, immNone)
	set(&twoByte, 0x40, 0x4f, opModRM, immNone) // cmovcc
	set(&twoByte, 0x51, 0x6f, opModRM, immNone)
	set(&twoByte, 0x70, 0x70, opModRM, imm8)
	set(&twoByte, 0x74, 0x76, opModRM, immNone)
	set(&twoByte, 0x7e, 0x7f, opModRM, immNone)
	set(&twoByte, 0x80, 0x8f, 0, immZ) // jcc rel32
	set(&twoByte, 0x90, 0x9f, opModRM, immNone)
	set(&twoByte, 0xa2, 0xa2, 0, immNone)
	set(&twoByte, 0xa3, 0xa3, opModRM, immNone)
	set(&twoByte, 0xab, 0xab, opModRM, immNone)
	set(&twoByte, 0xaf, 0xaf, opModRM, immNone)
	set(&twoByte, 0xb0, 0xb1, opModRM, immNone)
	set(&twoByte, 0xb3, 0xb3, opModRM, immNone)
	set(&twoByte, 0xb6, 0xb7, opModRM, immNone)
	set(&twoByte, 0xbb, 0xbf, opModRM, immNone)
	set(&twoByte, 0xc0, 0xc1, opModRM, immNone)
	set(&twoByte, 0xc8, 0xcf, 0, immNone) // bswap
	set(&twoByte, 0xd4, 0xd4, opModRM, immNone)
	set(&twoByte, 0xd6, 0xd6, opModRM, immNone)
	set(&twoByte, 0xdb, 0xdb, opModRM, immNone)
	set(&twoByte, 0xeb, 0xeb, opModRM, immNone)
	set(&twoByte, 0xef, 0xef, opModRM, immNone)
	set(&twoByte, 0xfa, 0xfe, opModRM, immNone)
}

// fastFlow decodes code[0:] in 64-bit mode (other modes go to x/arch). ok is false when the
// instruction is not one it knows.
//
// It reads the instruction in the order the encoding lays it out (prefixes,
// opcode, ModRM with SIB and displacement, immediate), then says what it
// does to the flow of control and which address it refers to. It stays one
// function on purpose: it is the innermost loop of every function stage, and
// the same steps as methods over a decoder struct decoded 15 % slower
// (BenchmarkFastFlow, the Go compiler's first 4 MiB of .text), because the
// state then lives in memory instead of registers.
func (b x86Backend) fastFlow(code []byte, addr uint64) (f Flow, ok bool) {
	if b.mode != 64 {
		return f, false
	}
	n := len(code)
	if n > 15 {
		n = 15
	}
	i := 0
	var opsize16, has66, rep, repne bool
	var seg byte
prefixes:
	for ; i < n; i++ {
		switch code[i] {
		case 0x66:
			opsize16, has66 = true, true
		case 0xf3:
			rep = true
		case 0xf2:
			repne = true
		case 0x2e, 0x3e, 0x26, 0x36:
			// Segment overrides (branch hints, notrack) change nothing here.
		case 0x64, 0x65:
			seg = code[i]
		case 0xf0:
			return f, false // lock: rare in hot code, let x/arch check the form
		case 0x67:
			return f, false
		default:
			break prefixes
		}
	}
	var rex byte
	if b.mode == 64 && i < n && code[i]&0xf0 == 0x40 {
		rex = code[i]
		i++
		if rex&8 != 0 {
			opsize16 = false // REX.W wins over 66
		}
	}
	if i >= n {
		return f, false
	}
	op := code[i]
	i++
	info := oneByte[op]
	two := false
	if op == 0x0f {
		if i >= n {
			return f, false
		}
		op = code[i]
		i++
		info = twoByte[op]
		two = true
	}
	if info.flags&opOK == 0 {
		return f, false
	}
	// Mandatory prefixes turn some two-byte opcodes into other
	// instructions; keep to the forms without them where it matters.
	if two && rex&8 != 0 && !wOps[op] {
		return f, false
	}
	if two && rep && !f3Ops[op] || two && repne && !f2Ops[op] {
		return f, false
	}
	if !two && (rep || repne) && op != 0xe8 && op != 0xe9 && op != 0xc3 && op != 0xc2 && op != 0xff && op != 0x90 {
		if op < 0x70 || op > 0x7f {
			return f, false
		}
	}
	if two && !has66 && (op == 0x6c || op == 0x6d || op == 0xd6) {
		return f, false // valid only with the 66 prefix
	}
	if rep && !two && op == 0x90 {
		return f, false // pause
	}
	f = Flow{Kind: Plain, FallThrough: true}
	var reg byte
	regForm := false
	hasMem, rip, abs, table := false, false, false, false
	var disp int64
	if info.flags&opModRM != 0 {
		if i >= n {
			return f, false
		}
		modrm := code[i]
		i++
		mod, rm := modrm>>6, modrm&7
		reg = (modrm >> 3) & 7
		regForm = mod == 3
		if mod != 3 {
			hasMem = true
			base, index := rm, byte(4)
			if rm == 4 {
				if i >= n {
					return f, false
				}
				sib := code[i]
				i++
				base, index = sib&7, (sib>>3)&7
				if rex&2 != 0 {
					index = 8 // an extended index register: present
				}
				if base == 5 && mod == 0 {
					if index == 4 {
						abs = true
					} else if int(sib>>6) == map64to3(b.mode) {
						table = true
					}
				}
			}
			switch {
			case mod == 0 && rm == 5:
				if b.mode == 64 {
					rip = true
				} else {
					abs = true
				}
				fallthrough
			case mod == 2, mod == 0 && base == 5:
				if i+4 > n {
					return f, false
				}
				disp = int64(int32(uint32(code[i]) | uint32(code[i+1])<<8 | uint32(code[i+2])<<16 | uint32(code[i+3])<<24))
				i += 4
			case mod == 1:
				if i >= n {
					return f, false
				}
				disp = int64(int8(code[i]))
				i++
			}
		}
		_ = reg
	}
	// Immediates.
	immSize := 0
	switch info.imm {
	case imm8:
		immSize = 1
	case imm16:
		immSize = 2
	case immZ:
		immSize = 4
		if opsize16 {
			immSize = 2
		}
	case immV:
		immSize = 4
		if rex&8 != 0 {
			immSize = 8
		} else if opsize16 {
			immSize = 2
		}
	case immSpecial: // f6/f7: test r/m, imm for /0 and /1
		if reg <= 1 {
			immSize = 1
			if op == 0xf7 {
				immSize = 4
				if opsize16 {
					immSize = 2
				}
			}
		}
	}
	if i+immSize > n {
		return f, false
	}
	var imm int64
	switch immSize {
	case 1:
		imm = int64(int8(code[i]))
	case 2:
		imm = int64(int16(uint16(code[i]) | uint16(code[i+1])<<8))
	case 4:
		imm = int64(int32(uint32(code[i]) | uint32(code[i+1])<<8 | uint32(code[i+2])<<16 | uint32(code[i+3])<<24))
	case 8:
		var v uint64
		for k := 0; k < 8; k++ {
			v |= uint64(code[i+k]) << (8 * k)
		}
		imm = int64(v)
	}
	i += immSize
	f.Len = i
	next := addr + uint64(i)
	if immSize > 0 {
		f.HasImm, f.Imm = true, b.mask(uint64(imm))
	}
	branch := func(k Kind) {
		f.Kind, f.HasTarget, f.Target, f.HasImm, f.Imm = k, true, b.mask(next+uint64(imm)), false, 0
	}
	switch {
	case !two && op == 0xe8:
		if opsize16 {
			return f, false
		}
		branch(Call)
	case !two && (op == 0xe9 || op == 0xeb):
		if opsize16 {
			return f, false
		}
		branch(Jump)
		f.FallThrough = false
	case !two && op >= 0x70 && op <= 0x7f, two && op >= 0x80 && op <= 0x8f:
		if opsize16 {
			return f, false
		}
		branch(CondJump)
	case !two && (op == 0xc3 || op == 0xc2):
		f.Kind, f.FallThrough = Return, false
	case !two && op == 0xcc:
		if i != 1 {
			return f, false
		}
		f.Kind, f.FallThrough, f.HasImm, f.Imm = Trap, false, true, 3
	case !two && op == 0xf4, two && op == 0x0b:
		f.Kind, f.FallThrough = Trap, false
	case !two && (op == 0xd0 || op == 0xd1):
		if reg == 6 {
			return f, false // the undocumented shift form
		}
		f.HasImm, f.Imm = true, 1 // the implicit shift count
	case !two && op == 0xff:
		switch reg {
		case 2:
			f.Kind = IndirectCall
		case 4:
			f.Kind, f.FallThrough = IndirectJump, false
		case 0, 1, 6:
		default:
			return f, false
		}
	case !two && (op == 0xd2 || op == 0xd3 || op == 0xc0 || op == 0xc1):
		if reg == 6 {
			return f, false
		}
	case !two && (op == 0xf6 || op == 0xf7):
		if reg == 1 {
			return f, false // the undocumented test alias
		}
	case !two && op == 0xfe:
		if reg > 1 {
			return f, false
		}
	case !two && op == 0x8f:
		if reg != 0 {
			return f, false
		}
	case !two && op == 0x90:
		if rex&1 == 0 {
			f.Nop = true
		}
	case two && op == 0x1f:
		f.Nop = reg == 0
		if reg != 0 {
			return f, false
		}
	case !two && (op == 0xc6 || op == 0xc7):
		if reg != 0 {
			return f, false // xabort, xbegin
		}
	case !two && (op == 0x86 || op == 0x87):
		return f, false // xchg: x/arch's facts call some forms a nop
	case !two && op == 0x63:
		if b.mode != 64 {
			return f, false // arpl
		}
	}
	if regForm && (!two && (op == 0x8d || op == 0xc4 || op == 0xc5) || two && (op == 0x13 || op == 0x17 || op == 0x2b)) {
		return f, false // memory-only forms
	}
	if hasMem {
		switch {
		case rip:
			f.HasRef, f.Ref = true, b.mask(next+uint64(disp))
		case abs && seg == 0 && disp > 0xfff:
			f.HasRef, f.Ref = true, b.mask(uint64(disp))
		case table && f.Kind == IndirectJump && disp > 0xfff:
			f.HasTable, f.Table = true, b.mask(uint64(disp))
		}
	}
	return f, true
}

// map64to3 is the SIB scale field of a pointer-sized table index.
func map64to3(mode int) int {
	if mode == 64 {
		return 3
	}
	return 2
}
