package addrexpr

import (
	"errors"
	"strconv"
	"strings"
)

// Limits on an expression. They bound the work of parsing and evaluation
// whatever the input.
const (
	MaxLen    = 1024 // bytes of expression text
	MaxTokens = 512  // tokens, including parentheses
	MaxDepth  = 64   // nesting of parentheses, brackets and unary operators
	MaxReads  = 64   // memory reads per evaluation
)

// nodeKind is the kind of an expression node.
type nodeKind uint8

const (
	nNum    nodeKind = iota // number literal: val
	nName                   // symbol or section name; hex says whether it may be a number
	nHere                   // $here or $
	nStart                  // $start
	nEnd                    // $end
	nUnary                  // op applied to left
	nBinary                 // left op right
	nRead                   // [left], size bytes (0 = address size)
)

// hexState says whether an unquoted name also reads as a hex number.
type hexState uint8

const (
	hexNo       hexState = iota // not made of hex digits, or quoted
	hexYes                      // val holds its value
	hexOverflow                 // hex digits, but more than 64 bits
)

// node is one expression node. Children are indexes into Expr.nodes.
// It holds no pointers, so a parsed expression costs the garbage collector
// nothing to scan.
type node struct {
	kind  nodeKind
	op    op
	hex   hexState
	size  uint8 // nRead: 1, 2, 4, 8, or 0 for the address size
	quote bool  // nName: quoted; the quotes surround the span
	pos   int32 // byte offset for error messages
	left  int32
	right int32
	off   int32 // span in Expr.src of the literal, name, magic or size
	len   int32
	val   uint64
}

// Expr is a parsed expression. It is immutable and safe for concurrent
// use; evaluate it with [Expr.Eval] or [Expr.EvalInteger].
type Expr struct {
	src   string
	nodes []node
	root  int32
}

// text returns the source span of n.
func (e *Expr) text(n *node) string {
	return e.src[n.off : n.off+n.len]
}

// span sets n's source span to the token's text.
func span(n node, t token, off int) node {
	n.off, n.len = int32(off), int32(len(t.text))
	return n
}

// Parse parses an expression without evaluating it. Names are resolved
// only at evaluation, so Parse needs no target. The error, if any, is an
// [*Error].
func Parse(s string) (*Expr, error) {
	e, err := parse(s)
	if err != nil {
		return nil, err
	}
	return e, nil
}

func parse(s string) (*Expr, *Error) {
	if len(s) > MaxLen {
		return nil, errorf(CodeTooLong, MaxLen, "expression is longer than %d bytes", MaxLen)
	}
	p := &parser{lx: lexer{src: s}}
	// A token needs at least one byte; most need two with a separator.
	p.nodes = make([]node, 0, min(len(s)/2+1, MaxTokens))
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tEOF {
		return nil, errorf(CodeSyntax, 0, "empty expression")
	}
	root, err := p.binary(1)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, errorf(CodeSyntax, p.tok.pos, "unexpected %s after a complete expression", p.tok.describe())
	}
	return &Expr{src: s, nodes: p.nodes, root: root}, nil
}

// parser is a precedence-climbing parser over the lexer.
type parser struct {
	lx    lexer
	tok   token
	nodes []node
	depth int
}

func (p *parser) advance() *Error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) add(n node) int32 {
	p.nodes = append(p.nodes, n)
	return int32(len(p.nodes) - 1)
}

// enter counts one level of nesting at pos.
func (p *parser) enter(pos int) *Error {
	p.depth++
	if p.depth > MaxDepth {
		return errorf(CodeTooDeep, pos, "expression nests more than %d levels deep", MaxDepth)
	}
	return nil
}

// precedence returns the binding power of a binary operator, higher binds
// tighter, or 0 when o is not a binary operator.
func precedence(o op) int {
	switch o {
	case opOr:
		return 1
	case opXor:
		return 2
	case opAnd:
		return 3
	case opEq, opNe:
		return 4
	case opLt, opLe, opGt, opGe:
		return 5
	case opAdd, opSub:
		return 6
	case opMul, opDiv, opMod:
		return 7
	}
	return 0
}

// binary parses operands joined by binary operators of precedence at
// least minPrec.
func (p *parser) binary(minPrec int) (int32, *Error) {
	left, err := p.unary()
	if err != nil {
		return 0, err
	}
	for p.tok.kind == tOp {
		prec := precedence(p.tok.op)
		if prec == 0 || prec < minPrec {
			break
		}
		o, pos := p.tok.op, p.tok.pos
		if err := p.advance(); err != nil {
			return 0, err
		}
		right, err := p.binary(prec + 1)
		if err != nil {
			return 0, err
		}
		left = p.add(node{kind: nBinary, op: o, pos: int32(pos), left: left, right: right})
	}
	return left, nil
}

func (p *parser) unary() (int32, *Error) {
	if p.tok.kind != tOp || (p.tok.op != opSub && p.tok.op != opNot) {
		return p.primary()
	}
	o, pos := p.tok.op, p.tok.pos
	if err := p.enter(pos); err != nil {
		return 0, err
	}
	if err := p.advance(); err != nil {
		return 0, err
	}
	operand, err := p.unary()
	if err != nil {
		return 0, err
	}
	p.depth--
	return p.add(node{kind: nUnary, op: o, pos: int32(pos), left: operand}), nil
}

func (p *parser) primary() (int32, *Error) {
	t := p.tok
	switch t.kind {
	case tWord:
		n, err := word(t)
		if err != nil {
			return 0, err
		}
		return p.add(n), p.advance()
	case tQuoted:
		n := span(node{kind: nName, quote: true, pos: int32(t.pos)}, t, t.pos+1)
		return p.add(n), p.advance()
	case tMagic:
		n := span(node{kind: nHere, pos: int32(t.pos)}, t, t.pos)
		switch t.text {
		case "$start":
			n.kind = nStart
		case "$end":
			n.kind = nEnd
		}
		return p.add(n), p.advance()
	case tLParen, tLBrack:
		if err := p.enter(t.pos); err != nil {
			return 0, err
		}
		if err := p.advance(); err != nil {
			return 0, err
		}
		inner, err := p.binary(1)
		if err != nil {
			return 0, err
		}
		closer, name := tRParen, "')'"
		if t.kind == tLBrack {
			closer, name = tRBrack, "']'"
		}
		if p.tok.kind != closer {
			return 0, errorf(CodeSyntax, p.tok.pos, "expected %s to close the %s at offset %d, found %s",
				name, t.describe(), t.pos, p.tok.describe())
		}
		p.depth--
		if err := p.advance(); err != nil {
			return 0, err
		}
		if t.kind == tLParen {
			return inner, nil
		}
		n := node{kind: nRead, pos: int32(t.pos), left: inner}
		if p.tok.kind == tSize {
			n = span(n, p.tok, p.tok.pos)
			n.size = sizeOf(p.tok.text[1])
			if err := p.advance(); err != nil {
				return 0, err
			}
		}
		return p.add(n), nil
	case tEOF:
		return 0, errorf(CodeSyntax, t.pos, "unexpected end of expression; expected a number, name or '('")
	default:
		return 0, errorf(CodeSyntax, t.pos, "expected a number, name or '(', found %s", t.describe())
	}
}

func sizeOf(c byte) uint8 {
	switch c | 0x20 { // lower case
	case 'b':
		return 1
	case 'w':
		return 2
	case 'd':
		return 4
	default:
		return 8
	}
}

// word classifies a word as a number literal or a name.
func word(t token) (node, *Error) {
	w := t.text
	n := span(node{kind: nNum, pos: int32(t.pos)}, t, t.pos)
	if w[0] != '0' {
		n.kind = nName
		if isHex(w) {
			n.hex = hexYes
			v, err := strconv.ParseUint(w, 16, 64)
			n.val = v
			if err != nil { // only a range error is possible
				n.hex = hexOverflow
			}
		}
		return n, nil
	}
	if w == "0" {
		return n, nil
	}
	base, digits, what := 8, w[1:], "octal"
	switch w[1] {
	case 'x', 'X':
		base, digits, what = 16, w[2:], "hex"
	case 'n', 'N':
		base, digits, what = 10, w[2:], "decimal"
	}
	if !validDigits(digits, base) {
		if base == 8 {
			return n, errorf(CodeSyntax, t.pos, "invalid number %s: a leading 0 means octal; write hex as 0x…, decimal as 0n…", echo(w))
		}
		return n, errorf(CodeSyntax, t.pos, "invalid %s number %s", what, echo(w))
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if errors.Is(err, strconv.ErrRange) {
		return n, errorf(CodeOverflow, t.pos, "number %s does not fit in 64 bits", echo(w))
	}
	if err != nil {
		return n, errorf(CodeSyntax, t.pos, "invalid %s number %s", what, echo(w))
	}
	n.val = v
	return n, nil
}

func isHex(s string) bool {
	return validDigits(s, 16)
}

// validDigits reports whether s is a non-empty run of digits of base.
func validDigits(s string, base int) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d int
		switch {
		case '0' <= c && c <= '9':
			d = int(c - '0')
		case 'a' <= c && c <= 'f':
			d = int(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = int(c-'A') + 10
		default:
			return false
		}
		if d >= base {
			return false
		}
	}
	return true
}

// String returns the expression in canonical form: the tokens as written,
// without spaces and without redundant parentheses. Parsing the result
// gives back an equivalent expression, and the result is never longer
// than the text that was parsed.
func (e *Expr) String() string {
	if e == nil || len(e.nodes) == 0 {
		return ""
	}
	var b strings.Builder
	e.write(&b, e.root)
	return b.String()
}

func (e *Expr) write(b *strings.Builder, i int32) {
	n := &e.nodes[i]
	switch n.kind {
	case nUnary:
		b.WriteString(opText[n.op])
		e.writeParen(b, n.left, e.nodes[n.left].kind == nBinary)
	case nBinary:
		prec := precedence(n.op)
		l, r := &e.nodes[n.left], &e.nodes[n.right]
		e.writeParen(b, n.left, l.kind == nBinary && precedence(l.op) < prec)
		b.WriteString(opText[n.op])
		e.writeParen(b, n.right, r.kind == nBinary && precedence(r.op) <= prec)
	case nRead:
		b.WriteByte('[')
		e.write(b, n.left)
		b.WriteByte(']')
		b.WriteString(e.text(n))
	case nName:
		if n.quote {
			b.WriteString(e.src[n.off-1 : n.off+n.len+1])
			return
		}
		b.WriteString(e.text(n))
	default:
		b.WriteString(e.text(n))
	}
}

func (e *Expr) writeParen(b *strings.Builder, i int32, paren bool) {
	if paren {
		b.WriteByte('(')
	}
	e.write(b, i)
	if paren {
		b.WriteByte(')')
	}
}
