package addrexpr

import (
	"bufio"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// addSeeds adds every seed line of testdata/seeds.txt to the corpus.
func addSeeds(f *testing.F) {
	file, err := os.Open("testdata/seeds.txt")
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# ") {
			continue
		}
		f.Add(line)
		n++
	}
	if err := sc.Err(); err != nil {
		f.Fatal(err)
	}
	if n == 0 {
		f.Fatal("no seeds in testdata/seeds.txt")
	}
}

// checkFuzzErr holds every error to the package contract: an *Error with
// a stable code and a position inside the input (or at MaxLen).
func checkFuzzErr(t *testing.T, s string, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: error %T %v is not an *Error", s, err, err)
	}
	if !isCode(e.Code) {
		t.Fatalf("%q: code %q is not snake_case", s, e.Code)
	}
	if e.Pos < 0 || e.Pos > len(s) {
		t.Fatalf("%q: position %d outside the input", s, e.Pos)
	}
	if e.Message == "" || len(e.Message) > 200 {
		t.Fatalf("%q: message of %d bytes", s, len(e.Message))
	}
}

// isCode reports whether s is lower-case snake_case.
func isCode(s string) bool {
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}

// FuzzParse checks that Parse never panics, that its errors keep the
// contract, and that the canonical form round-trips: it is no longer than
// the input, parses again to the same form, and evaluates to the same
// result.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			checkFuzzErr(t, s, err)
			return
		}
		c := e.String()
		if len(c) > len(s) {
			t.Fatalf("%q: canonical form %q is longer", s, c)
		}
		e2, err := Parse(c)
		if err != nil {
			t.Fatalf("%q: canonical form %q does not parse: %v", s, c, err)
		}
		if c2 := e2.String(); c2 != c {
			t.Fatalf("%q: canonical form %q reprints as %q", s, c, c2)
		}
		v1, err1 := e.Eval(context.Background(), newFake(8))
		v2, err2 := e2.Eval(context.Background(), newFake(8))
		if v1 != v2 || code(err1) != code(err2) {
			t.Fatalf("%q = %#x, %v but canonical %q = %#x, %v", s, v1, err1, c, v2, err2)
		}
	})
}

func code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// FuzzEval evaluates arbitrary input against the fake target as an
// address (32 and 64 bits) and as an integer, checking that it never
// panics, that errors keep the contract, that results fit the width, and
// that the work done on the target is bounded by the limits.
func FuzzEval(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			checkFuzzErr(t, s, err)
			return
		}
		// Names and magic values cost one or two calls per token; reads
		// one each, and at most MaxReads.
		const maxCalls = 2*MaxTokens + MaxReads
		for _, asize := range []int{4, 8} {
			ft := newFake(asize)
			v, err := e.Eval(context.Background(), ft)
			if err != nil {
				checkFuzzErr(t, s, err)
			} else if asize == 4 && v > 0xffff_ffff {
				t.Fatalf("%q: 32-bit result %#x", s, v)
			}
			if len(ft.reads) > MaxReads || ft.calls > maxCalls {
				t.Fatalf("%q: %d reads, %d calls", s, len(ft.reads), ft.calls)
			}
			ft = newFake(asize)
			if _, err := e.EvalInteger(context.Background(), ft, 0x401000); err != nil {
				checkFuzzErr(t, s, err)
			}
			if len(ft.reads) > MaxReads || ft.calls > maxCalls {
				t.Fatalf("%q: integer: %d reads, %d calls", s, len(ft.reads), ft.calls)
			}
		}
		if _, err := e.Eval(context.Background(), nil); err != nil {
			checkFuzzErr(t, s, err)
		}
	})
}
