package disasm

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/binview/internal/bintest"
)

// objdumpLine is one instruction as objdump prints it.
type objdumpLine struct {
	addr uint64
	text string
}

var objdumpRe = regexp.MustCompile(`^\s*([0-9a-f]+):\t(.*)$`)

func runObjdump(t *testing.T, path string) []objdumpLine {
	t.Helper()
	tool := bintest.Tool(t, "objdump")
	out, err := exec.Command(tool, "-d", "-M", "intel", "--no-show-raw-insn", "-j", ".text", path).Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	var lines []objdumpLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := objdumpRe.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		a, err := strconv.ParseUint(m[1], 16, 64)
		if err != nil {
			continue
		}
		lines = append(lines, objdumpLine{a, m[2]})
	}
	return lines
}

var (
	spaces    = regexp.MustCompile(`\s+`)
	symRef    = regexp.MustCompile(`\s*<[^>]*>`)
	hexPrefix = regexp.MustCompile(`\b0x([0-9a-f]+)\b`)
)

// normalize brings objdump's and our Intel text to one form: lower case,
// no comments, no symbolic annotations, no spaces around commas, numbers
// without 0x, objdump's ds/cs overrides on nops dropped.
func normalize(mn, ops string) (string, string) {
	mn = strings.ToLower(spaces.ReplaceAllString(strings.TrimSpace(mn), " "))
	if i := strings.Index(ops, "#"); i >= 0 {
		ops = ops[:i]
	}
	if i := strings.Index(ops, ";"); i >= 0 {
		ops = ops[:i]
	}
	ops = strings.ToLower(symRef.ReplaceAllString(ops, ""))
	ops = spaces.ReplaceAllString(strings.TrimSpace(ops), " ")
	ops = strings.ReplaceAll(ops, ", ", ",")
	ops = hexPrefix.ReplaceAllString(ops, "$1")
	ops = strings.ReplaceAll(ops, "cs:", "")
	ops = strings.ReplaceAll(ops, "ds:", "")
	ops = strings.ReplaceAll(ops, "es:", "")
	ops = strings.ReplaceAll(ops, " {", "{")
	ops = strings.ReplaceAll(ops, "+0]", "]")
	ops = segAbs.ReplaceAllString(ops, "$1:$2")
	ops = number.ReplaceAllStringFunc(ops, signedHex)
	// objdump shows padding prefixes on nops, and the string operations
	// without their size suffix.
	mn = strings.TrimPrefix(strings.TrimPrefix(mn, "data16 "), "cs ")
	if mn == "xchg" && ops == "ax,ax" || mn == "data16 nop" {
		mn, ops = "nop", ""
	}
	if r, ok := stringOps[mn]; ok {
		mn = r
	}
	return mn, ops
}

var (
	segAbs    = regexp.MustCompile(`\b([fgecds]s):\[([0-9a-f]+)\]`)
	number    = regexp.MustCompile(`-?\b[0-9a-f]+\b`)
	stringOps = map[string]string{}
)

func init() {
	for _, op := range []string{"movs", "stos", "lods", "scas", "cmps", "ins", "outs"} {
		for _, p := range []string{"", "rep ", "repe ", "repz ", "repne ", "repnz "} {
			for _, sz := range []string{"b", "w", "d", "q"} {
				stringOps[p+op+sz] = p + op
			}
		}
	}
}

// signedHex writes a hex number as a signed 64-bit value: objdump prints
// -1 as ffffffff in 32-bit operands, x/arch as -1.
func signedHex(s string) string {
	neg := strings.HasPrefix(s, "-")
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "-"), 16, 64)
	if err != nil {
		return s
	}
	switch {
	case neg:
		return "-" + strconv.FormatUint(v, 16)
	case len(s) == 16 && v>>63 == 1:
		return "-" + strconv.FormatUint(-v, 16)
	case len(s) == 8 && v>>31 == 1:
		return "-" + strconv.FormatUint(uint64(-uint32(v)), 16)
	case len(s) == 4 && v>>15 == 1:
		return "-" + strconv.FormatUint(uint64(-uint16(v)), 16)
	}
	return s
}

// splitObjdump splits an objdump line into mnemonic (with prefixes) and
// operands: objdump separates them with spaces of padding.
func splitObjdump(text string) (string, string) {
	text = strings.TrimSpace(text)
	fields := strings.Fields(text)
	n := 0
	for n < len(fields)-1 && x86Prefixes[fields[n]] {
		n++
	}
	if n >= len(fields) {
		return text, ""
	}
	mn := strings.Join(fields[:n+1], " ")
	rest := strings.TrimSpace(strings.Join(fields[n+1:], " "))
	return mn, rest
}

func textSection(t *testing.T, path string) (uint64, []byte) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".text")
	if s == nil {
		t.Fatal("no .text")
	}
	data, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return s.Addr, data
}

// TestAgainstObjdump decodes every instruction objdump prints in .text of
// gcc-built binaries and compares address, length, mnemonic and operand
// text. It logs the agreement rates and holds them above floors.
func TestAgainstObjdump(t *testing.T) {
	cases := []struct {
		variant                    bintest.Variant
		lenFloor, mnFloor, opFloor float64
	}{
		{bintest.Dynamic, 1, 0.9999, 0.999},
		{bintest.Static, 0.9999, 0.997, 0.995},
	}
	for _, c := range cases {
		t.Run(string(c.variant), func(t *testing.T) {
			path := bintest.Build(t, c.variant)
			lines := runObjdump(t, path)
			base, text := textSection(t, path)
			d, err := New(X86_64, &Options{Syntax: Intel})
			if err != nil {
				t.Fatal(err)
			}
			var n, lenOK, mnOK, opOK int
			mnDiff := map[string]int{}
			opDiff := map[string]int{}
			stride := 1
			if raceEnabled {
				stride = max(1, len(lines)/20000) // a sample under the race detector
			}
			for i, l := range lines {
				if l.addr < base || l.addr >= base+uint64(len(text)) || i%stride != 0 {
					continue
				}
				in := d.Decode(text[l.addr-base:], l.addr)
				n++
				wantLen := -1
				if i+1 < len(lines) && lines[i+1].addr > l.addr {
					wantLen = int(lines[i+1].addr - l.addr)
				}
				if wantLen < 0 || wantLen == in.Len {
					lenOK++
				} else {
					mnDiff["length "+strconv.Itoa(wantLen)+" | "+strconv.Itoa(in.Len)+": "+l.text]++
				}
				wm, wo := normalize(splitObjdump(l.text))
				gm, gop := normalize(in.Mnemonic, in.Operands)
				if wm == gm {
					mnOK++
				} else {
					mnDiff[wm+" | "+gm]++
				}
				if wm == gm && wo == gop {
					opOK++
				} else if wm == gm {
					opDiff[wm+": "+wo+" | "+gop]++
				}
			}
			if n == 0 {
				t.Fatal("objdump printed no instruction")
			}
			rl, rm, ro := float64(lenOK)/float64(n), float64(mnOK)/float64(n), float64(opOK)/float64(n)
			t.Logf("%s: %d instructions; length %.5f, mnemonic %.5f, operands %.5f", c.variant, n, rl, rm, ro)
			logTop(t, "mnemonic differences (objdump | ours)", mnDiff, 12)
			logTop(t, "operand differences (objdump | ours)", opDiff, 12)
			if rl < c.lenFloor || rm < c.mnFloor || ro < c.opFloor {
				t.Errorf("agreement below floor: length %.5f (≥ %.4f), mnemonic %.5f (≥ %.4f), operands %.5f (≥ %.4f)",
					rl, c.lenFloor, rm, c.mnFloor, ro, c.opFloor)
			}
		})
	}
}

func logTop(t *testing.T, title string, m map[string]int, k int) {
	type kv struct {
		s string
		n int
	}
	var all []kv
	for s, n := range m {
		all = append(all, kv{s, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n || all[i].n == all[j].n && all[i].s < all[j].s })
	if len(all) > k {
		all = all[:k]
	}
	for _, e := range all {
		t.Logf("  %s: %5d  %s", title, e.n, e.s)
	}
}
