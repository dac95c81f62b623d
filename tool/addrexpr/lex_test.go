package addrexpr

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lexed is a token as the tests compare it.
type lexed struct {
	Kind tokKind
	Text string
	Pos  int
}

func lexAll(s string) ([]lexed, *Error) {
	l := lexer{src: s}
	var out []lexed
	for {
		t, err := l.next()
		if err != nil {
			return out, err
		}
		if t.kind == tEOF {
			return out, nil
		}
		out = append(out, lexed{t.kind, t.text, t.pos})
	}
}

func TestLex(t *testing.T) {
	tests := []struct {
		in   string
		want []lexed
	}{
		{"main+0x10", []lexed{{tWord, "main", 0}, {tOp, "+", 4}, {tWord, "0x10", 5}}},
		{"main-4", []lexed{{tWord, "main", 0}, {tOp, "-", 4}, {tWord, "4", 5}}},
		{"a<b<=c>d>=e==f!=g", []lexed{
			{tWord, "a", 0}, {tOp, "<", 1}, {tWord, "b", 2}, {tOp, "<=", 3}, {tWord, "c", 5},
			{tOp, ">", 6}, {tWord, "d", 7}, {tOp, ">=", 8}, {tWord, "e", 10}, {tOp, "==", 11},
			{tWord, "f", 13}, {tOp, "!=", 14}, {tWord, "g", 16},
		}},
		{"*/%&|^~", []lexed{{tOp, "*", 0}, {tOp, "/", 1}, {tOp, "%", 2}, {tOp, "&", 3}, {tOp, "|", 4}, {tOp, "^", 5}, {tOp, "~", 6}}},
		{"[rsp].q", []lexed{{tLBrack, "[", 0}, {tWord, "rsp", 1}, {tRBrack, "]", 4}, {tSize, ".q", 5}}},
		{"[x].b+1", []lexed{{tLBrack, "[", 0}, {tWord, "x", 1}, {tRBrack, "]", 2}, {tSize, ".b", 3}, {tOp, "+", 5}, {tWord, "1", 6}}},
		{"[x] .b", []lexed{{tLBrack, "[", 0}, {tWord, "x", 1}, {tRBrack, "]", 2}, {tWord, ".b", 4}}},
		{"[x].bss", []lexed{{tLBrack, "[", 0}, {tWord, "x", 1}, {tRBrack, "]", 2}, {tWord, ".bss", 3}}},
		{"x.b", []lexed{{tWord, "x.b", 0}}},
		{"(.text)", []lexed{{tLParen, "(", 0}, {tWord, ".text", 1}, {tRParen, ")", 6}}},
		{"$+$here-$start*$end", []lexed{
			{tMagic, "$", 0}, {tOp, "+", 1}, {tMagic, "$here", 2}, {tOp, "-", 7},
			{tMagic, "$start", 8}, {tOp, "*", 14}, {tMagic, "$end", 15},
		}},
		{`'a-b<c>' "x'y"`, []lexed{{tQuoted, "a-b<c>", 0}, {tQuoted, "x'y", 9}}},
		{"std::cout@GLIBCXX_3.4 ?f@@YAXXZ x$y _1", []lexed{
			{tWord, "std::cout@GLIBCXX_3.4", 0}, {tWord, "?f@@YAXXZ", 22}, {tWord, "x$y", 32}, {tWord, "_1", 36},
		}},
		{" \t\r\n1 ", []lexed{{tWord, "1", 4}}},
		{"--~", []lexed{{tOp, "-", 0}, {tOp, "-", 1}, {tOp, "~", 2}}},
	}
	for _, tt := range tests {
		got, err := lexAll(tt.in)
		if err != nil {
			t.Errorf("lex(%q) error: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("lex(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
