package funcs_test

import (
	"context"
	"fmt"

	"github.com/warden-mcp/warden/binview/funcs"
)

// A loader fills an Image; the stages then run in order, each usable as
// soon as it returns.
func Example() {
	code := []byte{
		0xe8, 0x0b, 0x00, 0x00, 0x00, // 0x1000: call 0x1010
		0xc3,                                                       // ret
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, // padding
		0x31, 0xc0, // 0x1010: xor eax, eax
		0xc3, // ret
	}
	img := &funcs.Image{
		Arch:    "x86-64",
		Regions: []funcs.Region{{Name: ".text", Addr: 0x1000, Data: code, Exec: true}},
		Entries: []uint64{0x1000},
		Symbols: []funcs.Seed{{Addr: 0x1000, Name: "main", Size: 6}},
	}
	a, err := funcs.New(img, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := a.Run(context.Background(), funcs.StageDescent)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range res.Functions {
		fmt.Printf("%#x %q %s %.2f\n", f.Addr, f.Name, f.Source, f.Confidence)
	}
	g, _ := a.Graph(context.Background())
	callee, _ := g.Function(0x1010)
	fmt.Printf("callers of 0x1010: %#x\n", callee.Callers)
	// Output:
	// 0x1000 "main" symbol 1.00
	// 0x1010 "" call 0.95
	// callers of 0x1010: [0x1000]
}
