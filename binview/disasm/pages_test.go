package disasm

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// words lays ARM64 instruction words out as little-endian code.
func words(ws ...uint32) []byte {
	b := make([]byte, 4*len(ws))
	for i, w := range ws {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// The words are main.main of a Go program built for linux/arm64, at
// 0xa61ec; the addresses they complete are the symbols `go tool nm`
// names there.
func TestPagesCompleteGoAddresses(t *testing.T) {
	const base = 0xa61ec
	code := words(
		0xf00006fb, // adrp x27, 0x185000
		0x9103c37b, // add  x27, x27, #0xf0      main.greeting
		0xa9400760, // ldp  x0, x1, [x27]
		0x97ff728a, // bl   runtime.convTstring  (x0-x18, x30 forgotten)
		0x900000a2, // adrp x2, 0xba000
		0x91158042, // add  x2, x2, #0x560
		0xa90383e2, // stp  x2, x0, [sp,#56]
		0x9000073b, // adrp x27, 0x18a000
		0xf943a761, // ldr  x1, [x27,#1864]      os.Stdout
		0xd00001c0, // adrp x0, 0xe0000
		0x911d6000, // add  x0, x0, #0x758       go:itab.*os.File,io.Writer
		0x9100e3e2, // add  x2, sp, #0x38        (sp: no page)
	)
	want := map[uint64]uint64{
		base + 4:  0x1850f0,
		base + 20: 0xba560,
		base + 32: 0x18a748,
		base + 40: 0xe0758,
	}
	p := NewPages(ARM64)
	for i := 0; i < len(code); i += 4 {
		pc := uint64(base + i)
		got, ok := p.Next(code[i:], pc)
		if w, wok := want[pc]; ok != wok || got != w {
			t.Errorf("%#x: got %#x %v, want %#x %v", pc, got, ok, w, wok)
		}
	}
}

func TestPagesForget(t *testing.T) {
	tests := []struct {
		name string
		code []byte
		gap  bool // the second instruction does not follow the first
	}{
		{"the register is written in between", words(0x900000a2, 0xd2800002, 0x91158042), false}, // adrp x2; mov x2, #0; add x2, x2
		{"a call clobbers x2", words(0x900000a2, 0x94000010, 0x91158042), false},
		{"a branch ends the run", words(0x900000a2, 0x14000002, 0x91158042), false},
		{"a return ends the run", words(0x900000a2, 0xd65f03c0, 0x91158042), false},
		{"a load writes x2", words(0x900000a2, 0xf9400002, 0x91158042), false}, // ldr x2, [x0]
		{"a load pair writes x2", words(0x900000a2, 0xa9400801, 0x91158042), false},
		{"the addresses do not follow", words(0x900000a2, 0x91158042), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPages(ARM64)
			pc := uint64(0x1000)
			for i := 0; i < len(tt.code); i += 4 {
				if tt.gap && i > 0 {
					pc += 0x100
				}
				if got, ok := p.Next(tt.code[i:], pc); ok {
					t.Errorf("instruction %d completes %#x; the page should be forgotten", i/4, got)
				}
				pc += 4
			}
		})
	}
	// A callee-saved register keeps its page across a call.
	p := NewPages(ARM64)
	code := words(0x900000b3, 0x94000010, 0x91158273) // adrp x19; bl; add x19, x19, #0x560
	var got uint64
	var ok bool
	for i := 0; i < len(code); i += 4 {
		got, ok = p.Next(code[i:], uint64(0x2000+i))
	}
	if !ok || got != 0x2000+0x14000+0x560 {
		t.Errorf("x19 across a call: got %#x %v", got, ok)
	}
}

// A run's listing shows the page of an ADRP and names, on the instruction
// that completes it, the symbol the pair points at.
func TestRunNamesADRPPairs(t *testing.T) {
	sym := func(a uint64) (string, uint64, bool) {
		if a >= 0x1850f0 && a < 0x185100 {
			return "main.greeting", 0x1850f0, true
		}
		if a == 0x185000 {
			return "page.start", 0x185000, true
		}
		return "", 0, false
	}
	d, err := New(ARM64, &Options{Syntax: GNU, Symbolizer: sym})
	if err != nil {
		t.Fatal(err)
	}
	ins := d.DecodeRange(words(0xf00006fb, 0x9103c37b), 0xa61ec, 0)
	if len(ins) != 2 {
		t.Fatalf("%d instructions", len(ins))
	}
	if got := ins[0].Text; got != "adrp x27, 0x185000" {
		t.Errorf("adrp: %q", got)
	}
	if got := ins[1].Text; !strings.HasSuffix(got, "; main.greeting") || len(ins[1].Refs) != 1 || ins[1].Refs[0] != 0x1850f0 {
		t.Errorf("add: %q, refs %#x", got, ins[1].Refs)
	}
	// One instruction alone knows nothing of the page.
	if in := d.Decode(words(0x9103c37b), 0xa61f0); len(in.Refs) != 0 {
		t.Errorf("a lone add has refs %#x", in.Refs)
	}
}

// bigEndian lays out big-endian instruction words.
func bigEndian(ws ...uint32) []byte {
	var b []byte
	for _, w := range ws {
		b = binary.BigEndian.AppendUint32(b, w)
	}
	return b
}

// code16 lays out riscv64 instructions of 16 and 32 bits.
func code16(ins ...uint32) []byte {
	var b []byte
	for _, w := range ins {
		if w&3 != 3 {
			b = binary.LittleEndian.AppendUint16(b, uint16(w))
			continue
		}
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

// The same program's main.main for linux/riscv64 (compressed instructions
// between the pairs), linux/loong64 and linux/ppc64 (both byte orders),
// checked against `go tool nm`.
func TestPagesOtherArchitectures(t *testing.T) {
	tests := []struct {
		arch Arch
		base uint64
		code []byte
		want map[uint64]uint64
	}{
		{RISCV64, 0x8cf44, code16(
			0x3971,     // addi sp, sp, -64  (compressed)
			0x06e0,     // sd ra, 0(sp)      (compressed)
			0x02f8,     // sd zero, 48(sp)   (compressed)
			0x02fc,     // sd zero, 56(sp)   (compressed)
			0x000d8517, // auipc a0, 0xd8
			0x1d453503, // ld a0, 468(a0)         main.greeting
			0x000d8597, // auipc a1, 0xd8
			0x1d45b583, // ld a1, 468(a1)         main.greeting+8
			0xc94e20ef, // call runtime.convTstring (a0, a1 forgotten)
			0x0000d297, // auipc t0, 0xd
			0x4c028293, // addi t0, t0, 1216
			0x16f8,     // sd t5, 48(sp)     (compressed)
			0x2afc,     // sd a0, 56(sp)     (compressed)
			0x000dd597, // auipc a1, 0xdd
			0x7fc5b583, // ld a1, 2044(a1)        os.Stdout
			0x00033517, // auipc a0, 0x33
			0x24450513, // addi a0, a0, 580       go:itab.*os.File,io.Writer
		), map[uint64]uint64{0x8cf50: 0x165120, 0x8cf58: 0x165128, 0x8cf64: 0x9a420, 0x8cf70: 0x16a768, 0x8cf78: 0xc01b8}},
		{LOONG64, 0xb4690, words(
			0x1a001e3e, // pcalau12i $r30, 241
			0x28c343c4, // ld.d $r4, $r30, 208    main.greeting
			0x1a001e3e, // pcalau12i $r30, 241
			0x28c363c5, // ld.d $r5, $r30, 216    main.greeting+8
			0x5583f3ff, // bl runtime.convTstring ($r30 kept)
			0x1a0002c6, // pcalau12i $r6, 22
			0x02d580c6, // addi.d $r6, $r6, 1376
			0x29c0c066, // st.d $r6, $r3, 48
			0x29c0e064, // st.d $r4, $r3, 56
			0x1a001ede, // pcalau12i $r30, 246
			0x28dca3c5, // ld.d $r5, $r30, 1832   os.Stdout
			0x1a000784, // pcalau12i $r4, 60
			0x02db6084, // addi.d $r4, $r4, 1752  go:itab.*os.File,io.Writer
			0x02c0c066, // addi.d $r6, $r3, 48    ($r3: no page)
		), map[uint64]uint64{0xb4694: 0x1a50d0, 0xb469c: 0x1a50d8, 0xb46a8: 0xca560, 0xb46b8: 0x1aa728, 0xb46c0: 0xf06d8}},
		{PPC64LE, 0xb77e8, words(
			0x3ca00019, // lis r5, 25
			0x38a550f0, // addi r5, r5, 20720     main.greeting
			0xe8650000, // ld r3, 0(r5)           (r5 holds the address, not a page)
			0xe8850008, // ld r4, 8(r5)
			0x4bfd83f9, // bl runtime.convTstring
			0x3ca0000d, // lis r5, 13
			0x38a5a400, // addi r5, r5, -23552
			0xf8a10048, // std r5, 72(r1)
			0xf8610050, // std r3, 80(r1)
			0x3c80001a, // lis r4, 26
			0xe884a748, // ld r4, -22712(r4)      os.Stdout
			0x3c60000f, // lis r3, 15
			0x38630378, // addi r3, r3, 888       go:itab.*os.File,io.Writer
			0x38a10048, // addi r5, r1, 72        (r1: no page)
		), map[uint64]uint64{0xb77ec: 0x1950f0, 0xb7800: 0xca400, 0xb7810: 0x19a748, 0xb7818: 0xf0378}},
		{PPC64, 0xb53fc, bigEndian(
			0x3c80001a, // lis r4, 26
			0xe884a748, // ld r4, -22712(r4)      os.Stdout
			0x3c60000f, // lis r3, 15
			0x3863fea8, // addi r3, r3, -344      go:itab.*os.File,io.Writer
		), map[uint64]uint64{0xb5400: 0x19a748, 0xb5408: 0xefea8}},
	}
	for _, tt := range tests {
		t.Run(tt.arch.String(), func(t *testing.T) {
			p := NewPages(tt.arch)
			got := map[uint64]uint64{}
			for off := 0; off < len(tt.code); {
				pc := tt.base + uint64(off)
				if ref, ok := p.Next(tt.code[off:], pc); ok {
					got[pc] = ref
				}
				if tt.code[off]&3 != 3 && tt.arch == RISCV64 {
					off += 2
				} else {
					off += 4
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("completed addresses (-want +got):\n%s", d)
			}
		})
	}
	if NewPages(X86_64) != nil {
		t.Error("x86-64 addresses take one instruction; it needs no Pages")
	}
}

// The ARMv8.1 atomics x/arch cannot decode, as binutils 2.40 prints them.
func TestARM64Atomics(t *testing.T) {
	d, err := New(ARM64, &Options{Syntax: GNU})
	if err != nil {
		t.Fatal(err)
	}
	for w, want := range map[uint32]string{
		0x88fbfc41: "casal w27, w1, [x2]",
		0xf8e400a6: "ldaddal x4, x6, [x5]",
		0xb8e18002: "swpal w1, w2, [x0]",
		0x38e13002: "ldsetalb w1, w2, [x0]",
		0xb8fb1085: "ldclral w27, w5, [x4]",
		0xb861001f: "staddl w1, [x0]",
		0xc8e1ffe2: "casal x1, x2, [sp]",
		0x7860001f: "staddlh w0, [x0]",
		0x38a08020: "swpab w0, w0, [x1]",
		0x08a07c41: "casb w0, w1, [x2]",
		0x48e0fc41: "casalh w0, w1, [x2]",
		0xf8ff803f: "swpal xzr, xzr, [x1]",
		0xf8a0c3e1: "(bad)", // LDAPR needs Rs = 31: undefined
	} {
		in := d.Decode(words(w), 0x1000)
		if in.Text != want {
			t.Errorf("%#08x: %q, want %q", w, in.Text, want)
		}
		if want != "(bad)" && (in.Kind != Plain || !in.FallThrough || in.Len != 4) {
			t.Errorf("%#08x: kind %v, falls through %v, length %d", w, in.Kind, in.FallThrough, in.Len)
		}
	}
}

// The permanently undefined instruction prints as objdump prints it (a
// zero word, the padding between Go's functions, is udf #0) and traps;
// it was "(bad)", 6,499 times in one Go binary's listing.
func TestARM64Udf(t *testing.T) {
	d, err := New(ARM64, &Options{Syntax: GNU})
	if err != nil {
		t.Fatal(err)
	}
	for w, want := range map[uint32]string{0x00000000: "udf #0", 0x0000beef: "udf #48879", 0x00010000: "(bad)"} {
		in := d.Decode(words(w), 0x1000)
		if in.Text != want {
			t.Errorf("%#08x: %q, want %q", w, in.Text, want)
		}
		if want != "(bad)" && (in.Kind != Trap || in.FallThrough || in.Len != 4) {
			t.Errorf("%#08x: kind %v, falls through %v, length %d", w, in.Kind, in.FallThrough, in.Len)
		}
	}
}

// An A32 literal-pool load lists and names the address its slot holds.
func TestARMLiteralLoad(t *testing.T) {
	sym := func(a uint64) (string, uint64, bool) {
		if a >= 0x20000 && a < 0x20010 {
			return "main.greeting", 0x20000, true
		}
		return "", 0, false
	}
	pool := map[uint64]uint32{0x1010: 0x20004}
	d, err := New(ARM, &Options{Syntax: GNU, Symbolizer: sym, Word: func(a uint64) (uint32, bool) {
		w, ok := pool[a]
		return w, ok
	}})
	if err != nil {
		t.Fatal(err)
	}
	in := d.Decode(words(0xe59f0008), 0x1000) // ldr r0, [pc, #8]: the slot at 0x1010
	if len(in.Refs) != 2 || in.Refs[0] != 0x1010 || in.Refs[1] != 0x20004 {
		t.Errorf("refs %#x, want the slot and the address it holds", in.Refs)
	}
	if !strings.HasSuffix(in.Text, "; =main.greeting+0x4") {
		t.Errorf("text %q", in.Text)
	}
	// Without Word, only the slot.
	d, _ = New(ARM, &Options{Syntax: GNU, Symbolizer: sym})
	if in := d.Decode(words(0xe59f0008), 0x1000); len(in.Refs) != 1 || strings.Contains(in.Text, "=") {
		t.Errorf("without Word: refs %#x, text %q", in.Refs, in.Text)
	}
}
