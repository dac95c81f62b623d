package addrexpr

import "errors"

// errUnmapped is the fake target's read error. Its text must never reach
// an Error's message.
var errUnmapped = errors.New("fake: secret-internal-detail: address not mapped")

// fakeTarget is a hand-written Target: a small memory image at memBase,
// a symbol table and a section table. It counts calls so that tests can
// check the evaluator's work is bounded.
type fakeTarget struct {
	syms    map[string]uint64
	secs    map[string][2]uint64
	memBase uint64
	mem     []byte
	here    uint64
	hasHere bool
	start   uint64
	end     uint64
	asize   int

	calls  int        // calls of every method but AddressSize
	reads  []readCall // Read calls, in order
	onRead func()     // called at every Read, if set
}

type readCall struct {
	addr uint64
	size int
}

func newFake(asize int) *fakeTarget {
	return &fakeTarget{
		syms: map[string]uint64{
			"main":                   0x401000,
			"main_end":               0x401040,
			"printf":                 0x402000,
			"add":                    0x403000, // also a hex number
			"1234":                   0x406000, // also a hex number
			"std::vector<int>::size": 0x404000, // needs quotes
			"printf@plt":             0x405000,
			"ptr":                    0x400008,
			"_start":                 0x401100,
			"?Foo@@YAXXZ":            0x407000,
			"big":                    0xffff_ffff_0000_0010,
			"ZERO":                   0,
		},
		secs: map[string][2]uint64{
			".text": {0x401000, 0x410000},
			".data": {0x420000, 0x421000},
			"add":   {0x999000, 0x99a000}, // shadowed by the symbol add
		},
		memBase: 0x400000,
		mem: []byte{
			0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, // 0x400000
			0x00, 0x10, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, // 0x400008: 0x401000
			0x08, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, // 0x400010: 0x400008
		},
		here:    0x401010,
		hasHere: true,
		start:   0x400000,
		end:     0x430000,
		asize:   asize,
	}
}

func (f *fakeTarget) Symbol(name string) (uint64, bool) {
	f.calls++
	a, ok := f.syms[name]
	return a, ok
}

func (f *fakeTarget) Section(name string) (uint64, uint64, bool) {
	f.calls++
	s, ok := f.secs[name]
	return s[0], s[1], ok
}

func (f *fakeTarget) Read(addr uint64, size int) (uint64, error) {
	f.calls++
	f.reads = append(f.reads, readCall{addr, size})
	if f.onRead != nil {
		f.onRead()
	}
	switch size {
	case 1, 2, 4, 8:
	default:
		return 0, errors.New("fake: bad size")
	}
	if addr < f.memBase || addr-f.memBase > uint64(len(f.mem)) || addr-f.memBase+uint64(size) > uint64(len(f.mem)) {
		return 0, errUnmapped
	}
	off := addr - f.memBase
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(f.mem[off+uint64(i)])
	}
	if size < 8 {
		v |= 0xdead << 48 // garbage above size bytes, which the evaluator must drop
	}
	return v, nil
}

func (f *fakeTarget) Here() (uint64, bool) { f.calls++; return f.here, f.hasHere }
func (f *fakeTarget) Start() uint64        { f.calls++; return f.start }
func (f *fakeTarget) End() uint64          { f.calls++; return f.end }
func (f *fakeTarget) AddressSize() int     { return f.asize }
