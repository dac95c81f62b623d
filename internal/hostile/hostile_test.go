package hostile

import (
	"bytes"
	"debug/elf"
	"testing"
)

// Every shape is a valid ELF file the standard library reads, with the
// code and symbols its builder promises.
func TestShapesAreValidELF(t *testing.T) {
	for _, c := range []struct {
		name     string
		data     []byte
		text     int
		symbols  int
		firstSym string
	}{
		{"calls", CallFlood(100), 501, 0, ""},
		{"block", GiantBlock(100), 1001, 1, "main"},
		{"symbols", SymbolFlood(50, 20), 50, 50, "fxxxxxxxx_000000000"},
		{"overlap", Overlapping(10, 20), 41, 10, "overlap_0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := elf.NewFile(bytes.NewReader(c.data))
			if err != nil {
				t.Fatal(err)
			}
			text := f.Section(".text")
			if text == nil || text.Addr != TextAddr || int(text.Size) != c.text || f.Entry != TextAddr {
				t.Fatalf(".text %+v, entry %#x", text, f.Entry)
			}
			if len(f.Progs) != 1 || f.Progs[0].Vaddr+f.Progs[0].Memsz != TextAddr+uint64(c.text) {
				t.Errorf("segments %+v", f.Progs)
			}
			syms, err := f.Symbols()
			if c.symbols == 0 {
				if err == nil {
					t.Errorf("%d symbols, want none", len(syms))
				}
				return
			}
			if err != nil || len(syms) != c.symbols || syms[0].Name != c.firstSym || elf.ST_TYPE(syms[0].Info) != elf.STT_FUNC {
				t.Errorf("symbols: %v, %d, %+v", err, len(syms), syms[:min(1, len(syms))])
			}
		})
	}
}
