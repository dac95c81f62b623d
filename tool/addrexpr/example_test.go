package addrexpr_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/warden-mcp/warden/tool/addrexpr"
)

// image is a minimal Target: a 64-bit binary with two symbols, one
// section and 16 bytes of memory at 0x400000.
type image struct{}

var mem = []byte{
	0x00, 0x10, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, // 0x400000: pointer to main
	0xef, 0xbe, 0xad, 0xde, 0x00, 0x00, 0x00, 0x00, // 0x400008
}

func (image) Symbol(name string) (uint64, bool) {
	addr, ok := map[string]uint64{"main": 0x401000, "main_end": 0x401080}[name]
	return addr, ok
}

func (image) Section(name string) (uint64, uint64, bool) {
	if name == ".text" {
		return 0x401000, 0x402000, true
	}
	return 0, 0, false
}

func (image) Read(addr uint64, size int) (uint64, error) {
	if addr < 0x400000 || addr-0x400000 > uint64(len(mem)-size) {
		return 0, errors.New("unmapped")
	}
	var buf [8]byte
	copy(buf[:], mem[addr-0x400000:][:size])
	return binary.LittleEndian.Uint64(buf[:]), nil
}

func (image) Here() (uint64, bool) { return 0x401010, true }
func (image) Start() uint64        { return 0x400000 }
func (image) End() uint64          { return 0x402000 }
func (image) AddressSize() int     { return 8 }

func ExampleEvaluate() {
	ctx := context.Background()
	for _, s := range []string{
		"main + 10",      // numbers are hex by default
		"main + 0n10",    // 0n is decimal
		".text + 0x20",   // a section name is its start
		"[400000] + 4",   // reads an address-sized value
		"[400008].w",     // reads 2 bytes
		"$here - $start", // magic values
		"main < $here",   // comparisons give 1 or 0
	} {
		v, err := addrexpr.Evaluate(ctx, s, image{})
		fmt.Printf("%-16s = %#x %v\n", s, v, err)
	}
	// Output:
	// main + 10        = 0x401010 <nil>
	// main + 0n10      = 0x40100a <nil>
	// .text + 0x20     = 0x401020 <nil>
	// [400000] + 4     = 0x401004 <nil>
	// [400008].w       = 0xbeef <nil>
	// $here - $start   = 0x1010 <nil>
	// main < $here     = 0x1 <nil>
}

func ExampleParse() {
	e, err := addrexpr.Parse("( main + 0x10 ) * 1")
	if err != nil {
		panic(err)
	}
	fmt.Println(e) // canonical form
	v, err := e.Eval(context.Background(), image{})
	fmt.Printf("%#x %v\n", v, err)
	// Output:
	// (main+0x10)*1
	// 0x401010 <nil>
}

func ExampleError() {
	_, err := addrexpr.Evaluate(context.Background(), "mian + 0x10", image{})
	var e *addrexpr.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Pos)
		fmt.Println(e)
	}
	// Output:
	// unknown_symbol 0
	// unknown symbol "mian" at offset 0
}

// A length parameter relative to an address parameter: $here is the
// address the caller already evaluated.
func ExampleEvalInteger() {
	ctx := context.Background()
	start, _ := addrexpr.Evaluate(ctx, "main", image{})
	for _, s := range []string{"0n64", "40", "main_end - $here"} {
		n, err := addrexpr.EvalInteger(ctx, s, image{}, start)
		fmt.Printf("%-16s = %d %v\n", s, n, err)
	}
	// Output:
	// 0n64             = 64 <nil>
	// 40               = 64 <nil>
	// main_end - $here = 128 <nil>
}
