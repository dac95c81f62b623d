package disasm

import "strconv"

// x/arch's arm64 decoder predates the Large System Extensions (ARMv8.1
// atomics), which Go's runtime and every compiler targeting ARMv8.1 or
// later emit: without them a function holding an atomic would end at a
// "(bad)" instruction. lse decodes them: the atomic memory operations
// (LDADD, LDCLR, LDEOR, LDSET, LD{S,U}{MAX,MIN}, SWP, and their ST
// aliases) and CAS, with acquire and release forms, in every size, as
// binutils prints them (in every syntax: x/arch's Go syntax has no form
// for them). None changes control flow.
func lse(x uint32) (mnemonic, operands string, ok bool) {
	size := x >> 30
	rs, rn, rt := (x>>16)&31, (x>>5)&31, x&31
	suffix := ""
	switch size {
	case 0:
		suffix = "b"
	case 1:
		suffix = "h"
	}
	reg := func(r uint32) string {
		if size == 3 {
			if r == 31 {
				return "xzr"
			}
			return "x" + strconv.Itoa(int(r))
		}
		if r == 31 {
			return "wzr"
		}
		return "w" + strconv.Itoa(int(r))
	}
	base := "[sp]"
	if rn != 31 {
		base = "[x" + strconv.Itoa(int(rn)) + "]"
	}
	acquire, release := x>>23&1 == 1, x>>22&1 == 1
	switch {
	case x&0x3f200c00 == 0x38200000: // atomic memory operation
		o3, opc := x>>15&1, x>>12&7
		var op string
		switch {
		case o3 == 0:
			op = [...]string{"add", "clr", "eor", "set", "smax", "smin", "umax", "umin"}[opc]
		case opc == 0:
			op = "swp"
		default:
			return "", "", false // LDAPR and the like: left to x/arch
		}
		order := ""
		if acquire {
			order += "a"
		}
		if release {
			order += "l"
		}
		if op != "swp" && rt == 31 && !acquire {
			// A store: the old value is discarded.
			return "st" + op + order + suffix, reg(rs) + ", " + base, true
		}
		if op != "swp" {
			op = "ld" + op
		}
		return op + order + suffix, reg(rs) + ", " + reg(rt) + ", " + base, true
	case x&0x3fa07c00 == 0x08a07c00: // CAS, CASA, CASL, CASAL
		order := ""
		if release { // bit 22 is L, acquire, in this class
			order += "a"
		}
		if x>>15&1 == 1 {
			order += "l"
		}
		return "cas" + order + suffix, reg(rs) + ", " + reg(rt) + ", " + base, true
	}
	return "", "", false
}
