package disasm

import (
	"encoding/binary"
	"strings"
	"testing"
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
	var p Pages
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
			var p Pages
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
	var p Pages
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
