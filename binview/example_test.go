package binview_test

import (
	"context"
	"fmt"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/tool/addrexpr"
)

// Open raw bytes of a declared architecture, evaluate an address
// expression against the view and read memory.
func ExampleOpen() {
	code := []byte{0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3} // push rbp; mov rbp,rsp; pop rbp; ret
	v, err := binview.Open(context.Background(), "/samples/shellcode.bin", code,
		&binview.Options{Format: binview.FormatRaw, Arch: binview.ArchX86_64, Base: 0x401000})
	if err != nil {
		fmt.Println(err)
		return
	}
	addr, _ := addrexpr.Evaluate(context.Background(), "sub_401000 + 0n4", v)
	b, _ := v.Bytes(addr, 8) // a short read: only 2 bytes are mapped there
	t := v.Triage()
	fmt.Println(v.ViewName(), t.Format, t.Arch, binview.Hex(addr), len(b), t.Hashes.SHA256[:16])
	// Output: shellcode.bin raw x86-64 0x401004 2 5a96d1fb661d5555
}

// The hosted split: analyse (in a child process, see package
// binview/isolate), ship the snapshot, build the view from it.
func ExampleNew() {
	data := []byte("MZ? no: raw bytes with an Arm64 base")
	opts := &binview.Options{Format: binview.FormatRaw, Arch: binview.ArchARM64, Base: 0x10000}
	a, err := binview.Analyze(context.Background(), data, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	snapshot, _ := a.MarshalBinary()
	b, err := binview.UnmarshalAnalysis(snapshot)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := binview.New("blob", data, b, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Analysis().Arch, binview.Hex(v.Start()), binview.Hex(v.End()))
	// Output: arm64 0x10000 0x10024
}

// The code analysis runs in the background; a caller waits for the
// stage it needs, lays a person's names over the view, and lists.
func ExampleView_WaitCode() {
	code := []byte{
		0xe8, 0x0b, 0x00, 0x00, 0x00, // 0x401000: call 0x401010
		0xc3,                                                       // ret
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, // padding
		0x31, 0xc0, // 0x401010: xor eax, eax
		0xc3, // ret
	}
	v, err := binview.Open(context.Background(), "stub.bin", code,
		&binview.Options{Format: binview.FormatRaw, Arch: binview.ArchX86_64, Base: 0x401000})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer v.Close()
	st, err := v.WaitCode(context.Background(), binview.CodeReferences)
	if err != nil {
		fmt.Println(err)
		return
	}
	names := binview.NewOverlay(map[uint64]string{0x401010: "zero"}, nil)
	for _, f := range v.Functions(st, names) {
		fi, _ := st.Graph.Function(f.Addr)
		fmt.Println(binview.Hex(f.Addr), f.Name, f.Source, len(fi.Callers), "caller(s)")
	}
	addr, _ := addrexpr.Evaluate(context.Background(), "zero + 1", v.WithOverlay(names))
	fmt.Println(binview.Hex(addr))
	// Output:
	// 0x401000 sub_401000 entry 0 caller(s)
	// 0x401010 zero call 1 caller(s)
	// 0x401011
}
