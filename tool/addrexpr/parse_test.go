package addrexpr

import (
	"strings"
	"testing"
)

func TestParseString(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"1 + 2 * 3", "1+2*3"},
		{"(1+2)*3", "(1+2)*3"},
		{"((main))", "main"},
		{"8-(4-2)", "8-(4-2)"},
		{"(8-4)-2", "8-4-2"},
		{"- (1+2)", "-(1+2)"},
		{"-(-(1))", "--1"},
		{"~ - 1", "~-1"},
		{"[ rsp ].q", "[rsp].q"},
		{"[rsp]", "[rsp]"},
		{"[ (rsp) ].B + 1", "[rsp].B+1"},
		{"'a b' + \"c'd\"", "'a b'+\"c'd\""},
		{"$ + $here", "$+$here"},
		{"$start|$end", "$start|$end"},
		{"1 == (2 < 3)", "1==2<3"},
		{"(1 == 2) < 3", "(1==2)<3"},
		{"a & (b | c) ^ d", "a&(b|c)^d"},
		{"(a & b) | (c ^ d)", "a&b|c^d"},
		{"0n10 * 0x10 % 017", "0n10*0x10%017"},
		{".text + 0x10", ".text+0x10"},
		{"std::string::npos", "std::string::npos"},
	}
	for _, tt := range tests {
		e, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q) error: %v", tt.in, err)
			continue
		}
		if got := e.String(); got != tt.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
	var nilExpr *Expr
	if s := nilExpr.String(); s != "" {
		t.Errorf("nil Expr String() = %q, want empty", s)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []errCase{
		{"", CodeSyntax, 0},
		{"   ", CodeSyntax, 0},
		{"1 +", CodeSyntax, 3},
		{"(1", CodeSyntax, 2},
		{"1)", CodeSyntax, 1},
		{"[1", CodeSyntax, 2},
		{"[1)", CodeSyntax, 2},
		{"(1]", CodeSyntax, 2},
		{"()", CodeSyntax, 1},
		{"1 2", CodeSyntax, 2},
		{"main main", CodeSyntax, 5},
		{"* 2", CodeSyntax, 0},
		{"+2", CodeSyntax, 0}, // no unary plus
		{"08", CodeSyntax, 0},
		{"0f", CodeSyntax, 0},
		{"0b101", CodeSyntax, 0},
		{"0x", CodeSyntax, 0},
		{"0xg", CodeSyntax, 0},
		{"1 + 0x10.b", CodeSyntax, 4},
		{"0n", CodeSyntax, 0},
		{"0n1a", CodeSyntax, 0},
		{"0x10000000000000000", CodeOverflow, 0},
		{"0n18446744073709551616", CodeOverflow, 0},
		{"02000000000000000000000", CodeOverflow, 0},
		{"$foo", CodeUnknownMagic, 0},
		{"1+$HERE", CodeUnknownMagic, 2},
		{"'abc", CodeSyntax, 0},
		{"''", CodeSyntax, 0},
		{"1 = 1", CodeSyntax, 2},
		{"!1", CodeSyntax, 0},
		{"1<<2", CodeSyntax, 1},
		{"1>>2", CodeSyntax, 1},
		{"1&&2", CodeSyntax, 1},
		{"1||2", CodeSyntax, 1},
		{"#", CodeSyntax, 0},
		{"1 + é", CodeSyntax, 4},
		{"1 + \xff", CodeSyntax, 4},
		{"1,2", CodeSyntax, 1},
		{"[1] .q", CodeSyntax, 4}, // a size must follow "]" directly
		{"[1].x", CodeSyntax, 3},
		{"[1].bb", CodeSyntax, 3},
		{strings.Repeat("1+", MaxLen/2) + "1", CodeTooLong, MaxLen},
		{strings.Repeat("1+", MaxTokens/2) + "1", CodeTooManyTokens, MaxTokens},
		{strings.Repeat("(", MaxDepth+1) + "1" + strings.Repeat(")", MaxDepth+1), CodeTooDeep, MaxDepth},
		{strings.Repeat("[", MaxDepth+1) + "1" + strings.Repeat("]", MaxDepth+1), CodeTooDeep, MaxDepth},
		{strings.Repeat("-", MaxDepth+1) + "1", CodeTooDeep, MaxDepth},
		{strings.Repeat("~(", MaxDepth/2) + "1" + strings.Repeat(")", MaxDepth/2) + ")", CodeSyntax, MaxDepth*3/2 + 1},
	}
	for _, tt := range tests {
		e, err := Parse(tt.in)
		if e != nil {
			t.Errorf("Parse(%q) returned an Expr with an error", tt.in)
		}
		checkErr(t, "Parse", tt, err)
	}
}

// TestParseLimitsExact checks that inputs exactly at each limit parse.
func TestParseLimitsExact(t *testing.T) {
	tests := []string{
		strings.Repeat(" ", MaxLen-1) + "1",
		strings.Repeat("1+", MaxTokens/2-1) + "-1", // MaxTokens tokens
		strings.Repeat("1+", MaxTokens/2-2) + "(1)",
		strings.Repeat("(", MaxDepth) + "1" + strings.Repeat(")", MaxDepth),
		strings.Repeat("-", MaxDepth) + "1",
		strings.Repeat("[", MaxDepth/2) + strings.Repeat("(", MaxDepth/2) + "1" +
			strings.Repeat(")", MaxDepth/2) + strings.Repeat("]", MaxDepth/2),
		// Depth counts nesting, not the number of groups side by side.
		strings.Repeat("(1)+", MaxDepth+1) + "1",
	}
	for _, in := range tests {
		if _, err := Parse(in); err != nil {
			t.Errorf("Parse(%.40q…) error: %v", in, err)
		}
	}
}

// TestParseWordNames checks how words that are not numbers are kept as
// names, to be resolved at evaluation.
func TestParseWordNames(t *testing.T) {
	tests := []struct {
		in   string
		kind nodeKind
		hex  hexState
	}{
		{"main", nName, hexNo},
		{"add", nName, hexYes},
		{"ADD", nName, hexYes},
		{"1234", nName, hexYes},
		{"1.b", nName, hexNo}, // not a number, so a name
		{"1g", nName, hexNo},
		{"10000000000000000", nName, hexOverflow},
		{".text", nName, hexNo},
		{"a::b", nName, hexNo},
		{"f@plt", nName, hexNo},
		{"x$y", nName, hexNo},
		{"'add'", nName, hexNo},
		{"0x10", nNum, hexNo},
		{"0", nNum, hexNo},
	}
	for _, tt := range tests {
		e, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q) error: %v", tt.in, err)
			continue
		}
		n := e.nodes[e.root]
		if n.kind != tt.kind || n.hex != tt.hex {
			t.Errorf("Parse(%q) = kind %d hex %d, want kind %d hex %d", tt.in, n.kind, n.hex, tt.kind, tt.hex)
		}
	}
}

func TestParseErrorMessages(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "empty expression at offset 0"},
		{"1 +", "unexpected end of expression; expected a number, name or '(' at offset 3"},
		{"(1", "expected ')' to close the '(' at offset 0, found end of expression at offset 2"},
		{"1 2", `unexpected "2" after a complete expression at offset 2`},
		{"08", `invalid number "08": a leading 0 means octal; write hex as 0x…, decimal as 0n… at offset 0`},
		{"0xz", `invalid hex number "0xz" at offset 0`},
		{"$rip", `unknown magic value "$rip"; use $here, $start or $end at offset 0`},
		{"1 + \xff", `unexpected character "\xff" at offset 4`},
		{"1 = 2", "unexpected '='; use == to compare at offset 2"},
		{"1 << 2", "shift operators are not supported at offset 2"},
		{"'x", "unterminated quoted name at offset 0"},
		{"1 + 'a b' c", `unexpected "c" after a complete expression at offset 10`},
		{"1 + 'a b' 'c'", `unexpected quoted name "c" after a complete expression at offset 10`},
		{"$" + strings.Repeat("x", 100), `unknown magic value "$xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"…; use $here, $start or $end at offset 0`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded", tt.in)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%q) error\n got %q\nwant %q", tt.in, err.Error(), tt.want)
		}
	}
}
