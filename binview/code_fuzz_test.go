package binview

import (
	"context"
	"testing"

	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/errcode"
)

// fuzzInstructions is the instruction budget of a fuzzed file's code
// analysis.
const fuzzInstructions = 1 << 12

// exerciseCode runs a view's whole code analysis and every entry point
// the code tools reach: it must end (never hang), stay within its
// instruction budget, and never fail with an internal error (a recovered
// panic).
func exerciseCode(t *testing.T, v *View) {
	t.Helper()
	st, err := v.WaitCode(context.Background(), CodeReferences)
	if err != nil || st.Running && st.Stage < CodeReferences {
		t.Fatalf("the code analysis did not end: %v", err)
	}
	if errcode.CodeOf(st.Err) == "internal_error" {
		t.Fatalf("the code analysis failed: %v", errorsUnwrapAll(st.Err))
	}
	if st.Progress.Instructions > v.o.MaxInstructions {
		t.Fatalf("%d instructions decoded, budget %d", st.Progress.Instructions, v.o.MaxInstructions)
	}
	o := NewOverlay(map[uint64]string{v.Start(): "fuzz_name"}, []uint64{v.Start() + 1})
	fns := v.Functions(st, o)
	_ = ListFunctions(fns, FunctionQuery{Query: Query{Text: "sub", Limit: 5}, Source: "call"})
	sym := v.Symbolizer(o, fns)
	for i, f := range fns {
		if i >= 4 {
			break
		}
		_, _, _ = sym(f.Addr + 1)
		_, _ = v.FunctionGraph(st, o, f.Addr, disasm.GNU)
		_, _ = v.Disassemble(f.Addr, 16, &disasm.Options{Symbolizer: sym})
		_, _, _ = v.DisassembleSpans(nil, 0, 4, nil)
	}
	v.Close()
}

func errorsUnwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}

// FuzzCode opens random bytes as raw code of each architecture at a
// fuzzed base and runs the whole code analysis on them.
func FuzzCode(f *testing.F) {
	for _, dir := range []string{"elf", "pe", "macho"} {
		for i, b := range seedFiles(f, dir) {
			f.Add(b, uint8(i), uint64(0x400000))
		}
	}
	f.Add([]byte{0xe8, 0, 0, 0, 0, 0xc3, 0xf3, 0x0f, 0x1e, 0xfa, 0xeb, 0xfe}, uint8(1), uint64(0x1000))
	f.Add([]byte{0xff, 0x24, 0xc5, 0, 0x10, 0, 0, 0xcc}, uint8(1), uint64(0x1000))
	f.Fuzz(func(t *testing.T, data []byte, arch uint8, base uint64) {
		if len(data) > 8<<10 {
			return
		}
		opts := fuzzLimits
		opts.Format, opts.Arch, opts.Base = FormatRaw, Arches[int(arch)%len(Arches)], base
		opts.BigEndian = arch&0x80 != 0
		v, err := Open(context.Background(), "fuzz", data, &opts)
		if err != nil {
			if errcode.CodeOf(err) == "" {
				t.Fatalf("an error without a code: %v", err)
			}
			return
		}
		exerciseCode(t, v)
	})
}
