package disasm

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/binview/internal/bintest"
)

func sameFlow(a, b Flow) bool {
	a.Imm, b.Imm = a.Imm&0xff, b.Imm&0xff
	return a == b
}

// TestFastFlowMatchesXArch decodes the .text of real binaries linearly
// and holds the fast path to x/arch at every instruction it accepts.
func TestFastFlowMatchesXArch(t *testing.T) {
	paths := map[string]string{"gcc static": bintest.Build(t, bintest.Static), "libc": "/lib/x86_64-linux-gnu/libc.so.6"}
	if out, err := exec.Command("go", "env", "GOTOOLDIR").Output(); err == nil {
		paths["go compile"] = filepath.Join(strings.TrimSpace(string(out)), "compile")
	}
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(path); err != nil {
				t.Skip(err)
			}
			f, err := elf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s := f.Section(".text")
			text, err := s.Data()
			if err != nil {
				t.Fatal(err)
			}
			b := x86Backend{mode: 64}
			var total, fast, bad int
			limit := len(text)
			if raceEnabled {
				limit = min(limit, 1<<20) // the first MiB under the race detector
			}
			for off := 0; off < limit; {
				addr := s.Addr + uint64(off)
				slow := b.slowFlow(text[off:], addr)
				total++
				if ff, ok := b.fastFlow(text[off:], addr); ok {
					fast++
					if !sameFlow(ff, slow) {
						bad++
						if bad <= 10 {
							t.Errorf("%#x % x: fast %+v\n\tx/arch %+v", addr, text[off:off+min(slow.Len, 15, len(text)-off)], ff, slow)
						}
					}
				}
				off += slow.Len
			}
			t.Logf("%s: %d instructions, %.1f%% on the fast path, %d disagreements", name, total, 100*float64(fast)/float64(total), bad)
			if float64(fast)/float64(total) < 0.8 {
				t.Errorf("fast path covers only %d of %d", fast, total)
			}
		})
	}
}

func FuzzFastFlow(f *testing.F) {
	f.Add([]byte{0xe8, 0, 0, 0, 0}, true)
	f.Add([]byte{0x48, 0x8d, 0x05, 0x10, 0, 0, 0}, true)
	f.Add([]byte{0xff, 0x24, 0xc5, 0x00, 0x10, 0x40, 0x00}, false)
	f.Add([]byte{0x66, 0x0f, 0x1f, 0x44, 0, 0}, true)
	f.Fuzz(func(t *testing.T, code []byte, long bool) {
		mode := 32
		if long {
			mode = 64
		}
		b := x86Backend{mode: mode}
		ff, ok := b.fastFlow(code, 0x401000)
		if !ok {
			return
		}
		if slow := b.slowFlow(code, 0x401000); !sameFlow(ff, slow) {
			t.Fatalf("% x (mode %d): fast %+v, x/arch %+v", code, mode, ff, slow)
		}
	})
}

// BenchmarkFastFlow decodes the Go compiler's .text linearly on the fast
// path (x/arch for what it declines), the loop the function stages run.
func BenchmarkFastFlow(b *testing.B) {
	out, err := exec.Command("go", "env", "GOTOOLDIR").Output()
	if err != nil {
		b.Skip(err)
	}
	f, err := elf.Open(filepath.Join(strings.TrimSpace(string(out)), "compile"))
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	s := f.Section(".text")
	text, err := s.Data()
	if err != nil {
		b.Fatal(err)
	}
	text = text[:min(len(text), 4<<20)]
	be := x86Backend{mode: 64}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		for off := 0; off < len(text); {
			ff, ok := be.fastFlow(text[off:], s.Addr+uint64(off))
			if !ok {
				ff = be.slowFlow(text[off:], s.Addr+uint64(off))
			}
			off += max(ff.Len, 1)
		}
	}
}
