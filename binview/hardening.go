package binview

import (
	"sort"
	"strings"
)

// Check statuses.
const (
	StatusYes     = "yes"
	StatusNo      = "no"
	StatusPartial = "partial"
	StatusFull    = "full"
	StatusUnknown = "unknown"
	StatusNA      = "n/a"
)

func yesNo(b bool) string {
	if b {
		return StatusYes
	}
	return StatusNo
}

// canaryNames are the stack-protector entry points of gcc, clang, MSVC
// and ICC.
var canaryNames = []string{"__stack_chk_fail", "__stack_chk_guard", "__stack_chk_fail_local", "__intel_security_cookie"}

// hasAny reports whether names holds any of want, with or without a
// leading underscore (Mach-O).
func hasAny(names map[string]struct{}, want []string) bool {
	for _, w := range want {
		if _, ok := names[w]; ok {
			return true
		}
		if _, ok := names["_"+w]; ok {
			return true
		}
	}
	return false
}

// fortified returns the glibc *_chk functions in names, sorted.
func fortified(names map[string]struct{}) []string {
	var out []string
	for n := range names {
		n = strings.TrimPrefix(n, "_")
		if strings.HasPrefix(n, "_") && strings.HasSuffix(n, "_chk") && n != "_stack_chk_fail" && n != "_stack_chk_guard" && n != "_stack_chk_fail_local" {
			out = append(out, "_"+n)
		}
	}
	sort.Strings(out)
	// Dedupe the Mach-O and ELF spellings.
	j := 0
	for i, n := range out {
		if i == 0 || n != out[j-1] {
			out[j] = n
			j++
		}
	}
	return out[:j]
}

func (e *elfState) hardening(hasStack, execStack, hasRelro bool) {
	a := e.b.a
	var c []Check
	switch a.Kind {
	case "pie":
		c = append(c, Check{Name: "pie", Status: StatusYes})
	case "executable":
		c = append(c, Check{Name: "pie", Status: StatusNo, Detail: "fixed load address"})
	case "shared_library":
		c = append(c, Check{Name: "pie", Status: StatusNA, Detail: "shared library (position-independent)"})
	default:
		c = append(c, Check{Name: "pie", Status: StatusNA})
	}
	switch {
	case !hasStack:
		c = append(c, Check{Name: "nx", Status: StatusNo, Detail: "no PT_GNU_STACK: the stack may be executable"})
	case execStack:
		c = append(c, Check{Name: "nx", Status: StatusNo, Detail: "executable stack"})
	default:
		c = append(c, Check{Name: "nx", Status: StatusYes})
	}
	switch {
	case hasRelro && e.dyn.bindNow:
		c = append(c, Check{Name: "relro", Status: StatusFull})
	case hasRelro:
		c = append(c, Check{Name: "relro", Status: StatusPartial, Detail: "lazy binding"})
	default:
		c = append(c, Check{Name: "relro", Status: StatusNo})
	}
	isGo := e.b.goPclntab != nil || e.goBuildID != ""
	noSyms := !e.sawName
	switch {
	case hasAny(e.names, canaryNames):
		c = append(c, Check{Name: "canary", Status: StatusYes})
	case isGo:
		c = append(c, Check{Name: "canary", Status: StatusNA, Detail: "Go checks stack bounds in every function prologue"})
	case noSyms:
		c = append(c, Check{Name: "canary", Status: StatusUnknown, Detail: "no symbols to tell"})
	default:
		c = append(c, Check{Name: "canary", Status: StatusNo})
	}
	fort := fortified(e.names)
	switch {
	case len(fort) > 0:
		c = append(c, Check{Name: "fortify", Status: StatusYes, Detail: strings.Join(capList(fort, 8), ", ")})
	case isGo:
		c = append(c, Check{Name: "fortify", Status: StatusNA})
	case noSyms:
		c = append(c, Check{Name: "fortify", Status: StatusUnknown, Detail: "no symbols to tell"})
	default:
		c = append(c, Check{Name: "fortify", Status: StatusNo})
	}
	switch a.Arch {
	case ArchX86, ArchX86_64:
		c = append(c, Check{Name: "cet_ibt", Status: yesNo(e.x86Features&1 != 0)},
			Check{Name: "cet_shstk", Status: yesNo(e.x86Features&2 != 0)})
	case ArchARM64:
		c = append(c, Check{Name: "bti", Status: yesNo(e.armFeatures&1 != 0)},
			Check{Name: "pac", Status: yesNo(e.armFeatures&2 != 0)})
	}
	if len(e.dyn.rpath) > 0 {
		c = append(c, Check{Name: "rpath", Status: StatusYes, Detail: strings.Join(capList(e.dyn.rpath, 8), ":")})
	}
	if len(e.dyn.runpath) > 0 {
		c = append(c, Check{Name: "runpath", Status: StatusYes, Detail: strings.Join(capList(e.dyn.runpath, 8), ":")})
	}
	if e.dyn.textrel {
		c = append(c, Check{Name: "textrel", Status: StatusYes, Detail: "text relocations: code pages are written at load"})
	}
	a.Hardening = c
}

// capList returns at most n items of s, with "…" appended when cut.
func capList(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	out := append([]string(nil), s[:n]...)
	return append(out, "…")
}
