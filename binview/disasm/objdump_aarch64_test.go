package disasm

import (
	"bufio"
	"bytes"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/binview/internal/bintest"
	"github.com/warden-mcp/warden/internal/testbin"
)

// goARM64 builds a small Go program for linux/arm64 and returns its path.
func goARM64(t *testing.T) string {
	t.Helper()
	return testbin.Go(t, "a64", testbin.GoProgram{
		Files: map[string]string{
			"main.go": "package main\n\nvar greeting = \"hello\"\n\nfunc main() { println(greeting) }\n",
			"go.mod":  "module a64\n\ngo 1.26\n",
		},
		GOOS:   "linux",
		GOARCH: "arm64",
	})
}

var (
	a64Comment = regexp.MustCompile(`\s*//.*$`)
	a64Blanks  = regexp.MustCompile(`\s*,\s*`)
)

// normalizeA64 brings binutils' and our GNU text to one form: no symbol
// annotations or comments, no blanks after commas, numbers without 0x.
func normalizeA64(ops string) string {
	ops = a64Comment.ReplaceAllString(ops, "")
	ops = symRef.ReplaceAllString(ops, "")
	ops = a64Blanks.ReplaceAllString(strings.TrimSpace(ops), ",")
	return hexPrefix.ReplaceAllString(strings.ToLower(ops), "$1")
}

// TestAgainstObjdumpARM64 decodes every instruction binutils'
// aarch64-linux-gnu-objdump prints in .text of a Go program built for
// arm64 and compares mnemonic and operand text, adrp's page and the
// branch targets among them.
func TestAgainstObjdumpARM64(t *testing.T) {
	tool := bintest.Tool(t, "aarch64-linux-gnu-objdump")
	path := goARM64(t)
	out, err := exec.Command(tool, "-d", "--no-show-raw-insn", "-j", ".text", path).Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	base, text := textSection(t, path)
	d, err := New(ARM64, &Options{Syntax: GNU})
	if err != nil {
		t.Fatal(err)
	}
	var n, mnOK, opOK, adrp, adrpOK int
	mnDiff, opDiff := map[string]int{}, map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := objdumpRe.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		addr, err := strconv.ParseUint(m[1], 16, 64)
		if err != nil || addr < base || addr+4 > base+uint64(len(text)) {
			continue
		}
		wm, wo, _ := strings.Cut(strings.TrimSpace(m[2]), "\t")
		if strings.HasPrefix(wm, ".") {
			continue // data in the text (.inst, .word)
		}
		in := d.Decode(text[addr-base:], addr)
		n++
		wo, gop := normalizeA64(wo), normalizeA64(in.Operands)
		if wm != in.Mnemonic {
			mnDiff[wm+" | "+in.Mnemonic]++
			continue
		}
		mnOK++
		if wm == "adrp" {
			adrp++
		}
		if wo == gop {
			opOK++
			if wm == "adrp" {
				adrpOK++
			}
		} else {
			opDiff[wm+": "+wo+" | "+gop]++
		}
	}
	if n == 0 {
		t.Fatal("objdump printed no instruction")
	}
	rm, ro := float64(mnOK)/float64(n), float64(opOK)/float64(n)
	t.Logf("%d instructions; mnemonic %.5f, operands %.5f; adrp %d of %d", n, rm, ro, adrpOK, adrp)
	logTop(t, "mnemonic differences (objdump | ours)", mnDiff, 12)
	logTop(t, "operand differences (objdump | ours)", opDiff, 12)
	if adrp < 100 || adrpOK != adrp {
		t.Errorf("adrp: %d of %d pages agree", adrpOK, adrp)
	}
	// What remains: a few encodings x/arch cannot decode, fcmp's #0.0
	// printed as #0, and system registers by number rather than name.
	if rm < 0.9999 || ro < 0.999 {
		t.Errorf("agreement below floor: mnemonic %.5f (≥ 0.9999), operands %.5f (≥ 0.999)", rm, ro)
	}
}
