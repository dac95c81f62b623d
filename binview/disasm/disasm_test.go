package disasm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/errcode"
)

func TestFlowKinds(t *testing.T) {
	const pc = 0x1000
	tests := []struct {
		arch   Arch
		name   string
		code   []byte
		kind   Kind
		falls  bool
		target uint64 // 0: none
		ln     int
	}{
		{X86_64, "call rel32", []byte{0xe8, 0x10, 0, 0, 0}, Call, true, pc + 5 + 0x10, 5},
		{X86_64, "ret", []byte{0xc3}, Return, false, 0, 1},
		{X86_64, "jmp self", []byte{0xeb, 0xfe}, Jump, false, pc, 2},
		{X86_64, "je", []byte{0x74, 0x02}, CondJump, true, pc + 4, 2},
		{X86_64, "call rax", []byte{0xff, 0xd0}, IndirectCall, true, 0, 2},
		{X86_64, "jmp rax", []byte{0xff, 0xe0}, IndirectJump, false, 0, 2},
		{X86_64, "notrack jmp rax", []byte{0x3e, 0xff, 0xe0}, IndirectJump, false, 0, 3},
		{X86_64, "ud2", []byte{0x0f, 0x0b}, Trap, false, 0, 2},
		{X86_64, "int3", []byte{0xcc}, Trap, false, 0, 1},
		{X86_64, "hlt", []byte{0xf4}, Trap, false, 0, 1},
		{X86_64, "endbr64", []byte{0xf3, 0x0f, 0x1e, 0xfa, 0x55}, Plain, true, 0, 4},
		{X86_64, "push es is invalid in 64-bit mode", []byte{0x06, 0x90}, Invalid, false, 0, 1},
		{X86_64, "vzeroupper", []byte{0xc5, 0xf8, 0x77, 0xc3}, Plain, true, 0, 3},
		{X86_64, "rdsspq", []byte{0xf3, 0x48, 0x0f, 0x1e, 0xc8}, Plain, true, 0, 5},
		{X86, "call rel32 wraps at 32 bits", []byte{0xe8, 0xf0, 0xef, 0xff, 0xff}, Call, true, 0xfffffff5, 5},
		{X86, "endbr32", []byte{0xf3, 0x0f, 0x1e, 0xfb}, Plain, true, 0, 4},
		{X86_16, "jmp short", []byte{0xeb, 0x00}, Jump, false, pc + 2, 2},
		{ARM64, "bl", []byte{0x01, 0x00, 0x00, 0x94}, Call, true, pc + 4, 4},
		{ARM64, "ret", []byte{0xc0, 0x03, 0x5f, 0xd6}, Return, false, 0, 4},
		{ARM64, "b.eq", []byte{0x40, 0x00, 0x00, 0x54}, CondJump, true, pc + 8, 4},
		{ARM64, "b", []byte{0x01, 0x00, 0x00, 0x14}, Jump, false, pc + 4, 4},
		{ARM64, "br x16", []byte{0x00, 0x02, 0x1f, 0xd6}, IndirectJump, false, 0, 4},
		{ARM64, "blr x1", []byte{0x20, 0x00, 0x3f, 0xd6}, IndirectCall, true, 0, 4},
		{ARM64, "cbz", []byte{0x40, 0x00, 0x00, 0xb4}, CondJump, true, pc + 8, 4},
		{ARM64, "brk", []byte{0x00, 0x00, 0x20, 0xd4}, Trap, false, 0, 4},
		{ARM64, "short input", []byte{0xc0, 0x03}, Invalid, false, 0, 2},
		{ARM, "bx lr", []byte{0x1e, 0xff, 0x2f, 0xe1}, Return, false, 0, 4},
		{ARM, "bl", []byte{0x00, 0x00, 0x00, 0xeb}, Call, true, pc + 8, 4},
		{ARM, "beq", []byte{0x00, 0x00, 0x00, 0x0a}, CondJump, true, pc + 8, 4},
		{ARM, "pop {r4, pc}", []byte{0x10, 0x80, 0xbd, 0xe8}, Return, false, 0, 4},
		{RISCV64, "ret", []byte{0x67, 0x80, 0x00, 0x00}, Return, false, 0, 4},
		{RISCV64, "c.ret", []byte{0x82, 0x80}, Return, false, 0, 2},
		{RISCV64, "jal ra", []byte{0xef, 0x00, 0x80, 0x00}, Call, true, pc + 8, 4},
		{RISCV64, "beq", []byte{0x63, 0x04, 0xb5, 0x00}, CondJump, true, pc + 8, 4},
		{RISCV64, "ebreak", []byte{0x73, 0x00, 0x10, 0x00}, Trap, false, 0, 4},
		{PPC64LE, "blr", []byte{0x20, 0x00, 0x80, 0x4e}, Return, false, 0, 4},
		{PPC64LE, "bl", []byte{0x09, 0x00, 0x00, 0x48}, Call, true, pc + 8, 4},
		{PPC64LE, "b", []byte{0x08, 0x00, 0x00, 0x48}, Jump, false, pc + 8, 4},
		{PPC64LE, "bctrl", []byte{0x21, 0x04, 0x80, 0x4e}, IndirectCall, true, 0, 4},
		{PPC64, "blr big-endian", []byte{0x4e, 0x80, 0x00, 0x20}, Return, false, 0, 4},
		{PPC64, "trap", []byte{0x7f, 0xe0, 0x00, 0x08}, Trap, false, 0, 4},
		{S390X, "br %r14", []byte{0x07, 0xfe}, Return, false, 0, 2},
		{S390X, "brasl", []byte{0xc0, 0xe5, 0x00, 0x00, 0x00, 0x08}, Call, true, pc + 16, 6},
		{LOONG64, "ret", []byte{0x20, 0x00, 0x00, 0x4c}, Return, false, 0, 4},
		{LOONG64, "break", []byte{0x00, 0x00, 0x2a, 0x00}, Trap, false, 0, 4},
	}
	for _, tt := range tests {
		t.Run(tt.arch.String()+"/"+tt.name, func(t *testing.T) {
			d, err := New(tt.arch, nil)
			if err != nil {
				t.Fatal(err)
			}
			f := d.Flow(tt.code, pc)
			in := d.Decode(tt.code, pc)
			if f.Kind != tt.kind || f.FallThrough != tt.falls || f.Len != tt.ln {
				t.Errorf("Flow = kind %v falls %v len %d; want %v %v %d (%s)", f.Kind, f.FallThrough, f.Len, tt.kind, tt.falls, tt.ln, in.Text)
			}
			var target uint64
			if f.HasTarget {
				target = f.Target
			}
			if target != tt.target {
				t.Errorf("target %#x, want %#x (%s)", target, tt.target, in.Text)
			}
			if in.Kind != f.Kind || in.Len != f.Len || in.FallThrough != f.FallThrough {
				t.Errorf("Decode and Flow disagree: %+v vs %+v", in, f)
			}
			if in.Text == "" || in.Mnemonic == "" {
				t.Errorf("no text: %+v", in)
			}
		})
	}
}

func TestSymbolizer(t *testing.T) {
	sym := func(a uint64) (string, uint64, bool) {
		switch {
		case a == 0x2000:
			return "main.foo", 0x2000, true
		case a >= 0x3000 && a < 0x3100:
			return "str_hello", 0x3000, true
		}
		return "", 0, false
	}
	tests := []struct {
		syn  Syntax
		code []byte
		pc   uint64
		want string
	}{
		{Intel, []byte{0xe8, 0xfb, 0x0f, 0, 0}, 0x1000, "call main.foo"},
		{Intel, []byte{0x48, 0x8d, 0x05, 0x00, 0x20, 0, 0}, 0x1000 - 7 + 4, "lea rax, [rip+0x2000] ; str_hello+0x4"},
		{GNU, []byte{0xe8, 0xfb, 0x0f, 0, 0}, 0x1000, "callq main.foo"},
		{Go, []byte{0xe8, 0xfb, 0x0f, 0, 0}, 0x1000, "CALL main.foo(SB)"},
		{Intel, []byte{0xf3, 0x0f, 0x1e, 0xfa}, 0x1000, "endbr64"},
		{Intel, []byte{0x73, 0x08}, 0x1000, "jae 0x100a"},
		{Intel, []byte{0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8}, 0x1000, "movabs rax, 0x807060504030201"},
		{Intel, []byte{0x0f, 0x1f, 0x44, 0x00, 0x00}, 0x1000, "nop dword ptr [rax+rax*1]"},
		{Intel, []byte{0x48, 0x8d, 0x04, 0x80}, 0x1000, "lea rax, [rax+rax*4]"},
	}
	for _, tt := range tests {
		d, _ := New(X86_64, &Options{Syntax: tt.syn, Symbolizer: sym})
		if got := d.Decode(tt.code, tt.pc).Text; got != tt.want {
			t.Errorf("%v % x: %q, want %q", tt.syn, tt.code, got, tt.want)
		}
	}
	d, _ := New(ARM64, &Options{Symbolizer: sym})
	if got := d.Decode([]byte{0x00, 0x04, 0x00, 0x94}, 0x1000).Text; got != "bl main.foo" {
		t.Errorf("arm64 bl: %q", got)
	}
}

func TestBadBytesNeverPanic(t *testing.T) {
	for a := X86_16; a <= LOONG64; a++ {
		d, err := New(a, &Options{Syntax: Intel})
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range [][]byte{{0xff}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, make([]byte, 16), {0x0f}} {
			for _, in := range d.DecodeRange(code, 0x10, 0) {
				if in.Len <= 0 || in.Len > len(code) {
					t.Fatalf("%v: length %d", a, in.Len)
				}
				if in.Kind == Invalid && in.Mnemonic != "(bad)" {
					t.Fatalf("%v: invalid instruction shown as %q", a, in.Text)
				}
			}
		}
		if f := d.Flow(nil, 0); f.Len != 0 {
			t.Fatalf("empty input: %+v", f)
		}
	}
}

func TestParseArch(t *testing.T) {
	for name, want := range map[string]Arch{"amd64": X86_64, "x86-64": X86_64, "386": X86, "aarch64": ARM64, "riscv64": RISCV64, "ppc64le": PPC64LE, "s390x": S390X, "loong64": LOONG64, "arm": ARM} {
		got, err := ParseArch(name)
		if err != nil || got != want {
			t.Errorf("ParseArch(%q) = %v, %v", name, got, err)
		}
		if back, _ := ParseArch(got.String()); back != got {
			t.Errorf("%v does not round-trip", got)
		}
	}
	_, err := ParseArch("thumb")
	var e *errcode.Error
	if !errors.As(err, &e) || e.Code != "unsupported_arch" || !strings.Contains(e.Message, "Thumb") {
		t.Fatalf("thumb: %v", err)
	}
	if _, err := New(ArchUnknown, nil); errcode.CodeOf(err) != "unsupported_arch" {
		t.Fatalf("New(unknown): %v", err)
	}
}

func TestDecodeRange(t *testing.T) {
	d, _ := New(X86_64, nil)
	code := []byte{0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3}
	var got []string
	for _, in := range d.DecodeRange(code, 0x400000, 0) {
		got = append(got, in.Text)
	}
	want := []string{"push rbp", "mov rbp, rsp", "pop rbp", "ret"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatal(diff)
	}
	if n := len(d.DecodeRange(code, 0, 2)); n != 2 {
		t.Fatalf("max ignored: %d", n)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(uint8(X86_64), []byte{0xf3, 0x0f, 0x1e, 0xfa, 0xe8, 0, 0, 0, 0})
	f.Add(uint8(ARM64), []byte{0xc0, 0x03, 0x5f, 0xd6})
	f.Add(uint8(RISCV64), []byte{0x82, 0x80, 0x67, 0x80, 0, 0})
	f.Add(uint8(S390X), []byte{0xc0, 0xe5, 0, 0, 0, 8})
	f.Fuzz(func(t *testing.T, arch uint8, code []byte) {
		a := Arch(arch%uint8(LOONG64)) + 1
		for _, syn := range []Syntax{Intel, GNU, Go} {
			d, err := New(a, &Options{Syntax: syn, Symbolizer: func(x uint64) (string, uint64, bool) { return "s", x &^ 0xf, x&1 == 0 }})
			if err != nil {
				t.Fatal(err)
			}
			for off := 0; off < len(code); {
				in := d.Decode(code[off:], uint64(off))
				f := d.Flow(code[off:], uint64(off))
				if in.Len <= 0 || in.Len > len(code)-off || f.Len != in.Len || f.Kind != in.Kind {
					t.Fatalf("%v at %d: decode %+v flow %+v", a, off, in, f)
				}
				off += in.Len
			}
		}
	})
}

// SSE compares read as the assembler writes them: the predicate in the
// mnemonic (objdump -M intel prints cmpltsd xmm0,xmm1).
func TestX86ComparePredicates(t *testing.T) {
	b := x86Backend{mode: 64}
	for code, want := range map[string]string{
		"\xf2\x0f\xc2\xc1\x01":     "cmpltsd xmm0, xmm1",
		"\xf3\x0f\xc2\xc1\x05":     "cmpnltss xmm0, xmm1",
		"\x66\x0f\xc2\xc1\x02":     "cmplepd xmm0, xmm1",
		"\x0f\xc2\xc1\x07":         "cmpordps xmm0, xmm1",
		"\xf2\x0f\xc2\x41\x08\x04": "cmpneqsd xmm0, qword ptr [rcx+0x8]",
	} {
		mn, ops, _ := b.decode([]byte(code), 0x1000, Intel, nil)
		if got := mn + " " + ops; got != want {
			t.Errorf("% x: %q, want %q", code, got, want)
		}
	}
}
