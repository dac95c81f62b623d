package addrexpr

import (
	"errors"
	"strings"
	"testing"
)

func TestErrorUnwrap(t *testing.T) {
	cause := errors.New("cause")
	e := &Error{Code: CodeReadFailed, Pos: 3, Message: "cannot read", Err: cause}
	if !errors.Is(e, cause) {
		t.Error("errors.Is does not find the cause")
	}
	if got, want := e.Error(), "cannot read at offset 3"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestEcho(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"main", `"main"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"é", `"é"`},
		{"\xff\x00\n\x1b", `"\xff\x00\n\x1b"`},
		{"\u200b", `"\u200b"`},
		{strings.Repeat("a", 100), `"` + strings.Repeat("a", maxEcho) + `"…`},
		{strings.Repeat("\xfe", 100), `"` + strings.Repeat(`\xfe`, maxEcho/4) + `"…`},
	}
	for _, tt := range tests {
		if got := echo(tt.in); got != tt.want {
			t.Errorf("echo(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestCodesAreSnakeCase holds the exported codes to the house format.
func TestCodesAreSnakeCase(t *testing.T) {
	for _, c := range []string{
		CodeSyntax, CodeTooLong, CodeTooManyTokens, CodeTooDeep, CodeOverflow,
		CodeUnknownMagic, CodeUnknownSymbol, CodeUnknownSection, CodeNoTarget,
		CodeHereUnset, CodeDivisionByZero, CodeReadFailed, CodeReadRefused, CodeTooManyReads,
		CodeCanceled,
	} {
		if !isCode(c) {
			t.Errorf("code %q is not snake_case", c)
		}
	}
}
