package disasm

import (
	"strconv"

	"github.com/warden-mcp/warden/errcode"
)

// Kind is what an instruction does to control flow.
type Kind uint8

// The control-flow kinds.
const (
	Plain        Kind = iota // execution continues at the next instruction
	Call                     // direct call; Target is the callee
	Jump                     // unconditional direct jump; Target is where it goes
	CondJump                 // conditional direct jump; Target is taken, the next instruction is not
	Return                   // return from a function
	IndirectCall             // call through a register or memory
	IndirectJump             // jump through a register or memory (switch tables, tail calls)
	Trap                     // halt, undefined instruction, breakpoint: execution stops here
	Invalid                  // bytes that do not decode
)

var kindNames = [...]string{"plain", "call", "jump", "cond_jump", "return", "indirect_call", "indirect_jump", "trap", "invalid"}

// String returns the snake_case name of the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// IsBranch reports whether the kind transfers control somewhere other than
// the next instruction (calls included).
func (k Kind) IsBranch() bool { return k != Plain && k != Invalid }

// Syntax is an assembly syntax.
type Syntax uint8

// The syntaxes. Intel, GNU (AT&T on x86) and Go apply to x86; the other
// architectures have GNU and Go, and Intel means GNU for them.
const (
	Intel Syntax = iota
	GNU
	Go
)

// ParseSyntax maps "intel", "gnu" (or "att") and "go" (or "plan9") to a
// Syntax; "" is Intel.
func ParseSyntax(s string) (Syntax, error) {
	switch s {
	case "", "intel":
		return Intel, nil
	case "gnu", "att", "at&t":
		return GNU, nil
	case "go", "plan9":
		return Go, nil
	}
	return Intel, errcode.New("invalid_params", "syntax must be intel, gnu or go")
}

// String returns "intel", "gnu" or "go".
func (s Syntax) String() string {
	switch s {
	case GNU:
		return "gnu"
	case Go:
		return "go"
	}
	return "intel"
}

// Symbolizer names an address: the symbol's name and start, and whether
// there is one. Operands that name a mapped address are shown with the
// name (call main.foo) or annotated with it (lea rax, [rip+0x10] ; str+4).
type Symbolizer func(addr uint64) (name string, base uint64, ok bool)

// Flow is the control-flow and reference facts of one instruction, without
// text. It is what analysis loops use.
type Flow struct {
	Len         int    // length in bytes; at least 1
	Kind        Kind   // control-flow kind
	FallThrough bool   // execution may continue at the next instruction
	HasTarget   bool   // Target is valid
	Target      uint64 // direct branch or call target
	HasRef      bool   // Ref is valid
	Ref         uint64 // address of a memory operand (PC-relative or absolute)
	Literal     bool   // Ref is a literal-pool word loaded into a register (A32 ldr rN, [pc, #n]): often an address itself
	HasImm      bool   // Imm is valid
	Imm         uint64 // an immediate operand (it may be an address, or a switch bound)
	HasTable    bool   // Table is valid
	Table       uint64 // an indirect jump's table of absolute pointers (jmp [idx*8+table])
	EndBr       bool   // ENDBR64 or ENDBR32 (an indirect-branch landing pad)
	Nop         bool   // a no-operation, as compilers use for padding
}

// Inst is one decoded instruction.
type Inst struct {
	Addr        uint64
	Len         int
	Bytes       []byte   // the instruction's bytes; aliases the input
	Mnemonic    string   // prefixes included ("rep stosq", "lock cmpxchg")
	Operands    string   // operand text, "" when none
	Text        string   // full text in the chosen syntax, with symbol comments
	Kind        Kind     // control-flow kind
	FallThrough bool     // execution may continue at Addr+Len
	Targets     []uint64 // direct control-flow targets; nil when none
	Refs        []uint64 // data addresses the operands name; nil when none
}

// Options configure a Decoder. The zero value (or nil) means Intel syntax
// and no symbols.
type Options struct {
	// Syntax selects the text syntax. Zero: Intel on x86, GNU elsewhere.
	Syntax Syntax
	// Symbolizer names branch targets and referenced addresses. Nil: none.
	Symbolizer Symbolizer
	// Word reads the 32-bit word at addr in the file's byte order, so that
	// an A32 literal-pool load (ldr r0, [pc, #8]) lists the address it
	// loads among its Refs and names it in its comment ("=main.greeting").
	// Nil: only the pool's slot is a reference.
	Word func(addr uint64) (uint32, bool)
}

// backend is one architecture's decoder.
type backend interface {
	flow(code []byte, addr uint64) Flow
	decode(code []byte, addr uint64, syn Syntax, sym Symbolizer) (mnemonic, operands string, f Flow)
}

// Decoder decodes instructions of one architecture. It is safe for
// concurrent use.
type Decoder struct {
	arch Arch
	opts Options
	be   backend
}

// New returns a Decoder for arch. An architecture that cannot be decoded
// gives unsupported_arch.
func New(arch Arch, opts *Options) (*Decoder, error) {
	d := &Decoder{arch: arch}
	if opts != nil {
		d.opts = *opts
	}
	switch arch {
	case X86_16:
		d.be = x86Backend{mode: 16}
	case X86:
		d.be = x86Backend{mode: 32}
	case X86_64:
		d.be = x86Backend{mode: 64}
	case ARM64:
		d.be = arm64Backend{}
	case ARM:
		d.be = armBackend{}
	case RISCV64:
		d.be = riscvBackend{}
	case PPC64:
		d.be = ppcBackend{big: true}
	case PPC64LE:
		d.be = ppcBackend{}
	case S390X:
		d.be = s390xBackend{}
	case LOONG64:
		d.be = loongBackend{}
	default:
		return nil, errcode.New("unsupported_arch", "this architecture cannot be disassembled")
	}
	return d, nil
}

// Arch returns the decoder's architecture.
func (d *Decoder) Arch() Arch { return d.arch }

// Flow decodes the instruction at the start of code, which sits at addr,
// and returns its control-flow facts without formatting text. Empty code
// gives a zero Flow (Len 0); bytes that do not decode give Kind Invalid
// and Len = Arch.MinLen (or less when code is shorter).
func (d *Decoder) Flow(code []byte, addr uint64) (f Flow) {
	if len(code) == 0 {
		return Flow{}
	}
	defer func() {
		if recover() != nil {
			f = d.bad(code)
		}
	}()
	f = d.be.flow(code, addr)
	if f.Len <= 0 || f.Len > len(code) {
		f = d.bad(code)
	}
	return f
}

func (d *Decoder) bad(code []byte) Flow {
	n := d.arch.MinLen()
	if n > len(code) {
		n = len(code)
	}
	return Flow{Len: n, Kind: Invalid}
}

// Decode decodes the instruction at the start of code, which sits at
// addr, with text in the decoder's syntax. Empty code gives a zero Inst.
func (d *Decoder) Decode(code []byte, addr uint64) (in Inst) {
	return d.decode(code, addr, nil)
}

// A Run decodes the instructions of a listing in address order and adds
// what one instruction cannot know alone: the address a two-instruction
// pair completes (arm64 adrp, riscv64 auipc, loong64 pcalau12i; see
// Pages), as a reference of the instruction that completes it. Other
// architectures decode as Decoder does. Make one per listing;
// a Run is not for concurrent use.
type Run struct {
	d     *Decoder
	pages *Pages
}

// Run starts a run of instructions.
func (d *Decoder) Run() *Run {
	return &Run{d: d, pages: NewPages(d.arch)}
}

// Decode decodes the next instruction of the run, like Decoder.Decode.
func (r *Run) Decode(code []byte, addr uint64) Inst { return r.d.decode(code, addr, r.pages) }

// Flow gives the next instruction's facts, like Decoder.Flow.
func (r *Run) Flow(code []byte, addr uint64) Flow {
	f := r.d.Flow(code, addr)
	r.pages.complete(&f, code, addr)
	return f
}

func (d *Decoder) decode(code []byte, addr uint64, pages *Pages) (in Inst) {
	if len(code) == 0 {
		return Inst{Addr: addr}
	}
	var mn, ops string
	var f Flow
	func() {
		defer func() {
			if recover() != nil {
				f = d.bad(code)
			}
		}()
		mn, ops, f = d.be.decode(code, addr, d.opts.Syntax, d.opts.Symbolizer)
		if f.Len <= 0 || f.Len > len(code) {
			f = d.bad(code)
		}
	}()
	if f.Kind == Invalid {
		mn, ops = "(bad)", ""
	}
	pages.complete(&f, code, addr)
	in = Inst{
		Addr:        addr,
		Len:         f.Len,
		Bytes:       code[:f.Len:f.Len],
		Mnemonic:    mn,
		Operands:    ops,
		Kind:        f.Kind,
		FallThrough: f.FallThrough,
	}
	if f.HasTarget {
		in.Targets = []uint64{f.Target}
	}
	if f.HasRef {
		in.Refs = append(in.Refs, f.Ref)
	}
	loaded, hasLoaded := d.literal(f)
	if hasLoaded {
		in.Refs = append(in.Refs, loaded)
	}
	if f.HasImm && f.Imm > 0xfff && d.opts.Symbolizer != nil {
		if _, _, ok := d.opts.Symbolizer(f.Imm); ok {
			in.Refs = append(in.Refs, f.Imm)
		}
	}
	in.Text = mn
	if ops != "" {
		in.Text += " " + ops
	}
	if c := d.comment(f); c != "" {
		in.Text += " ; " + c
	}
	return in
}

// literal returns the address an A32 literal-pool load brings into its
// register, read through Options.Word.
func (d *Decoder) literal(f Flow) (uint64, bool) {
	if !f.Literal || d.opts.Word == nil {
		return 0, false
	}
	w, ok := d.opts.Word(f.Ref)
	return uint64(w), ok && w != 0
}

// comment names the referenced addresses that the operand text shows as
// numbers.
func (d *Decoder) comment(f Flow) string {
	sym := d.opts.Symbolizer
	if sym == nil {
		return ""
	}
	var out string
	add := func(prefix string, addr uint64, exactShown bool) {
		name, base, ok := sym(addr)
		if !ok || (exactShown && addr == base) {
			return
		}
		s := prefix + name
		if addr != base {
			s += "+0x" + strconv.FormatUint(addr-base, 16)
		}
		if out != "" {
			out += ", "
		}
		out += s
	}
	if f.HasTarget {
		add("", f.Target, d.showsTargetName())
	}
	if loaded, ok := d.literal(f); ok {
		add("=", loaded, false) // what the pool's slot holds, as objdump writes it
	} else if f.HasRef {
		add("", f.Ref, false)
	}
	if f.HasImm && f.Imm > 0xfff {
		add("", f.Imm, false)
	}
	return out
}

// showsTargetName reports whether the backend prints an exact symbol name
// in place of a branch target, so the comment need not repeat it.
func (d *Decoder) showsTargetName() bool { return true }

// DecodeRange decodes code (which starts at addr) linearly, at most max
// instructions (max <= 0: no limit other than the bytes).
func (d *Decoder) DecodeRange(code []byte, addr uint64, max int) []Inst {
	var out []Inst
	run := d.Run()
	for off := 0; off < len(code); {
		if max > 0 && len(out) >= max {
			break
		}
		in := run.Decode(code[off:], addr+uint64(off))
		out = append(out, in)
		off += in.Len
	}
	return out
}

func hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

// targetText is how every backend prints a direct target: the symbol's
// name when it starts there, otherwise the address.
func targetText(t uint64, sym Symbolizer) string {
	if sym != nil {
		if name, base, ok := sym(t); ok && base == t {
			return name
		}
	}
	return hex(t)
}
