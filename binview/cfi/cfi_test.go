package cfi

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/binview/internal/bintest"
	"github.com/warden-mcp/warden/errcode"
)

var readelfFDE = regexp.MustCompile(`FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)`)

// readelfRanges runs readelf --debug-dump=frames and returns the FDE
// ranges of the named section.
func readelfRanges(t *testing.T, path, section string) []Range {
	t.Helper()
	out, err := exec.Command(bintest.Tool(t, "readelf"), "--debug-dump=frames", path).Output()
	if err != nil && len(out) == 0 {
		t.Fatalf("readelf: %v", err)
	}
	var rs []Range
	in := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := regexp.MustCompile(`^Contents of the (\S+) section`).FindStringSubmatch(line); m != nil {
			in = m[1] == section
			continue
		}
		if m := readelfFDE.FindStringSubmatch(line); in && m != nil {
			s, _ := strconv.ParseUint(m[1], 16, 64)
			e, _ := strconv.ParseUint(m[2], 16, 64)
			rs = append(rs, Range{s, e})
		}
	}
	return rs
}

func normalizeRanges(rs []Range) []Range {
	t := &Table{}
	for _, r := range rs {
		t.FDEs = append(t.FDEs, FDE{Start: r.Start, End: r.End})
	}
	return t.Ranges()
}

func sectionOf(t *testing.T, path, name string) ([]byte, uint64, *elf.File) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	s := f.Section(name)
	if s == nil {
		t.Skipf("%s has no %s", path, name)
	}
	b, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return b, s.Addr, f
}

// TestAgainstReadelf parses real sections and compares every FDE range
// with what binutils' readelf prints.
func TestAgainstReadelf(t *testing.T) {
	cases := []struct {
		name, path, section string
	}{
		{"gcc -O2", bintest.Build(t, bintest.Dynamic), ".eh_frame"},
		{"gcc -O2 -static", bintest.Build(t, bintest.Static), ".eh_frame"},
		{"gcc -g, no unwind tables", bintest.Build(t, bintest.DebugFrameOnly), ".debug_frame"},
		{"libc", "/lib/x86_64-linux-gnu/libc.so.6", ".eh_frame"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.path); err != nil {
				t.Skip(err)
			}
			data, addr, f := sectionOf(t, c.path, c.section)
			opts := &Options{Addr: addr, PtrSize: 8, ByteOrder: f.ByteOrder}
			var tab *Table
			var err error
			if c.section == ".debug_frame" {
				tab, err = ParseDebugFrame(data, opts)
			} else {
				tab, err = ParseEHFrame(data, opts)
			}
			if err != nil {
				t.Fatal(err)
			}
			want := normalizeRanges(readelfRanges(t, c.path, c.section))
			got := tab.Ranges()
			if len(want) == 0 {
				t.Fatal("readelf listed no FDE")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("ranges differ from readelf (-readelf +ours):\n%s", diff)
			}
			t.Logf("%d CIEs, %d FDEs, %d ranges", len(tab.CIEs), len(tab.FDEs), len(got))
		})
	}
}

func TestEHFrameHdrMatchesEHFrame(t *testing.T) {
	path := bintest.Build(t, bintest.Dynamic)
	eh, ehAddr, f := sectionOf(t, path, ".eh_frame")
	hdr, hdrAddr, _ := sectionOf(t, path, ".eh_frame_hdr")
	h, err := ParseEHFrameHdr(hdr, &Options{Addr: hdrAddr, ByteOrder: f.ByteOrder})
	if err != nil {
		t.Fatal(err)
	}
	if h.EHFrame != ehAddr {
		t.Fatalf("eh_frame_ptr %#x, section at %#x", h.EHFrame, ehAddr)
	}
	tab, err := ParseEHFrame(eh, &Options{Addr: ehAddr})
	if err != nil {
		t.Fatal(err)
	}
	var want, got []uint64
	for _, r := range tab.Ranges() {
		want = append(want, r.Start)
	}
	for _, e := range h.Entries {
		got = append(got, e.Start)
	}
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("hdr table and FDE starts differ:\n%s", diff)
	}
}

// builder writes synthetic CFI.
type builder struct {
	buf   bytes.Buffer
	order binary.ByteOrder
	dw64  bool
}

func (b *builder) u8(v uint8)   { b.buf.WriteByte(v) }
func (b *builder) u16(v uint16) { b.buf.Write(b.order.(binary.AppendByteOrder).AppendUint16(nil, v)) }
func (b *builder) u32(v uint32) { b.buf.Write(b.order.(binary.AppendByteOrder).AppendUint32(nil, v)) }
func (b *builder) u64(v uint64) { b.buf.Write(b.order.(binary.AppendByteOrder).AppendUint64(nil, v)) }
func (b *builder) uleb(v uint64) {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			c |= 0x80
		}
		b.u8(c)
		if v == 0 {
			return
		}
	}
}

// entry writes a length-prefixed entry whose body (after the id) comes
// from body. It returns the entry's offset and the id field's offset.
func (b *builder) entry(id uint64, body func(b *builder, idOff int)) (int, int) {
	start := b.buf.Len()
	var inner builder
	inner.order, inner.dw64 = b.order, b.dw64
	idLen := 4
	if b.dw64 {
		idLen = 8
	}
	hdrLen := 4
	if b.dw64 {
		hdrLen = 12
	}
	idOff := start + hdrLen
	if b.dw64 {
		inner.u64(id)
	} else {
		inner.u32(uint32(id))
	}
	body(&inner, idOff)
	if b.dw64 {
		b.u32(0xffffffff)
		b.u64(uint64(inner.buf.Len()))
	} else {
		b.u32(uint32(inner.buf.Len()))
	}
	_ = idLen
	b.buf.Write(inner.buf.Bytes())
	return start, idOff
}

func TestSyntheticEncodings(t *testing.T) {
	const sec = 0x10000
	type fde struct {
		enc       uint8
		write     func(b *builder, fieldAddr uint64)
		length    uint64
		wantStart uint64
	}
	tests := []struct {
		name    string
		order   binary.ByteOrder
		dw64    bool
		ptrSize int
		aug     string
		fdes    []fde
		read    func(uint64) (uint64, bool)
	}{
		{"pcrel sdata4 little-endian", binary.LittleEndian, false, 8, "zR", []fde{{
			enc: 0x1b, write: func(b *builder, at uint64) { b.u32(uint32(int32(0x401000 - int64(at)))) }, length: 0x20, wantStart: 0x401000}}, nil},
		{"absptr 32-bit big-endian", binary.BigEndian, false, 4, "zR", []fde{{
			enc: 0x00, write: func(b *builder, at uint64) { b.u32(0x8000) }, length: 0x10, wantStart: 0x8000}}, nil},
		{"udata8 DWARF64", binary.LittleEndian, true, 8, "zR", []fde{{
			enc: 0x04, write: func(b *builder, at uint64) { b.u64(0x7000000000) }, length: 0x30, wantStart: 0x7000000000}}, nil},
		{"textrel udata2", binary.LittleEndian, false, 8, "zR", []fde{{
			enc: 0x22, write: func(b *builder, at uint64) { b.u16(0x40) }, length: 2, wantStart: 0x400040}}, nil},
		{"datarel uleb128", binary.LittleEndian, false, 8, "zR", []fde{{
			enc: 0x31, write: func(b *builder, at uint64) { b.uleb(0x300) }, length: 4, wantStart: 0x600300}}, nil},
		{"indirect pcrel sdata8", binary.LittleEndian, false, 8, "zR", []fde{{
			enc: 0x9c, write: func(b *builder, at uint64) { b.u64(uint64(0x20000 - int64(at))) }, length: 8, wantStart: 0x123456}},
			func(a uint64) (uint64, bool) { return 0x123456, a == 0x20000 }},
		{"personality, LSDA and signal frame", binary.LittleEndian, false, 8, "zPLRS", []fde{{
			enc: 0x03, write: func(b *builder, at uint64) { b.u32(0x5000) }, length: 0x10, wantStart: 0x5000}}, nil},
		{"no augmentation, absptr", binary.LittleEndian, false, 8, "", []fde{{
			enc: 0x00, write: func(b *builder, at uint64) { b.u64(0x9000) }, length: 0x11, wantStart: 0x9000}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &builder{order: tt.order, dw64: tt.dw64}
			for _, f := range tt.fdes {
				cieOff, _ := b.entry(0, func(c *builder, _ int) {
					c.u8(1)
					c.buf.WriteString(tt.aug)
					c.u8(0)
					c.uleb(1)
					c.u8(0x78) // data align -8
					c.u8(16)
					if tt.aug != "" {
						var a builder
						a.order = tt.order
						for _, ch := range tt.aug[1:] {
							switch ch {
							case 'P':
								a.u8(0x03)
								a.u32(0xabcd)
							case 'L':
								a.u8(0x03)
							case 'R':
								a.u8(f.enc)
							}
						}
						c.uleb(uint64(a.buf.Len()))
						c.buf.Write(a.buf.Bytes())
					}
				})
				b.entry(0, func(e *builder, idOff int) {
					// Patch the id to point back at the CIE.
					id := uint64(idOff - cieOff)
					e.buf.Reset()
					if tt.dw64 {
						e.u64(id)
					} else {
						e.u32(uint32(id))
					}
					fieldAddr := uint64(sec + idOff + e.buf.Len())
					f.write(e, fieldAddr)
					switch {
					case f.enc&0x0f == 0x01:
						e.uleb(f.length)
					case f.enc&0x0f == 0x02:
						e.u16(uint16(f.length))
					case f.enc&0x0f == 0x03 || f.enc == 0x00 && tt.ptrSize == 4 || f.enc&0x0f == 0x0b:
						e.u32(uint32(f.length))
					default:
						e.u64(f.length)
					}
					if tt.aug != "" {
						if bytes.ContainsRune([]byte(tt.aug), 'L') {
							e.uleb(4)
							e.u32(0x7777)
						} else {
							e.uleb(0)
						}
					}
				})
			}
			b.u32(0) // terminator
			tab, err := ParseEHFrame(b.buf.Bytes(), &Options{Addr: sec, TextAddr: 0x400000, DataAddr: 0x600000,
				PtrSize: tt.ptrSize, ByteOrder: tt.order, ReadPointer: tt.read})
			if err != nil {
				t.Fatal(err)
			}
			if len(tab.FDEs) != len(tt.fdes) {
				t.Fatalf("%d FDEs, want %d", len(tab.FDEs), len(tt.fdes))
			}
			for i, f := range tt.fdes {
				got := tab.FDEs[i]
				if got.Start != f.wantStart || got.End != f.wantStart+f.length {
					t.Errorf("FDE %d = [%#x, %#x), want [%#x, %#x)", i, got.Start, got.End, f.wantStart, f.wantStart+f.length)
				}
			}
			if c := tab.CIEs[0]; tt.aug == "zPLRS" && (!c.Signal || c.Personality != 0xabcd || tab.FDEs[0].LSDA != 0x7777) {
				t.Errorf("augmentation not read: %+v %+v", c, tab.FDEs[0])
			}
		})
	}
}

func TestHostile(t *testing.T) {
	le := binary.LittleEndian
	tests := []struct {
		name string
		data []byte
		code string
	}{
		{"length past the end", le.AppendUint32(nil, 0x7fffffff), "malformed_cfi"},
		{"DWARF64 length past the end", append(le.AppendUint32(nil, 0xffffffff), le.AppendUint64(nil, 1<<62)...), "malformed_cfi"},
		{"FDE pointing before the section", append(le.AppendUint32(nil, 8), append(le.AppendUint32(nil, 0x1000), 0, 0, 0, 0)...), "malformed_cfi"},
		{"truncated header", []byte{1, 2}, "malformed_cfi"},
		{"CIE with a bad version", append(le.AppendUint32(nil, 8), append(le.AppendUint32(nil, 0), 9, 0, 0, 0)...), "malformed_cfi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEHFrame(tt.data, nil)
			if errcode.CodeOf(err) != tt.code {
				t.Fatalf("err = %v, want code %s", err, tt.code)
			}
		})
	}
	// Many small CIEs stop at the cap.
	var many []byte
	for i := 0; i < 100; i++ {
		many = append(many, le.AppendUint32(nil, 9)...)
		many = append(many, le.AppendUint32(nil, 0)...)
		many = append(many, 1, 0, 1, 0x78, 16)
	}
	if _, err := ParseEHFrame(many, &Options{MaxEntries: 10}); errcode.CodeOf(err) != "too_many_entries" {
		t.Fatalf("cap: %v", err)
	}
}

func TestTestdata(t *testing.T) {
	eh, err := os.ReadFile("testdata/hello.eh_frame")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := ParseEHFrame(eh, &Options{Addr: 0x2038})
	if err != nil {
		t.Fatal(err)
	}
	want := []Range{{0x1020, 0x1040}, {0x1040, 0x1048}, {0x1050, 0x106e}, {0x1070, 0x1092}}
	if diff := cmp.Diff(want, tab.Ranges()); diff != "" {
		t.Fatal(diff)
	}
	dbg, err := os.ReadFile("testdata/hello.debug_frame")
	if err != nil {
		t.Fatal(err)
	}
	tab, err = ParseDebugFrame(dbg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Range{{0x1050, 0x106e}}, tab.Ranges()); diff != "" {
		t.Fatal(diff)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"hello.eh_frame", "hello.debug_frame", "hello.eh_frame_hdr"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint64(0x2038), false)
		f.Add(b, uint64(0), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, addr uint64, big bool) {
		var order binary.ByteOrder = binary.LittleEndian
		if big {
			order = binary.BigEndian
		}
		for _, ps := range []int{4, 8} {
			o := &Options{Addr: addr, PtrSize: ps, ByteOrder: order, MaxEntries: 1000,
				ReadPointer: func(a uint64) (uint64, bool) { return a ^ 0xff, true }}
			for _, parse := range []func([]byte, *Options) (*Table, error){ParseEHFrame, ParseDebugFrame} {
				tab, err := parse(data, o)
				if err != nil && errcode.CodeOf(err) == "" {
					t.Fatalf("error without a code: %v", err)
				}
				if tab == nil {
					t.Fatal("nil table")
				}
				if len(tab.FDEs)+len(tab.CIEs) > 1000 {
					t.Fatalf("cap exceeded: %d", len(tab.FDEs)+len(tab.CIEs))
				}
				for _, r := range tab.Ranges() {
					if r.End <= r.Start {
						t.Fatalf("empty range %+v", r)
					}
				}
			}
			if h, err := ParseEHFrameHdr(data, o); err == nil && len(h.Entries) > 1000 {
				t.Fatalf("hdr cap exceeded")
			}
		}
	})
}
