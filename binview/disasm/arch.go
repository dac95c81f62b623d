package disasm

import (
	"strings"

	"github.com/warden-mcp/warden/errcode"
)

// Arch is an instruction set this package decodes.
type Arch uint8

// The instruction sets. The zero value is no architecture.
const (
	ArchUnknown Arch = iota
	X86_16           // real-mode x86
	X86              // 32-bit x86
	X86_64           // amd64
	ARM64            // AArch64, little-endian
	ARM              // 32-bit ARM, A32 encoding, little-endian
	RISCV64          // RV64GC, compressed instructions included
	PPC64            // 64-bit POWER, big-endian
	PPC64LE          // 64-bit POWER, little-endian
	S390X            // IBM Z
	LOONG64          // LoongArch64
)

var archNames = [...]string{
	ArchUnknown: "unknown",
	X86_16:      "x86-16",
	X86:         "x86",
	X86_64:      "x86-64",
	ARM64:       "arm64",
	ARM:         "arm",
	RISCV64:     "riscv64",
	PPC64:       "ppc64",
	PPC64LE:     "ppc64le",
	S390X:       "s390x",
	LOONG64:     "loong64",
}

// String returns the canonical name ("x86-64", "arm64", ...), which
// ParseArch accepts.
func (a Arch) String() string {
	if int(a) < len(archNames) {
		return archNames[a]
	}
	return "unknown"
}

// ParseArch maps an architecture name to an Arch. It accepts the canonical
// names and the usual aliases (amd64, x86_64, i386, 386, aarch64, riscv,
// powerpc64, ...). Thumb and MIPS names, and anything unknown, give an
// unsupported_arch error.
func ParseArch(name string) (Arch, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "x86-16", "x86_16", "8086", "i8086", "16":
		return X86_16, nil
	case "x86", "386", "i386", "i686", "x86-32", "x86_32", "ia32":
		return X86, nil
	case "x86-64", "x86_64", "amd64", "x64":
		return X86_64, nil
	case "arm64", "aarch64", "arm64e":
		return ARM64, nil
	case "arm", "arm32", "a32", "armv7", "armhf", "armel":
		return ARM, nil
	case "riscv64", "riscv", "rv64":
		return RISCV64, nil
	case "ppc64", "powerpc64", "ppc64be":
		return PPC64, nil
	case "ppc64le", "powerpc64le":
		return PPC64LE, nil
	case "s390x", "s390":
		return S390X, nil
	case "loong64", "loongarch64":
		return LOONG64, nil
	case "thumb", "thumb2", "t32", "armthumb":
		return ArchUnknown, errcode.New("unsupported_arch", "Thumb code cannot be disassembled: only the A32 ARM encoding is supported")
	case "mips", "mipsle", "mips64", "mips64le":
		return ArchUnknown, errcode.New("unsupported_arch", "MIPS code cannot be disassembled")
	}
	return ArchUnknown, errcode.New("unsupported_arch", "this architecture cannot be disassembled")
}

// MinLen is the shortest instruction and the step taken over bytes that do
// not decode: 1 on x86, 2 on riscv64 (compressed) and s390x, 4 elsewhere.
func (a Arch) MinLen() int {
	switch a {
	case X86_16, X86, X86_64:
		return 1
	case RISCV64, S390X:
		return 2
	}
	return 4
}

// PtrSize is the size of a code pointer in bytes.
func (a Arch) PtrSize() int {
	switch a {
	case X86_16:
		return 2
	case X86, ARM:
		return 4
	}
	return 8
}

// BigEndian reports whether data words of this architecture are big-endian.
func (a Arch) BigEndian() bool { return a == PPC64 || a == S390X }
