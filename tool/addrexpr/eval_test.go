package addrexpr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEval64(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		// Numbers and their prefixes.
		{"0x401000", 0x401000},
		{"0X1f", 0x1f},
		{"401000", 0x401000}, // hex by default
		{"10", 0x10},
		{"0n100", 100},
		{"0N10", 10},
		{"0100", 0o100}, // leading 0 is octal
		{"017", 15},
		{"00401000", 0o401000}, // the trap: octal, not 0x401000
		{"0", 0},
		{"00", 0},
		{"0xffffffffffffffff", 0xffff_ffff_ffff_ffff},
		{"0n18446744073709551615", 0xffff_ffff_ffff_ffff},
		{"01777777777777777777777", 0xffff_ffff_ffff_ffff},
		{"ffffffffffffffff", 0xffff_ffff_ffff_ffff},

		// Names: symbol first, then section, then hex.
		{"main", 0x401000},
		{"main + 10", 0x401010},
		{"main+0n10", 0x40100a},
		{"main-4", 0x400ffc},
		{"add", 0x403000},  // a symbol wins over hex 0xadd...
		{"ADD", 0xadd},     // ...but symbols are case-sensitive
		{"dead", 0xdead},   // no such symbol: hex
		{"1234", 0x406000}, // a symbol named 1234 wins
		{"1235", 0x1235},
		{"'add'", 0x403000},
		{"\"add\"", 0x403000},
		{"'std::vector<int>::size'", 0x404000},
		{"printf@plt", 0x405000},
		{"\"printf@plt\" + 1", 0x405001},
		{"_start", 0x401100},
		{"?Foo@@YAXXZ", 0x407000},
		{"ZERO", 0},
		{".text", 0x401000},
		{".text + 0x10", 0x401010},
		{".data+100", 0x420100},
		{"'.data'", 0x420000},

		// Every operator.
		{"1+2", 3},
		{"5-3", 2},
		{"7*6", 0x2a},
		{"a/3", 3},
		{"a%3", 1},
		{"f0&3c", 0x30},
		{"f0|f", 0xff},
		{"ff^f", 0xf0},
		{"~0", 0xffff_ffff_ffff_ffff},
		{"-1", 0xffff_ffff_ffff_ffff},
		{"--5", 5},
		{"-~0", 1},
		{"~-1", 0},
		{"1==1", 1},
		{"1==2", 0},
		{"1!=2", 1},
		{"2!=2", 0},
		{"1<2", 1},
		{"2<1", 0},
		{"2<2", 0},
		{"2<=2", 1},
		{"3<=2", 0},
		{"3>2", 1},
		{"2>2", 0},
		{"2>=2", 1},
		{"2>=3", 0},
		{"-1 > 0", 1}, // unsigned
		{"0n7/0n2", 3},
		{"-0n7/0n2", 0x7fff_ffff_ffff_fffc}, // unsigned division

		// C precedence and associativity.
		{"1+2*3", 7},
		{"(1+2)*3", 9},
		{"8-4-2", 2},
		{"8-(4-2)", 6},
		{"20/4/2", 4},
		{"2*3%4", 2},
		{"1|2^3&4", 3},
		{"(1|2)^3", 0},
		{"6&3==3", 0},
		{"1+1==2", 1},
		{"1<2==1", 1},
		{"1+2<4", 1},
		{"-2*3", 0xffff_ffff_ffff_fffa},
		{"~1&3", 2},
		{"1^3|4", 6},
		{"1 | 2 & 3 ^ 4 == 4 + 5 * 6", 3}, // 1 | ((2 & 3) ^ (4 == (4 + (5 * 6))))

		// Magic values.
		{"$here", 0x401010},
		{"$", 0x401010},
		{"$-10", 0x401000},
		{"$start", 0x400000},
		{"$end", 0x430000},
		{"$end - $start", 0x30000},

		// Reads of each size; the fake puts garbage above the size.
		{"[400000].b", 0x11},
		{"[400000].w", 0x2211},
		{"[400000].d", 0x4433_2211},
		{"[400000].q", 0x8877_6655_4433_2211},
		{"[400000]", 0x8877_6655_4433_2211}, // address size
		{"[400001].w", 0x3322},
		{"[400000].B", 0x11},
		{"[ptr]", 0x401000},
		{"[ptr].q + 4", 0x401004},
		{"[[400010]]", 0x401000},
		{"[$start + 0n8].d", 0x401000},
		{"-[400000].b", 0xffff_ffff_ffff_ffef},

		// Whitespace and wrap-around.
		{" \t main \n+ 1\r", 0x401001},
		{"ffffffffffffffff + 2", 1},
		{"0 - 1", 0xffff_ffff_ffff_ffff},
		{"big * 2", 0xffff_fffe_0000_0020},
	}
	for _, tt := range tests {
		f := newFake(8)
		got, err := Evaluate(context.Background(), tt.in, f)
		if err != nil {
			t.Errorf("Evaluate(%q) error: %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Evaluate(%q) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}

func TestEval32(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		{"-1", 0xffff_ffff},
		{"~0", 0xffff_ffff},
		{"ffffffff+2", 1},
		{"100000000", 0},            // masked to 32 bits
		{"-1/2", 0x7fff_ffff},       // each step is 32-bit
		{"big", 0x10},               // symbols are masked too
		{"[400000]", 0x4433_2211},   // address-sized read: 4 bytes
		{"[400000].q", 0x4433_2211}, // an 8-byte read, masked
		{"[100400000].b", 0x11},     // the read address is masked
		{"-1 > 0", 1},
		{"0n4294967295 + 0n1 == 0", 1}, // wraps
	}
	for _, tt := range tests {
		f := newFake(4)
		got, err := Evaluate(context.Background(), tt.in, f)
		if err != nil {
			t.Errorf("Evaluate(%q) error: %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Evaluate(%q) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}

func TestEvalReadSizes(t *testing.T) {
	tests := []struct {
		in    string
		asize int
		want  []readCall
	}{
		{"[400000].b", 8, []readCall{{0x400000, 1}}},
		{"[400000].w", 8, []readCall{{0x400000, 2}}},
		{"[400000].d", 8, []readCall{{0x400000, 4}}},
		{"[400000].q", 8, []readCall{{0x400000, 8}}},
		{"[400000]", 8, []readCall{{0x400000, 8}}},
		{"[400000]", 4, []readCall{{0x400000, 4}}},
		{"[[400010]].w", 8, []readCall{{0x400010, 8}, {0x400008, 2}}},
		{"[400000].b + [400001].b", 8, []readCall{{0x400000, 1}, {0x400001, 1}}},
	}
	for _, tt := range tests {
		f := newFake(tt.asize)
		if _, err := Evaluate(context.Background(), tt.in, f); err != nil {
			t.Errorf("Evaluate(%q) error: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, f.reads, cmp.AllowUnexported(readCall{})); diff != "" {
			t.Errorf("Evaluate(%q) reads (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestEvalInteger(t *testing.T) {
	const base = 0x401000
	tests := []struct {
		in    string
		asize int
		want  uint64
	}{
		{"$here", 4, base},
		{"$", 8, base},
		{"main_end - $here", 4, 0x40},
		{"0n64", 4, 64},
		{"40", 4, 0x40},                          // hex by default
		{"$ - 401001", 4, 0xffff_ffff_ffff_ffff}, // 64-bit even on a 32-bit target
		{"-1", 4, 0xffff_ffff_ffff_ffff},
		{"[400000]", 4, 0x4433_2211}, // reads are still address-sized
		{"[400000]", 8, 0x8877_6655_4433_2211},
		{"$end - $start", 4, 0x30000},
	}
	for _, tt := range tests {
		f := newFake(tt.asize)
		f.hasHere = false // the base is used, not the target's $here
		got, err := EvalInteger(context.Background(), tt.in, f, base)
		if err != nil {
			t.Errorf("EvalInteger(%q) error: %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("EvalInteger(%q) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}

func TestEvalIntegerErrors(t *testing.T) {
	tests := []errCase{
		{"(", CodeSyntax, 1},
		{"$ / 0", CodeDivisionByZero, 2},
		{"[0] + 1", CodeReadFailed, 0},
		{"nosuch - $", CodeUnknownSymbol, 0},
	}
	for _, tt := range tests {
		_, err := EvalInteger(context.Background(), tt.in, newFake(8), 0x401000)
		checkErr(t, "EvalInteger", tt, err)
	}
}

func TestEvalNilTarget(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		{"1+2", 3},
		{"add", 0xadd}, // no target, so no symbol: hex
		{"0n10*2", 20},
		{"-1", 0xffff_ffff_ffff_ffff},
	}
	for _, tt := range tests {
		got, err := Evaluate(context.Background(), tt.in, nil)
		if err != nil || got != tt.want {
			t.Errorf("Evaluate(%q, nil) = %#x, %v; want %#x", tt.in, got, err, tt.want)
		}
	}
	got, err := EvalInteger(context.Background(), "$here + 1", nil, 41)
	if err != nil || got != 42 {
		t.Errorf("EvalInteger($here + 1, nil, 41) = %d, %v; want 42", got, err)
	}
	// A nil context is treated as context.Background, not a panic.
	var nilCtx context.Context
	if got, err := Evaluate(nilCtx, "2", nil); err != nil || got != 2 {
		t.Errorf("Evaluate(nil ctx) = %d, %v; want 2", got, err)
	}
}

// errCase is an expected failure.
type errCase struct {
	in   string
	code string
	pos  int
}

func checkErr(t *testing.T, what string, tt errCase, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%s(%q) error = %v, want *Error %s", what, tt.in, err, tt.code)
		return
	}
	if e.Code != tt.code || e.Pos != tt.pos {
		t.Errorf("%s(%q) = %s at %d (%q), want %s at %d", what, tt.in, e.Code, e.Pos, e.Message, tt.code, tt.pos)
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []errCase{
		{"10000000000000000", CodeOverflow, 0}, // 17 hex digits, no such symbol
		{"nosuch", CodeUnknownSymbol, 0},
		{"main + nosuch", CodeUnknownSymbol, 7},
		{"'dead'", CodeUnknownSymbol, 0}, // quoted names are never numbers
		{"'.bss'", CodeUnknownSection, 0},
		{".bss", CodeUnknownSection, 0},
		{"1/0", CodeDivisionByZero, 1},
		{"1 % (1-1)", CodeDivisionByZero, 2},
		{"[0]", CodeReadFailed, 0},
		{"1+[0].d", CodeReadFailed, 2},
		{"[400017].w", CodeReadFailed, 0}, // straddles the end of the image
		{"[[ptr]]", CodeReadFailed, 0},
		{strings.Repeat("[400000].b+", MaxReads) + "[400000].b", CodeTooManyReads, 11 * MaxReads},
		{"nosuch / 0", CodeUnknownSymbol, 0}, // left to right
	}
	for _, tt := range tests {
		_, err := Evaluate(context.Background(), tt.in, newFake(8))
		checkErr(t, "Evaluate", tt, err)
	}
	// Exactly MaxReads reads is fine.
	in := strings.Repeat("[400000].b+", MaxReads-1) + "[400000].b"
	if got, err := Evaluate(context.Background(), in, newFake(8)); err != nil || got != 0x11*MaxReads {
		t.Errorf("%d reads = %#x, %v; want %#x", MaxReads, got, err, 0x11*MaxReads)
	}
}

// refusingTarget reads nothing: its operator turned memory reads off.
type refusingTarget struct{ *fakeTarget }

func (refusingTarget) Read(uint64, int) (uint64, error) { return 0, ErrReadRefused }

// TestEvalReadRefused: a target that refuses every read makes [e] fail
// with read_refused, which says reads are off rather than blaming the
// address; expressions without reads still evaluate.
func TestEvalReadRefused(t *testing.T) {
	for _, tt := range []errCase{{"[main]", CodeReadRefused, 0}, {"main+[ptr].d", CodeReadRefused, 5}} {
		_, err := Evaluate(context.Background(), tt.in, refusingTarget{newFake(8)})
		checkErr(t, "Evaluate", tt, err)
	}
	if got, err := Evaluate(context.Background(), "main+0x10", refusingTarget{newFake(8)}); err != nil || got != 0x401010 {
		t.Errorf("main+0x10 = %#x, %v", got, err)
	}
}

// secretTarget refuses reads of the bytes at ptr (0x400008..0x400010):
// they hold part of a credential.
type secretTarget struct{ *fakeTarget }

func (s secretTarget) Read(addr uint64, size int) (uint64, error) {
	if addr < 0x400010 && addr+uint64(size) > 0x400008 {
		return 0, ErrReadSecret
	}
	return s.fakeTarget.Read(addr, size)
}

// TestEvalReadSecret: a read the target refuses because its bytes hold a
// credential fails with read_refused and a message that names the read,
// not reads in general; its value never reaches the expression, so no
// comparison can test it; other reads still work.
func TestEvalReadSecret(t *testing.T) {
	for _, tt := range []errCase{{"[ptr]", CodeReadRefused, 0}, {"[ptr].b == 0x67", CodeReadRefused, 0}, {"1+[ptr+7].b", CodeReadRefused, 2}} {
		_, err := Evaluate(context.Background(), tt.in, secretTarget{newFake(8)})
		checkErr(t, "Evaluate", tt, err)
		var e *Error
		if errors.As(err, &e) && (!strings.Contains(e.Message, "credential") || strings.Contains(e.Message, "turned off")) {
			t.Errorf("%s: message %q", tt.in, e.Message)
		}
	}
	if got, err := Evaluate(context.Background(), "[400000].b", secretTarget{newFake(8)}); err != nil || got != 0x11 {
		t.Errorf("[400000].b = %#x, %v", got, err)
	}
}

func TestEvalTargetErrors(t *testing.T) {
	nilTests := []errCase{
		{"main", CodeNoTarget, 0},
		{"1 + $start", CodeNoTarget, 4},
		{"$end", CodeNoTarget, 0},
		{"$here", CodeNoTarget, 0},
		{"[1]", CodeNoTarget, 0},
		{"'add'", CodeNoTarget, 0},
	}
	for _, tt := range nilTests {
		_, err := Evaluate(context.Background(), tt.in, nil)
		checkErr(t, "Evaluate(nil target)", tt, err)
	}

	f := newFake(8)
	f.hasHere = false
	_, err := Evaluate(context.Background(), "1 + $", f)
	checkErr(t, "Evaluate(no here)", errCase{"1 + $", CodeHereUnset, 4}, err)
}

func TestEvalReadErrorHidesCause(t *testing.T) {
	_, err := Evaluate(context.Background(), "[main]", newFake(8))
	if !errors.Is(err, errUnmapped) {
		t.Fatalf("error %v does not wrap the target's error", err)
	}
	const want = "cannot read 8 bytes at 0x401000 at offset 0"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("Error() leaks the cause: %q", err.Error())
	}
}

func TestEvalCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Evaluate(ctx, "1", nil)
	checkErr(t, "Evaluate(canceled)", errCase{"1", CodeCanceled, 0}, err)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v does not wrap context.Canceled", err)
	}

	// Canceled during evaluation: the first read cancels, the second
	// must not happen.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	f := newFake(8)
	f.onRead = cancel
	_, err = Evaluate(ctx, "[400000].b + [400001].b", f)
	checkErr(t, "Evaluate(canceled mid-way)", errCase{"", CodeCanceled, 13}, err)
	if len(f.reads) != 1 {
		t.Errorf("%d reads after cancellation, want 1", len(f.reads))
	}
}

func TestEvalNilExpr(t *testing.T) {
	var e *Expr
	_, err := e.Eval(context.Background(), nil)
	checkErr(t, "(*Expr)(nil).Eval", errCase{"", CodeSyntax, 0}, err)
	_, err = new(Expr).EvalInteger(context.Background(), nil, 0)
	checkErr(t, "new(Expr).EvalInteger", errCase{"", CodeSyntax, 0}, err)
}

// TestEvalReusable checks that one parsed Expr evaluates against several
// targets and gives each its own answer.
func TestEvalReusable(t *testing.T) {
	e, err := Parse("main + [ptr].b")
	if err != nil {
		t.Fatal(err)
	}
	a, b := newFake(8), newFake(8)
	b.syms["main"] = 0x500000
	b.mem[8] = 0x20
	va, err1 := e.Eval(context.Background(), a)
	vb, err2 := e.Eval(context.Background(), b)
	if err1 != nil || err2 != nil || va != 0x401000 || vb != 0x500020 {
		t.Errorf("got %#x, %v and %#x, %v; want 0x401000 and 0x500020", va, err1, vb, err2)
	}
}

// TestEvalConcurrent shares one Expr between goroutines; run with -race.
func TestEvalConcurrent(t *testing.T) {
	e, err := Parse("[ptr] + main * 2 - $here")
	if err != nil {
		t.Fatal(err)
	}
	const want = 0x401000 + 0x401000*2 - 0x401010
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			f := newFake(8) // the fake counts calls, so one each
			for range 100 {
				if v, err := e.Eval(context.Background(), f); err != nil || v != want {
					errs <- fmt.Errorf("got %#x, %v; want %#x", v, err, want)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
