// Package cfi parses DWARF call-frame information, the .eh_frame,
// .eh_frame_hdr and .debug_frame sections, far enough to list the
// functions it describes: every FDE's [start, end) range.
//
// Function discovery starts from these ranges (compilers emit an FDE for
// almost every function, including the .cold parts gcc splits out), so the
// parser reads CIEs and FDEs in both byte orders, 32- and 64-bit DWARF
// (the 0xffffffff length escape), CIE versions 1, 3 and 4, the augmentation
// strings z, R, P, L, S, B and G (and the old "eh"), and every pointer
// encoding: absolute, uleb128, sleb128, (s|u)data2/4/8, applied pc-, text-,
// data- or function-relative, aligned, and indirect.
//
// Input is hostile by default: no length field is trusted before it is
// checked against the bytes that remain, the number of entries is capped,
// nothing is allocated from a length, and a panic inside the parser becomes
// an error. A malformed entry ends the walk; what was parsed before it is
// returned with the error so a caller can still use it.
//
// The call-frame instructions themselves (the unwinding rules) are not
// interpreted.
package cfi
