package addrexpr

import "unicode/utf8"

// tokKind is the kind of a token.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tWord           // number or name
	tQuoted         // 'name' or "name"; text excludes the quotes
	tMagic          // $, $here, $start, $end
	tSize           // .b .w .d .q directly after "]"
	tOp             // binary or unary operator; see op
	tLParen
	tRParen
	tLBrack
	tRBrack
)

// op is an operator.
type op uint8

const (
	opNone op = iota
	opAdd     // +
	opSub     // - (binary) or negation (unary)
	opMul     // *
	opDiv     // /
	opMod     // %
	opAnd     // &
	opOr      // |
	opXor     // ^
	opNot     // ~ (unary only)
	opEq      // ==
	opNe      // !=
	opLt      // <
	opLe      // <=
	opGt      // >
	opGe      // >=
)

var opText = [...]string{
	opNone: "", opAdd: "+", opSub: "-", opMul: "*", opDiv: "/", opMod: "%",
	opAnd: "&", opOr: "|", opXor: "^", opNot: "~", opEq: "==", opNe: "!=",
	opLt: "<", opLe: "<=", opGt: ">", opGe: ">=",
}

// token is one lexeme. text is the raw source of words, magic values and
// sizes, and the unquoted name of quoted tokens.
type token struct {
	kind tokKind
	op   op
	pos  int // byte offset of the first character
	end  int // byte offset just past the token
	text string
}

// describe names a token for an error message.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tWord, tMagic, tSize:
		return echo(t.text)
	case tQuoted:
		return "quoted name " + echo(t.text)
	case tOp:
		return "'" + opText[t.op] + "'"
	case tLParen:
		return "'('"
	case tRParen:
		return "')'"
	case tLBrack:
		return "'['"
	default:
		return "']'"
	}
}

// lexer splits an expression into tokens on demand.
type lexer struct {
	src    string
	pos    int
	count  int  // tokens produced, EOF excluded
	rbrack bool // the previous token was "]"
	rbEnd  int  // end of that "]"
}

// isWordChar reports whether c may appear in an unquoted word.
func isWordChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '_', '.', ':', '@', '?', '$':
		return true
	}
	return false
}

func isMagicChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func isSizeChar(c byte) bool {
	switch c {
	case 'b', 'w', 'd', 'q', 'B', 'W', 'D', 'Q':
		return true
	}
	return false
}

// next returns the next token, or an error for text that is not a token.
func (l *lexer) next() (token, *Error) {
	afterRBrack := l.rbrack
	l.rbrack = false
	for l.pos < len(l.src) {
		if c := l.src[l.pos]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			break
		}
		l.pos++
	}
	start := l.pos
	if start >= len(l.src) {
		return token{kind: tEOF, pos: start, end: start}, nil
	}
	l.count++
	if l.count > MaxTokens {
		return token{}, errorf(CodeTooManyTokens, start, "expression has more than %d tokens", MaxTokens)
	}
	s := l.src
	c := s[start]
	tok := token{pos: start}
	switch {
	case c == '.' && afterRBrack && l.rbEnd == start && start+1 < len(s) && isSizeChar(s[start+1]) &&
		(start+2 == len(s) || !isWordChar(s[start+2])):
		tok.kind, l.pos = tSize, start+2
	case c == '$':
		l.pos++
		for l.pos < len(s) && isMagicChar(s[l.pos]) {
			l.pos++
		}
		tok.kind = tMagic
		switch name := s[start:l.pos]; name {
		case "$", "$here", "$start", "$end":
		default:
			return token{}, errorf(CodeUnknownMagic, start, "unknown magic value %s; use $here, $start or $end", echo(name))
		}
	case isWordChar(c):
		for l.pos < len(s) && isWordChar(s[l.pos]) {
			l.pos++
		}
		tok.kind = tWord
	case c == '\'' || c == '"':
		i := start + 1
		for i < len(s) && s[i] != c {
			i++
		}
		if i >= len(s) {
			return token{}, errorf(CodeSyntax, start, "unterminated quoted name")
		}
		if i == start+1 {
			return token{}, errorf(CodeSyntax, start, "empty quoted name")
		}
		tok.kind, tok.text, tok.end, l.pos = tQuoted, s[start+1:i], i+1, i+1
		return tok, nil
	case c == '(':
		tok.kind, l.pos = tLParen, start+1
	case c == ')':
		tok.kind, l.pos = tRParen, start+1
	case c == '[':
		tok.kind, l.pos = tLBrack, start+1
	case c == ']':
		tok.kind, l.pos = tRBrack, start+1
		l.rbrack, l.rbEnd = true, start+1
	default:
		o, n, err := l.operator(start)
		if err != nil {
			return token{}, err
		}
		tok.kind, tok.op, l.pos = tOp, o, start+n
	}
	tok.end = l.pos
	tok.text = s[start:l.pos]
	return tok, nil
}

// operator lexes the operator at i and returns it with its length.
func (l *lexer) operator(i int) (op, int, *Error) {
	s := l.src
	two := ""
	if i+1 < len(s) {
		two = s[i : i+2]
	}
	switch two {
	case "==":
		return opEq, 2, nil
	case "!=":
		return opNe, 2, nil
	case "<=":
		return opLe, 2, nil
	case ">=":
		return opGe, 2, nil
	case "<<", ">>":
		return opNone, 0, errorf(CodeSyntax, i, "shift operators are not supported")
	case "&&", "||":
		return opNone, 0, errorf(CodeSyntax, i, "logical operators are not supported; use & and |")
	}
	switch s[i] {
	case '+':
		return opAdd, 1, nil
	case '-':
		return opSub, 1, nil
	case '*':
		return opMul, 1, nil
	case '/':
		return opDiv, 1, nil
	case '%':
		return opMod, 1, nil
	case '&':
		return opAnd, 1, nil
	case '|':
		return opOr, 1, nil
	case '^':
		return opXor, 1, nil
	case '~':
		return opNot, 1, nil
	case '<':
		return opLt, 1, nil
	case '>':
		return opGt, 1, nil
	case '=':
		return opNone, 0, errorf(CodeSyntax, i, "unexpected '='; use == to compare")
	case '!':
		return opNone, 0, errorf(CodeSyntax, i, "unexpected '!'; use != to compare or ~ to invert")
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	return opNone, 0, errorf(CodeSyntax, i, "unexpected character %s", echo(s[i:i+n]))
}
