package funcs

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"
)

// le32 appends v as 4 little-endian bytes.
func le32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }

// pad appends int3 up to the address at (code starts at base).
func pad(b []byte, base, at uint64) []byte { return padWith(b, base, at, 0xcc) }

// padWith appends the byte p up to the address at.
func padWith(b []byte, base, at uint64, p byte) []byte {
	for base+uint64(len(b)) < at {
		b = append(b, p)
	}
	return b
}

func runDescent(t *testing.T, img *Image, h Heuristics) (*Analyzer, *Result) {
	t.Helper()
	a, err := New(img, &Options{Heuristics: h})
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.Run(context.Background(), StageDescent)
	if err != nil {
		t.Fatal(err)
	}
	return a, r
}

func findFn(r *Result, addr uint64) *Function {
	for i := range r.Functions {
		if r.Functions[i].Addr == addr {
			return &r.Functions[i]
		}
	}
	return nil
}

// startImage is _start as glibc's crt1 has it: the address of main put
// in rdi by load, then __libc_start_main called through the GOT, then
// hlt; main sits behind padding and nothing else names it.
func startImage(load []byte) *Image {
	const base, main = 0x1000, 0x1040
	code := []byte{0x31, 0xed} // xor ebp, ebp
	code = append(code, load...)
	code = append(code, 0xff, 0x15) // call [rip+got]
	code = le32(code, 0x1000)
	code = append(code, 0xf4) // hlt
	code = pad(code, base, main)
	code = append(code, 0x31, 0xc0, 0xc3) // main: xor eax, eax; ret
	return &Image{Arch: "x86-64", Entries: []uint64{base}, Regions: []Region{
		{Name: ".text", Addr: base, Data: code, Exec: true},
		{Name: ".got", Addr: 0x3000, Data: make([]byte, 0x1000)},
	}}
}

func TestStartCallNamesMain(t *testing.T) {
	const main = 0x1040
	leaAt := uint64(0x1002) // after xor ebp, ebp
	cases := map[string][]byte{
		"lea rdi, [rip+main]": le32([]byte{0x48, 0x8d, 0x3d}, uint32(main-(leaAt+7))),
		"mov rdi, main":       le32([]byte{0x48, 0xc7, 0xc7}, main),
		"mov edi, main":       le32([]byte{0xbf}, main),
	}
	for name, load := range cases {
		t.Run(name, func(t *testing.T) {
			_, r := runDescent(t, startImage(load), HeuristicsOff)
			f := findFn(r, main)
			if f == nil {
				t.Fatalf("main not found: %+v", r.Functions)
			}
			if f.Name != "main" || f.Source != SourceStartCall || f.Heuristic {
				t.Errorf("main = %+v, want named main from start_call", *f)
			}
		})
	}
}

// TestHeuristicsBesideSparseMetadata: a symbol that bounds one small
// function (as the C runtime's FDEs do in a stripped build without
// unwind tables) no longer turns the heuristics off for the rest.
func TestHeuristicsBesideSparseMetadata(t *testing.T) {
	const base, orphan = 0x1000, 0x1100
	code := []byte{0x31, 0xc0, 0xc3} // entry: xor eax, eax; ret
	code = pad(code, base, orphan)
	for i := 0; i < 80; i++ {
		code = append(code, 0xb8, 0x11, 0x11, 0x11, 0x11) // mov eax, 0x11111111
	}
	code = append(code, 0xc3)
	img := &Image{Arch: "x86-64", Entries: []uint64{base},
		Symbols: []Seed{{Addr: base, Name: "_start", Size: 3}},
		Regions: []Region{
			{Name: ".text", Addr: base, Data: code, Exec: true},
			{Name: ".data", Addr: 0x3000, Data: binary.LittleEndian.AppendUint64(nil, orphan)},
		}}
	_, r := runDescent(t, img, HeuristicsAuto)
	if f := findFn(r, orphan); f == nil || f.Source != SourceDataPointer {
		t.Fatalf("the function only a data pointer names was not found: %+v", r.Functions)
	}
}

// TestJumpTableBaseLoadedEarly: gcc -O3 and clang load a table's base
// with a lea long before the jump through it; the case blocks must be
// covered by the function's walk (and so never become functions).
func TestJumpTableBaseLoadedEarly(t *testing.T) {
	const base, table = 0x1000, 0x3000
	cases := []uint64{0x1040, 0x1050, 0x1060}
	for _, rel := range []bool{true, false} {
		code := le32([]byte{0x48, 0x8d, 0x1d}, table-(base+7)) // lea rbx, [rip+table]
		for i := 0; i < 16; i++ {
			code = append(code, 0x31, 0xd2) // xor edx, edx: pushes the lea out of the history
		}
		var data []byte
		if rel {
			code = append(code, 0x48, 0x63, 0x04, 0x8b) // movsxd rax, [rbx+rcx*4]
			code = append(code, 0x48, 0x01, 0xd8)       // add rax, rbx
			for _, c := range cases {
				data = le32(data, uint32(c-table))
			}
		} else {
			code = append(code, 0x48, 0x8b, 0x04, 0xcb) // mov rax, [rbx+rcx*8]
			for _, c := range cases {
				data = binary.LittleEndian.AppendUint64(data, c)
			}
		}
		code = append(code, 0xff, 0xe0) // jmp rax
		for _, c := range cases {
			code = padWith(code, base, c, 0x90) // compilers align case blocks with nops
			code = append(code, 0x31, 0xc0, 0xc3)
		}
		data = append(data, bytes.Repeat([]byte{0xff}, 16)...)
		img := &Image{Arch: "x86-64", Entries: []uint64{base}, Regions: []Region{
			{Name: ".text", Addr: base, Data: code, Exec: true},
			{Name: ".rodata", Addr: table, Data: data},
		}}
		a, r := runDescent(t, img, HeuristicsOn)
		for _, c := range cases {
			if !a.covered.has(c) {
				t.Errorf("relative %v: case block %#x not covered", rel, c)
			}
			if findFn(r, c) != nil {
				t.Errorf("relative %v: case block %#x taken for a function: %+v", rel, c, *findFn(r, c))
			}
		}
	}
}

// TestAbsoluteTableIndexedByDisplacement: a non-PIE switch,
// mov rax, [rax*8+T]; jmp rax, holds absolute pointers; the table is
// found by the bytes of the instruction that indexes it.
func TestAbsoluteTableIndexedByDisplacement(t *testing.T) {
	const base, table = 0x401000, 0x403000
	cases := []uint64{0x401040, 0x401050, 0x401060}
	code := []byte{0x83, 0xf8, 0x02}            // cmp eax, 2
	code = append(code, 0x77, 0x30)             // ja +0x30
	code = append(code, 0x48, 0x8b, 0x04, 0xc5) // mov rax, [rax*8+table]
	code = le32(code, table)
	code = append(code, 0xff, 0xe0) // jmp rax
	for _, c := range cases {
		code = pad(code, base, c)
		code = append(code, 0x31, 0xc0, 0xc3)
	}
	var data []byte
	for _, c := range cases {
		data = binary.LittleEndian.AppendUint64(data, c)
	}
	img := &Image{Arch: "x86-64", Entries: []uint64{base}, Regions: []Region{
		{Name: ".text", Addr: base, Data: code, Exec: true},
		{Name: ".rodata", Addr: table, Data: data},
	}}
	a, r := runDescent(t, img, HeuristicsOn)
	if !a.indexedTables()[table] {
		t.Error("the table the code indexes was not found")
	}
	for _, c := range cases {
		if !a.covered.has(c) || findFn(r, c) != nil {
			t.Errorf("case block %#x: covered %v, function %v", c, a.covered.has(c), findFn(r, c) != nil)
		}
	}
}

// TestAfterPadding: a nop, ret or int3 before an address is padding; the
// 00 that ends a jmp rel32 or mov eax, 0 is not.
func TestAfterPadding(t *testing.T) {
	cases := []struct {
		before []byte
		want   bool
	}{
		{[]byte{0xc3}, true},
		{[]byte{0xcc}, true},
		{[]byte{0x0f, 0x1f, 0x44, 0x00, 0x00}, true},
		{[]byte{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}, true},
		{[]byte{0x00, 0x00, 0x00, 0x00}, true},
		{[]byte{0xe9, 0x10, 0x01, 0x00, 0x00}, false}, // jmp rel32
		{[]byte{0xb8, 0x01, 0x00, 0x00, 0x00}, false}, // mov eax, 1
		{[]byte{0xff, 0xe0}, false},                   // jmp rax
	}
	for _, c := range cases {
		code := append([]byte{0x90, 0x31, 0xc0}, c.before...)
		at := 0x1000 + uint64(len(code))
		code = append(code, 0x31, 0xc0, 0xc3)
		a, err := New(&Image{Arch: "x86-64", Regions: []Region{{Addr: 0x1000, Data: code, Exec: true}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.afterPadding(at); got != c.want {
			t.Errorf("after % x: %v, want %v", c.before, got, c.want)
		}
	}
}

// TestFunctionDecodedByAnotherWalkMayReturn: A ends with a call to C that
// cannot be judged yet (C calls A back), so A's walk runs on into B's
// bytes. B, called next, must not be taken for a function that never
// returns: the code after the call to it is main's.
func TestFunctionDecodedByAnotherWalkMayReturn(t *testing.T) {
	const base = 0x1000
	code := le32([]byte{0xe8}, 0x1010-0x1005)               // 0x1000 main: call A
	code = le32(append(code, 0xe8), 0x1015-0x100a)          // 0x1005: call B
	code = append(code, 0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3) // 0x100a: mov eax, 1; ret
	code = le32(append(code, 0xe8), 0x1020-0x1015)          // 0x1010 A: call C
	code = append(code, 0x31, 0xc0, 0xc3)                   // 0x1015 B: xor eax, eax; ret
	code = pad(code, base, 0x1020)
	code = le32(append(code, 0xe8), 0xffffffeb) // 0x1010-0x1025 // 0x1020 C: call A
	code = append(code, 0xc3)
	img := &Image{Arch: "x86-64", Entries: []uint64{base}, Regions: []Region{{Name: ".text", Addr: base, Data: code, Exec: true}}}
	a, _ := runDescent(t, img, HeuristicsOff)
	if !a.covered.has(0x100a) {
		t.Error("the code after the call to B was cut: B was judged never to return")
	}
}

// TestTailJumpToThePrologueNext: at -Os a function can end with a jump
// to the function placed straight after it, or to one behind a return;
// a jump forwards to a prologue that no fall-through reaches is a tail
// call, while clang -O0's jumps to the next block stay inside.
func TestTailJumpToThePrologueNext(t *testing.T) {
	const base = 0x1000
	code := []byte{0x31, 0xc0, 0xeb, 0x00}      // 0x1000 f: xor eax, eax; jmp 0x1004
	code = append(code, 0x41, 0x56, 0x53)       // 0x1004 g: push r14; push rbx
	code = append(code, 0x5b, 0x41, 0x5e, 0xc3) // pop rbx; pop r14; ret
	code = append(code, 0xeb, 0x00)             // 0x100b h: jmp 0x100d (the next block)
	code = append(code, 0x31, 0xc0, 0xc3)       // 0x100d: xor eax, eax; ret
	img := &Image{Arch: "x86-64", Entries: []uint64{base, 0x100b}, Regions: []Region{{Name: ".text", Addr: base, Data: code, Exec: true}}}
	_, r := runDescent(t, img, HeuristicsOff)
	if f := findFn(r, 0x1004); f == nil || f.Source != SourceTailCall {
		t.Errorf("the function jumped to after f is not a tail call: %+v", r.Functions)
	}
	if findFn(r, 0x100d) != nil {
		t.Error("a jump to the next block, which opens with no prologue, was taken for a tail call")
	}
}

// TestGapWalksTheTailCallItFound: a function the gap heuristic finds
// tail-jumps to the next one; that one must be walked before the pass
// reaches it, or its second instruction (push r15 after push rbp) is
// taken for a prologue of its own.
func TestGapWalksTheTailCallItFound(t *testing.T) {
	const base = 0x1000
	code := []byte{0xb9, 0xff, 0x00, 0x00, 0x00, 0xeb, 0x09}                  // mov ecx, 0xff; jmp 0x1010
	code = append(code, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00, 0x90, 0x90) // nops to 0x1010
	code = append(code, 0x55, 0x41, 0x57, 0x41, 0x56)                         // push rbp; push r15; push r14
	code = append(code, 0x41, 0x5e, 0x41, 0x5f, 0x5d, 0xc3)                   // pops; ret
	img := &Image{Arch: "x86-64", Regions: []Region{{Name: ".text", Addr: base, Data: code, Exec: true}}}
	_, r := runDescent(t, img, HeuristicsAuto)
	if findFn(r, 0x1010) == nil {
		t.Fatalf("the tail-called function is missing: %+v", r.Functions)
	}
	if f := findFn(r, 0x1011); f != nil {
		t.Errorf("its second instruction was taken for a function: %+v", *f)
	}
}

// TestJumpTableBoundAcrossTheBranch: gcc -Os guards a table with
// cmp eax, N; jbe L and puts the table code at L, so the compare is not in
// the straight-line history of the jump; its bound must still hold, or
// the walk reads on into the next table and walks whatever that points at.
func TestJumpTableBoundAcrossTheBranch(t *testing.T) {
	const base, table = 0x1000, 0x3000
	code := []byte{0x83, 0xf8, 0x02, 0x76, 0x03} // cmp eax, 2; jbe +3
	code = append(code, 0x31, 0xc0, 0xc3)        // xor eax, eax; ret
	leaAt := uint64(base + len(code))
	code = le32(append(code, 0x48, 0x8d, 0x15), uint32(table-(leaAt+7))) // lea rdx, [rip+table]
	code = append(code, 0x48, 0x63, 0x04, 0x82)                          // movsxd rax, [rdx+rax*4]
	code = append(code, 0x48, 0x01, 0xd0, 0xff, 0xe0)                    // add rax, rdx; jmp rax
	cases := []uint64{0x1040, 0x1050, 0x1060}
	for _, c := range cases {
		code = padWith(code, base, c, 0x90)
		code = append(code, 0x31, 0xc0, 0xc3)
	}
	code = padWith(code, base, 0x1070, 0x90)
	code = append(code, 0xb8, 0x11, 0x11, 0x11, 0x11, 0xc3) // code no case reaches
	var data []byte
	for _, c := range append(cases, 0x1071) { // the next table's entry lands mid-instruction
		data = le32(data, uint32(c-table))
	}
	img := &Image{Arch: "x86-64", Entries: []uint64{base}, Regions: []Region{
		{Name: ".text", Addr: base, Data: code, Exec: true},
		{Name: ".rodata", Addr: table, Data: data},
	}}
	a, _ := runDescent(t, img, HeuristicsOff)
	for _, c := range cases {
		if !a.visited.has(c) {
			t.Errorf("case %#x not walked", c)
		}
	}
	if a.visited.has(0x1071) {
		t.Error("the walk read past the table's bound")
	}
}
