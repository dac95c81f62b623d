package binview

import (
	"bytes"
	"encoding/binary"
	"runtime/debug"
	"strings"
)

// GoBuild is what a Go binary says about its build.
type GoBuild struct {
	// Version is the Go toolchain ("go1.26.8").
	Version string `json:"version,omitempty"`
	// Path is the main package path.
	Path string `json:"path,omitempty"`
	// Main is the main module.
	Main *Module `json:"main,omitempty"`
	// Deps are the dependency modules, in the order the binary lists
	// them.
	Deps []Module `json:"deps,omitempty"`
	// Settings are the build settings (-ldflags, GOOS, vcs.revision).
	Settings []Setting `json:"settings,omitempty"`
	// Pclntab is the function table's format ("1.20" covers Go 1.20
	// and later), empty when none was found.
	Pclntab string `json:"pclntab,omitempty"`
	// PclntabAddr is where the function table starts.
	PclntabAddr uint64 `json:"pclntabAddr,omitempty"`
	// Functions counts the functions the table lists.
	Functions int `json:"functions,omitempty"`
}

// Module is a Go module.
type Module struct {
	Path    string  `json:"path"`
	Version string  `json:"version,omitempty"`
	Sum     string  `json:"sum,omitempty"`
	Replace *Module `json:"replace,omitempty"`
}

// Setting is a key and a value.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// goFunctions finds the pclntab (the section the format names, else a
// search for its magic number) and decodes the functions.
func (b *builder) goFunctions() {
	var t *pclntab
	addr := b.goPclntabAddr
	if b.goPclntab != nil {
		t, _ = parsePclntab(b.goPclntab)
	}
	if t == nil {
		var off int64
		t, off = b.findPclntab()
		if t == nil {
			return
		}
		addr, _ = b.addrOfOffset(off)
	}
	text := b.goText(t, addr)
	fns, truncated := t.functions(text, b.o.MaxFunctions, func(i int) bool { return b.check(i) != nil })
	if truncated {
		b.warn(WarnTruncated, "Go functions were cut at the limit")
	}
	b.a.GoFunctions = fns
	if b.a.Build.Go == nil {
		b.a.Build.Go = &GoBuild{}
	}
	b.a.Build.Go.Pclntab = t.version
	b.a.Build.Go.PclntabAddr = addr
	b.a.Build.Go.Functions = t.nfunc
}

// findPclntab searches the file for a pclntab header.
func (b *builder) findPclntab() (*pclntab, int64) {
	magics := [][]byte{
		{0xf1, 0xff, 0xff, 0xff, 0, 0}, {0xff, 0xff, 0xff, 0xf1, 0, 0},
		{0xf0, 0xff, 0xff, 0xff, 0, 0}, {0xff, 0xff, 0xff, 0xf0, 0, 0},
		{0xfa, 0xff, 0xff, 0xff, 0, 0}, {0xff, 0xff, 0xff, 0xfa, 0, 0},
		{0xfb, 0xff, 0xff, 0xff, 0, 0}, {0xff, 0xff, 0xff, 0xfb, 0, 0},
	}
	for _, m := range magics {
		off := 0
		for tries := 0; tries < 64; tries++ {
			i := bytes.Index(b.data[off:], m)
			if i < 0 {
				break
			}
			at := off + i
			if t, err := parsePclntab(b.data[at:]); err == nil {
				return t, int64(at)
			}
			off = at + 1
		}
	}
	return nil, 0
}

// goText returns the address of the module's text for a 1.18+ table:
// the moduledata's text field when the moduledata can be found, else
// the header's (pre-1.20) field, else the text section's address.
func (b *builder) goText(t *pclntab, pclnAddr uint64) uint64 {
	if t.version != "1.18" && t.version != "1.20" {
		return 0
	}
	if pclnAddr != 0 {
		if text, ok := b.moduledataText(t, pclnAddr); ok {
			return text
		}
	}
	if t.textStart != 0 {
		return t.textStart
	}
	return b.goTextStart
}

// moduledataText finds runtime.firstmoduledata by its first two
// fields (the pclntab header's address, then the function name table's)
// and returns its text field.
func (b *builder) moduledataText(t *pclntab, pclnAddr uint64) (uint64, bool) {
	ps := t.ptrSize
	pat := make([]byte, 2*ps)
	funcname := pclnAddr + uint64(len(t.data)-len(t.funcnametab))
	if ps == 8 {
		t.bo.PutUint64(pat, pclnAddr)
		t.bo.PutUint64(pat[8:], funcname)
	} else {
		t.bo.PutUint32(pat, uint32(pclnAddr))
		t.bo.PutUint32(pat[4:], uint32(funcname))
	}
	i := bytes.Index(b.data, pat)
	if i < 0 {
		return 0, false
	}
	// pcHeader, five slices (three words each), ftab (three words),
	// findfunctab, minpc, maxpc, text.
	textAt := i + 22*ps
	if textAt+ps > len(b.data) {
		return 0, false
	}
	text := t.uintptr(b.data[textAt:])
	minpc := t.uintptr(b.data[i+20*ps:])
	first, _ := t.entryRaw(0)
	if text == 0 || text+first != minpc {
		return 0, false
	}
	return text, true
}

// addrOfOffset maps a file offset to an address through the segments.
func (b *builder) addrOfOffset(off int64) (uint64, bool) {
	for _, s := range b.a.Segments {
		if off >= s.Offset && off-s.Offset < s.FileSize {
			return s.Addr + uint64(off-s.Offset), true
		}
	}
	return 0, false
}

// offsetOfAddr maps an address to a file offset through the segments.
func (b *builder) offsetOfAddr(addr uint64) (int64, bool) {
	for _, s := range b.a.Segments {
		if addr >= s.Addr && addr-s.Addr < uint64(s.FileSize) {
			return s.Offset + int64(addr-s.Addr), true
		}
	}
	return 0, false
}

var buildInfoMagic = []byte("\xff Go buildinf:")

// goBuild reads Go's build information: the toolchain version and the
// module list.
func (b *builder) goBuild() {
	hay := b.goBuildInfo
	if hay == nil {
		hay = b.data
	}
	off := 0
	for tries := 0; tries < 16; tries++ {
		i := bytes.Index(hay[off:], buildInfoMagic)
		if i < 0 {
			return
		}
		at := off + i
		if vers, mod, ok := b.readBuildInfo(hay[at:]); ok {
			g := b.a.Build.Go
			if g == nil {
				g = &GoBuild{}
				b.a.Build.Go = g
			}
			g.Version = vers
			fillModules(g, mod)
			return
		}
		off = at + 1
	}
}

// readBuildInfo decodes the header at the start of h.
func (b *builder) readBuildInfo(h []byte) (vers, mod string, ok bool) {
	const hdr = 32
	if len(h) < hdr {
		return "", "", false
	}
	ptrSize, flags := int(h[14]), h[15]
	if flags&2 != 0 {
		// Go 1.18+: two varint-prefixed strings follow the header.
		rest := h[hdr:]
		vers, rest, ok = varString(rest)
		if !ok {
			return "", "", false
		}
		mod, _, ok = varString(rest)
		return vers, stripModInfo(mod), ok && strings.HasPrefix(vers, "go")
	}
	if ptrSize != 4 && ptrSize != 8 {
		return "", "", false
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if flags&1 != 0 {
		bo = binary.BigEndian
	}
	word := func(p []byte) uint64 {
		if ptrSize == 8 {
			return bo.Uint64(p)
		}
		return uint64(bo.Uint32(p))
	}
	readStr := func(addr uint64) (string, bool) {
		off, ok := b.offsetOfAddr(addr)
		if !ok || off+int64(2*ptrSize) > int64(len(b.data)) {
			return "", false
		}
		p, n := word(b.data[off:]), word(b.data[off+int64(ptrSize):])
		if n > 1<<20 {
			return "", false
		}
		so, ok := b.offsetOfAddr(p)
		if !ok {
			return "", false
		}
		bs, ok := b.fileBytes(so, n)
		return string(bs), ok
	}
	vers, ok1 := readStr(word(h[16:]))
	mod, ok2 := readStr(word(h[16+ptrSize:]))
	return vers, stripModInfo(mod), ok1 && ok2 && strings.HasPrefix(vers, "go")
}

func varString(b []byte) (string, []byte, bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) || n > 1<<20 {
		return "", nil, false
	}
	return string(b[k : k+int(n)]), b[k+int(n):], true
}

// stripModInfo removes the 16-byte sentinels around the module info.
func stripModInfo(s string) string {
	if len(s) >= 33 && s[len(s)-17] == '\n' {
		return s[16 : len(s)-16]
	}
	return s
}

func fillModules(g *GoBuild, mod string) {
	if mod == "" {
		return
	}
	bi, err := debug.ParseBuildInfo(mod)
	if err != nil {
		return
	}
	g.Path = bi.Path
	conv := func(m *debug.Module) *Module {
		if m == nil {
			return nil
		}
		return &Module{Path: m.Path, Version: m.Version, Sum: m.Sum}
	}
	if bi.Main.Path != "" {
		g.Main = conv(&bi.Main)
		g.Main.Replace = conv(bi.Main.Replace)
	}
	for _, d := range bi.Deps {
		if len(g.Deps) >= 1<<14 {
			break
		}
		m := conv(d)
		m.Replace = conv(d.Replace)
		g.Deps = append(g.Deps, *m)
	}
	for _, s := range bi.Settings {
		if len(g.Settings) >= 1<<10 {
			break
		}
		g.Settings = append(g.Settings, Setting{Key: s.Key, Value: s.Value})
	}
}
