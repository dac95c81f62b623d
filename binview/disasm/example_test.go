package disasm_test

import (
	"fmt"

	"github.com/warden-mcp/warden/binview/disasm"
)

func Example() {
	names := func(addr uint64) (string, uint64, bool) {
		if addr == 0x401100 {
			return "helper", 0x401100, true
		}
		return "", 0, false
	}
	d, err := disasm.New(disasm.X86_64, &disasm.Options{Syntax: disasm.Intel, Symbolizer: names})
	if err != nil {
		fmt.Println(err)
		return
	}
	code := []byte{0xf3, 0x0f, 0x1e, 0xfa, 0xe8, 0xf7, 0x00, 0x00, 0x00, 0xc3}
	for _, in := range d.DecodeRange(code, 0x401000, 0) {
		fmt.Printf("%#x %-16s %-14s targets %#x\n", in.Addr, in.Text, in.Kind, in.Targets)
	}
	// Output:
	// 0x401000 endbr64          plain          targets []
	// 0x401004 call helper      call           targets [0x401100]
	// 0x401009 ret              return         targets []
}
