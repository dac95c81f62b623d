package binview

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Go pclntab magic numbers, by the Go release that introduced them.
const (
	pclnGo12  = 0xfffffffb
	pclnGo116 = 0xfffffffa
	pclnGo118 = 0xfffffff0
	pclnGo120 = 0xfffffff1
)

// pclntab is a parsed Go function table (the runtime's pcHeader and
// the tables it points to). Every access is bounds-checked: a table
// from a hostile file yields fewer functions, never a panic or an
// allocation larger than the table itself.
type pclntab struct {
	data    []byte
	bo      binary.ByteOrder
	version string // "1.2", "1.16", "1.18", "1.20"
	quantum uint64
	ptrSize int
	nfunc   int

	funcnametab, cutab, filetab, pctab, functab []byte
	textStart                                   uint64
	fileCache                                   map[uint32]string
}

// parsePclntab checks the header of a candidate table at the start of
// data and returns it, or an error saying why it is not one.
func parsePclntab(data []byte) (*pclntab, error) {
	if len(data) < 16 {
		return nil, fmt.Errorf("short")
	}
	t := &pclntab{data: data}
	var magic uint32
	switch {
	case binary.LittleEndian.Uint32(data)&0xfffffff0 == 0xfffffff0:
		t.bo = binary.LittleEndian
	case binary.BigEndian.Uint32(data)&0xfffffff0 == 0xfffffff0:
		t.bo = binary.BigEndian
	default:
		return nil, fmt.Errorf("no magic")
	}
	magic = t.bo.Uint32(data)
	if data[4] != 0 || data[5] != 0 {
		return nil, fmt.Errorf("bad padding")
	}
	switch q := data[6]; q {
	case 1, 2, 4:
		t.quantum = uint64(q)
	default:
		return nil, fmt.Errorf("bad quantum")
	}
	switch p := data[7]; p {
	case 4, 8:
		t.ptrSize = int(p)
	default:
		return nil, fmt.Errorf("bad pointer size")
	}
	word := func(i int) (uint64, bool) {
		off := 8 + i*t.ptrSize
		if off+t.ptrSize > len(data) {
			return 0, false
		}
		if t.ptrSize == 8 {
			return t.bo.Uint64(data[off:]), true
		}
		return uint64(t.bo.Uint32(data[off:])), true
	}
	sub := func(off uint64) ([]byte, bool) {
		if off >= uint64(len(data)) {
			return nil, false
		}
		return data[off:], true
	}
	n, ok := word(0)
	if !ok || n == 0 || n > 1<<24 {
		return nil, fmt.Errorf("bad function count")
	}
	t.nfunc = int(n)
	switch magic {
	case pclnGo116, pclnGo118, pclnGo120:
		first := 2
		t.version = "1.16"
		if magic != pclnGo116 {
			first = 3
			t.version = "1.18"
			if magic == pclnGo120 {
				t.version = "1.20"
			}
			t.textStart, _ = word(2)
		}
		var offs [5]uint64
		for i := range offs {
			if offs[i], ok = word(first + i); !ok {
				return nil, fmt.Errorf("short header")
			}
		}
		var ok1, ok2, ok3, ok4, ok5 bool
		t.funcnametab, ok1 = sub(offs[0])
		t.cutab, ok2 = sub(offs[1])
		t.filetab, ok3 = sub(offs[2])
		t.pctab, ok4 = sub(offs[3])
		t.functab, ok5 = sub(offs[4])
		if !(ok1 && ok2 && ok3 && ok4 && ok5) {
			return nil, fmt.Errorf("offsets outside the table")
		}
	case pclnGo12:
		t.version = "1.2"
		t.funcnametab, t.pctab = data, data
		t.functab = data[8+t.ptrSize:]
		// The file table offset follows the function table and its
		// end PC.
		ft := uint64(8+t.ptrSize) + (uint64(t.nfunc)*2+1)*uint64(t.ptrSize)
		if ft+4 > uint64(len(data)) {
			return nil, fmt.Errorf("short function table")
		}
		fo := uint64(t.bo.Uint32(data[ft:]))
		if fo+4 > uint64(len(data)) {
			return nil, fmt.Errorf("bad file table")
		}
		t.filetab = data[fo:]
	default:
		return nil, fmt.Errorf("unknown magic")
	}
	if uint64(t.nfunc+1)*uint64(t.ftabSize()) > uint64(len(t.functab)) {
		return nil, fmt.Errorf("function table outside the data")
	}
	// The first function must have a readable name.
	if _, _, ok := t.funcAt(0); !ok {
		return nil, fmt.Errorf("first function unreadable")
	}
	return t, nil
}

// ftabSize is the size of one function table entry.
func (t *pclntab) ftabSize() int {
	if t.version == "1.18" || t.version == "1.20" {
		return 8
	}
	return 2 * t.ptrSize
}

func (t *pclntab) uintptr(b []byte) uint64 {
	if t.ptrSize == 8 {
		return t.bo.Uint64(b)
	}
	return uint64(t.bo.Uint32(b))
}

// entryRaw returns the i'th function table entry: its PC (relative to
// the text start for 1.18+) and its _func offset.
func (t *pclntab) entryRaw(i int) (pc, funcOff uint64) {
	sz := t.ftabSize()
	e := t.functab[i*sz:]
	if sz == 8 {
		return uint64(t.bo.Uint32(e)), uint64(t.bo.Uint32(e[4:]))
	}
	return t.uintptr(e), t.uintptr(e[t.ptrSize:])
}

// funcAt returns the _func record of function i and its name.
func (t *pclntab) funcAt(i int) (rec []byte, name string, ok bool) {
	_, off := t.entryRaw(i)
	// _func lives in the function data, which is functab for 1.16+ and
	// the whole table for 1.2.
	base := t.functab
	if t.version == "1.2" {
		base = t.data
	}
	if off >= uint64(len(base)) {
		return nil, "", false
	}
	rec = base[off:]
	if len(rec) < t.fieldOff(8)+4 {
		return nil, "", false
	}
	nameOff := uint64(t.field(rec, 1))
	if nameOff >= uint64(len(t.funcnametab)) {
		return nil, "", false
	}
	nb := t.funcnametab[nameOff:]
	if len(nb) > 4096 {
		nb = nb[:4096]
	}
	end := bytes.IndexByte(nb, 0)
	if end <= 0 {
		return nil, "", false
	}
	return rec, string(nb[:end]), true
}

// fieldOff is the offset of the n'th 4-byte field of a _func (n >= 1;
// field 0 is the entry).
func (t *pclntab) fieldOff(n int) int {
	sz0 := t.ptrSize
	if t.version == "1.18" || t.version == "1.20" {
		sz0 = 4
	}
	return sz0 + (n-1)*4
}

func (t *pclntab) field(rec []byte, n int) uint32 {
	return t.bo.Uint32(rec[t.fieldOff(n):])
}

// valueAtEntry decodes the first value of the pc-value table at off:
// the value at the function's entry.
func (t *pclntab) valueAtEntry(off uint32) (int32, bool) {
	if off == 0 || uint64(off) >= uint64(len(t.pctab)) {
		return 0, false
	}
	p := t.pctab[off:]
	uv, n := binary.Uvarint(p)
	if n <= 0 || uv == 0 {
		return 0, false
	}
	v := int32(uv >> 1)
	if uv&1 != 0 {
		v = ^v
	}
	return -1 + v, true
}

// fileName returns the name of file number fileno of the compilation
// unit at cuOff.
func (t *pclntab) fileName(cuOff uint32, fileno int32) string {
	if fileno < 0 {
		return ""
	}
	var off uint32
	if t.version == "1.2" {
		idx := uint64(fileno) * 4
		if idx+4 > uint64(len(t.filetab)) || fileno == 0 {
			return ""
		}
		off = t.bo.Uint32(t.filetab[idx:])
		if uint64(off) >= uint64(len(t.data)) {
			return ""
		}
		return t.cachedString(t.data, off)
	}
	idx := (uint64(cuOff) + uint64(fileno)) * 4
	if idx+4 > uint64(len(t.cutab)) {
		return ""
	}
	off = t.bo.Uint32(t.cutab[idx:])
	if off == ^uint32(0) || uint64(off) >= uint64(len(t.filetab)) {
		return ""
	}
	return t.cachedString(t.filetab, off)
}

func (t *pclntab) cachedString(tab []byte, off uint32) string {
	if s, ok := t.fileCache[off]; ok {
		return s
	}
	b := tab[off:]
	if len(b) > 4096 {
		b = b[:4096]
	}
	s := cString(b)
	if t.fileCache == nil {
		t.fileCache = make(map[uint32]string)
	}
	t.fileCache[off] = s
	return s
}

// functions decodes up to max functions with their entry, end and the
// source position of their entry. textStart is the address of the
// module's text for 1.18+ tables (ignored for older ones, whose entries
// are absolute). It stops early when stop returns true.
func (t *pclntab) functions(textStart uint64, max int, stop func(i int) bool) (fns []GoFunction, truncated bool) {
	n := t.nfunc
	if n > max {
		n, truncated = max, true
	}
	fns = make([]GoFunction, 0, n)
	rel := t.version == "1.18" || t.version == "1.20"
	for i := 0; i < n; i++ {
		if stop != nil && stop(i) {
			return fns, true
		}
		pc, _ := t.entryRaw(i)
		end, _ := t.entryRaw(i + 1)
		if rel {
			pc, end = textStart+pc, textStart+end
		}
		rec, name, ok := t.funcAt(i)
		if !ok {
			continue
		}
		f := GoFunction{Name: name, Entry: pc, End: end}
		if end < pc {
			f.End = pc
		}
		if fileno, ok := t.valueAtEntry(t.field(rec, 5)); ok {
			var cu uint32
			if t.version != "1.2" {
				cu = t.field(rec, 8)
			}
			f.File = t.fileName(cu, fileno)
		}
		if line, ok := t.valueAtEntry(t.field(rec, 6)); ok && line > 0 {
			f.Line = int(line)
		}
		fns = append(fns, f)
	}
	return fns, truncated
}
