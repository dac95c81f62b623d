// Package hostile builds the hostile executables that Warden's tests and
// fuzz targets throw at the binary views engine: small, valid ELF files
// shaped to make an analysis grow without bound (floods of calls, one
// giant basic block, huge symbol tables, functions that overlap). Each
// builder takes a count, so a test chooses how large a file it can
// afford; the shapes are those of files that took servers down.
//
// The files are x86-64 ELF executables: one PT_LOAD segment at
// TextAddr-0x1000 maps the whole file read and execute, .text starts at
// TextAddr, and an optional symbol table names functions in it.
package hostile

import (
	"encoding/binary"
	"fmt"
)

// TextAddr is where every file's .text is loaded.
const TextAddr = 0x401000

// Symbol is a function symbol of the symbol table.
type Symbol struct {
	Name string
	Addr uint64 // absolute: TextAddr + offset into the code
	Size uint64
}

// ELF describes a file: its code, its function symbols and an entry
// point (zero: TextAddr).
type ELF struct {
	Text    []byte
	Symbols []Symbol
	Entry   uint64
}

const (
	ehdrSize = 64
	phdrSize = 56
	shdrSize = 64
	symSize  = 24
	textOff  = 0x1000
	base     = TextAddr - textOff
)

// Bytes lays the file out: headers, .text at file offset 0x1000, then
// .symtab, .strtab, .shstrtab and the section headers.
func (e *ELF) Bytes() []byte {
	le := binary.LittleEndian
	out := make([]byte, textOff, textOff+len(e.Text)+len(e.Symbols)*(symSize+24)+4096)
	out = append(out, e.Text...)
	align := func(n int) {
		for len(out)%n != 0 {
			out = append(out, 0)
		}
	}
	type section struct {
		name                   string
		typ                    uint32
		flags, addr, off, size uint64
		link, info             uint32
		align, entsize         uint64
	}
	shstr := []byte{0}
	addName := func(n string) uint32 {
		off := uint32(len(shstr))
		shstr = append(append(shstr, n...), 0)
		return off
	}
	sections := []section{{}}
	sections = append(sections, section{name: ".text", typ: 1 /* PROGBITS */, flags: 6, /* ALLOC|EXECINSTR */
		addr: TextAddr, off: textOff, size: uint64(len(e.Text)), align: 16})
	if len(e.Symbols) > 0 {
		align(8)
		symOff := len(out)
		strtab := []byte{0}
		out = append(out, make([]byte, symSize)...) // the null symbol
		for _, s := range e.Symbols {
			var sym [symSize]byte
			le.PutUint32(sym[0:], uint32(len(strtab)))
			strtab = append(append(strtab, s.Name...), 0)
			sym[4] = 1<<4 | 2        // GLOBAL FUNC
			le.PutUint16(sym[6:], 1) // .text
			le.PutUint64(sym[8:], s.Addr)
			le.PutUint64(sym[16:], s.Size)
			out = append(out, sym[:]...)
		}
		symLen := len(out) - symOff
		strOff := len(out)
		out = append(out, strtab...)
		sections = append(sections,
			section{name: ".symtab", typ: 2 /* SYMTAB */, off: uint64(symOff), size: uint64(symLen), link: 3, info: 1, align: 8, entsize: symSize},
			section{name: ".strtab", typ: 3 /* STRTAB */, off: uint64(strOff), size: uint64(len(strtab)), align: 1})
	}
	names := make([]uint32, len(sections))
	for i := 1; i < len(sections); i++ {
		names[i] = addName(sections[i].name)
	}
	shstrNameOff := addName(".shstrtab")
	shstrOff := len(out)
	out = append(out, shstr...)
	sections = append(sections, section{name: ".shstrtab", typ: 3, off: uint64(shstrOff), size: uint64(len(shstr)), align: 1})
	names = append(names, shstrNameOff)
	align(8)
	shOff := len(out)
	for i, s := range sections {
		var sh [shdrSize]byte
		le.PutUint32(sh[0:], names[i])
		le.PutUint32(sh[4:], s.typ)
		le.PutUint64(sh[8:], s.flags)
		le.PutUint64(sh[16:], s.addr)
		le.PutUint64(sh[24:], s.off)
		le.PutUint64(sh[32:], s.size)
		le.PutUint32(sh[40:], s.link)
		le.PutUint32(sh[44:], s.info)
		le.PutUint64(sh[48:], s.align)
		le.PutUint64(sh[56:], s.entsize)
		out = append(out, sh[:]...)
	}
	// ELF header.
	h := out[:ehdrSize]
	copy(h, "\x7fELF")
	h[4], h[5], h[6] = 2, 1, 1 // 64-bit, little-endian, version 1
	le.PutUint16(h[16:], 2)    // ET_EXEC
	le.PutUint16(h[18:], 62)   // EM_X86_64
	le.PutUint32(h[20:], 1)
	entry := e.Entry
	if entry == 0 {
		entry = TextAddr
	}
	le.PutUint64(h[24:], entry)
	le.PutUint64(h[32:], ehdrSize) // program headers follow
	le.PutUint64(h[40:], uint64(shOff))
	le.PutUint16(h[52:], ehdrSize)
	le.PutUint16(h[54:], phdrSize)
	le.PutUint16(h[56:], 1)
	le.PutUint16(h[58:], shdrSize)
	le.PutUint16(h[60:], uint16(len(sections)))
	le.PutUint16(h[62:], uint16(len(sections)-1)) // .shstrtab is last
	// One PT_LOAD mapping the file's first part (headers and .text).
	p := out[ehdrSize : ehdrSize+phdrSize]
	le.PutUint32(p[0:], 1) // PT_LOAD
	le.PutUint32(p[4:], 5) // R+X
	le.PutUint64(p[8:], 0) // offset
	le.PutUint64(p[16:], base)
	le.PutUint64(p[24:], base)
	end := uint64(textOff + len(e.Text))
	le.PutUint64(p[32:], end)
	le.PutUint64(p[40:], end)
	le.PutUint64(p[48:], 0x1000)
	return out
}

// CallFlood is n copies of `call $+5` (e8 00 00 00 00) and a return, with
// no symbols: every instruction calls the next, so every instruction
// starts a function, and what is left when the function budget is spent
// is one enormous function. Five bytes an instruction.
func CallFlood(n int) []byte {
	text := make([]byte, 0, 5*n+1)
	for i := 0; i < n; i++ {
		text = append(text, 0xe8, 0, 0, 0, 0)
	}
	text = append(text, 0xc3)
	return (&ELF{Text: text}).Bytes()
}

// GiantBlock is one function, main, of n `movabs rax, imm64` (ten bytes
// each) and a return: a single basic block of n+1 instructions.
func GiantBlock(n int) []byte {
	text := make([]byte, 0, 10*n+1)
	for i := 0; i < n; i++ {
		text = append(text, 0x48, 0xb8, byte(i), byte(i>>8), byte(i>>16), 0, 0, 0, 0, 0)
	}
	text = append(text, 0xc3)
	return (&ELF{Text: text, Symbols: []Symbol{{Name: "main", Addr: TextAddr, Size: uint64(len(text))}}}).Bytes()
}

// SymbolFlood is n one-byte functions (a return each) and a symbol table
// naming every one with a distinct name of about nameLen bytes: 24 bytes
// of table and nameLen+1 of strings per symbol.
func SymbolFlood(n, nameLen int) []byte {
	text := make([]byte, n)
	for i := range text {
		text[i] = 0xc3
	}
	syms := make([]Symbol, n)
	pad := make([]byte, max(0, nameLen-12))
	for i := range pad {
		pad[i] = 'x'
	}
	for i := range syms {
		syms[i] = Symbol{Name: fmt.Sprintf("f%s_%09d", pad, i), Addr: TextAddr + uint64(i), Size: 1}
	}
	return (&ELF{Text: text, Symbols: syms}).Bytes()
}

// Overlapping is n functions that share their code: a sled of width
// two-byte nops (66 90) ended by a return, and a symbol at every odd
// offset of its first 2n bytes, where the one-byte 90 starts a chain of
// nops that never meets another symbol. Each function's code is
// therefore all the code after it: building every function's blocks
// decodes about n times width instructions.
func Overlapping(n, width int) []byte {
	width = max(width, n)
	text := make([]byte, 0, 2*width+1)
	for i := 0; i < width; i++ {
		text = append(text, 0x66, 0x90)
	}
	text = append(text, 0xc3)
	syms := make([]Symbol, n)
	for i := range syms {
		off := 2*i + 1
		syms[i] = Symbol{Name: fmt.Sprintf("overlap_%d", i), Addr: TextAddr + uint64(off), Size: uint64(len(text) - off)}
	}
	return (&ELF{Text: text, Symbols: syms}).Bytes()
}
