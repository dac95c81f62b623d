// Package disasm is one disassembly interface over golang.org/x/arch for
// x86 (16, 32 and 64 bit), arm64, 32-bit ARM (A32 only), riscv64, ppc64
// (both byte orders), s390x and loong64.
//
// A Decoder turns bytes at an address into an Inst: length, bytes,
// mnemonic, operand text and full text in the chosen syntax, plus the
// control-flow facts that analysis needs (kind, direct targets,
// fall-through, data references). Decoding never fails and never panics:
// bytes that do not decode become a "(bad)" instruction one alignment unit
// long, so a listing always advances.
//
// Analysis loops that do not need text call Decoder.Flow, which skips
// formatting and does not allocate.
//
//	d, err := disasm.New(disasm.X86_64, &disasm.Options{Syntax: disasm.Intel, Symbolizer: names})
//	if err != nil {
//		return err // unsupported_arch
//	}
//	for off := 0; off < len(code); {
//		in := d.Decode(code[off:], addr+uint64(off))
//		fmt.Println(in.Text)
//		off += in.Len
//	}
//
// x/arch decodes ENDBR64 and ENDBR32 as a one-byte "rep" prefix; this
// package recognises them. Thumb code cannot be decoded (x/arch has no
// Thumb decoder); ParseArch reports that with unsupported_arch.
package disasm
