package addrexpr

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Evaluate parses s and evaluates it as an address against t. It is
// Parse followed by [Expr.Eval].
func Evaluate(ctx context.Context, s string, t Target) (uint64, error) {
	e, err := parse(s)
	if err != nil {
		return 0, err
	}
	return e.Eval(ctx, t)
}

// EvalInteger parses s and evaluates it as an integer expression relative
// to base; see [Expr.EvalInteger].
func EvalInteger(ctx context.Context, s string, t Target, base uint64) (uint64, error) {
	e, err := parse(s)
	if err != nil {
		return 0, err
	}
	return e.EvalInteger(ctx, t, base)
}

// Eval evaluates the expression as an address against t: names resolve
// through t, $here is t.Here(), and arithmetic is modulo the target's
// address size. t may be nil for expressions that use only numbers.
// The error, if any, is an [*Error].
func (e *Expr) Eval(ctx context.Context, t Target) (uint64, error) {
	ev := evaluator{ctx: ctx, t: t, e: e, asize: addressSize(t)}
	ev.mask = widthMask(ev.asize)
	return ev.run()
}

// EvalInteger evaluates the expression as an integer parameter that is
// relative to an earlier address parameter, such as a length after a
// start address: $here (and $) is base rather than the target's current
// address, and arithmetic is in 64 bits whatever the address size, so the
// result is an unsigned 64-bit integer and negative values wrap. Names,
// $start, $end and reads work as in Eval, and [e] still reads an
// address-sized value.
//
// For a parameter "length" relative to "address", a caller evaluates
// address first and passes its value as base (or the parameter's default,
// or 0, when it is absent). Then "0n64" is 64 bytes, and
// "func_end - $here" is the distance from the address to func_end.
// Numbers are hex by default here too: "40" is 0x40.
func (e *Expr) EvalInteger(ctx context.Context, t Target, base uint64) (uint64, error) {
	ev := evaluator{ctx: ctx, t: t, e: e, asize: addressSize(t), mask: ^uint64(0), here: base, hereFixed: true}
	return ev.run()
}

// evaluator holds the state of one evaluation.
type evaluator struct {
	ctx       context.Context
	t         Target
	e         *Expr
	asize     int    // bytes read by [e] without a size
	mask      uint64 // result width
	here      uint64
	hereFixed bool // here overrides t.Here
	reads     int
}

func (ev *evaluator) run() (uint64, error) {
	if ev.e == nil || len(ev.e.nodes) == 0 {
		return 0, errorf(CodeSyntax, 0, "empty expression")
	}
	if ev.ctx == nil {
		ev.ctx = context.Background()
	}
	if err := ev.ctx.Err(); err != nil {
		return 0, &Error{Code: CodeCanceled, Message: "evaluation canceled", Err: err}
	}
	v, err := ev.eval(ev.e.root)
	if err != nil {
		return 0, err
	}
	return v, nil
}

func (ev *evaluator) needTarget(n *node, what string) *Error {
	if ev.t != nil {
		return nil
	}
	return errorf(CodeNoTarget, int(n.pos), "%s needs an active target", what)
}

func (ev *evaluator) eval(i int32) (uint64, *Error) {
	n := &ev.e.nodes[i]
	switch n.kind {
	case nNum:
		return n.val & ev.mask, nil
	case nName:
		return ev.name(n)
	case nHere:
		if ev.hereFixed {
			return ev.here & ev.mask, nil
		}
		if err := ev.needTarget(n, "$here"); err != nil {
			return 0, err
		}
		h, ok := ev.t.Here()
		if !ok {
			return 0, errorf(CodeHereUnset, int(n.pos), "$here is not set: there is no current address")
		}
		return h & ev.mask, nil
	case nStart:
		if err := ev.needTarget(n, "$start"); err != nil {
			return 0, err
		}
		return ev.t.Start() & ev.mask, nil
	case nEnd:
		if err := ev.needTarget(n, "$end"); err != nil {
			return 0, err
		}
		return ev.t.End() & ev.mask, nil
	case nUnary:
		v, err := ev.eval(n.left)
		if err != nil {
			return 0, err
		}
		if n.op == opNot {
			return ^v & ev.mask, nil
		}
		return -v & ev.mask, nil
	case nBinary:
		return ev.binary(n)
	case nRead:
		return ev.read(n)
	}
	return 0, errorf(CodeSyntax, int(n.pos), "malformed expression")
}

// name resolves a name: symbol, then section start, then hex number.
func (ev *evaluator) name(n *node) (uint64, *Error) {
	name := ev.e.text(n)
	if ev.t != nil {
		if a, ok := ev.t.Symbol(name); ok {
			return a & ev.mask, nil
		}
		if start, _, ok := ev.t.Section(name); ok {
			return start & ev.mask, nil
		}
	}
	switch n.hex {
	case hexYes:
		return n.val & ev.mask, nil
	case hexOverflow:
		return 0, errorf(CodeOverflow, int(n.pos), "%s is no known name and, as a hex number, does not fit in 64 bits", echo(name))
	}
	if err := ev.needTarget(n, "name "+echo(name)); err != nil {
		return 0, err
	}
	if strings.HasPrefix(name, ".") {
		return 0, errorf(CodeUnknownSection, int(n.pos), "unknown section %s", echo(name))
	}
	if h, ok := ev.t.(SymbolHinter); ok {
		if hint := h.SymbolHint(name); hint != "" {
			return 0, errorf(CodeUnknownSymbol, int(n.pos), "unknown symbol %s: %s", echo(name), hint)
		}
	}
	return 0, errorf(CodeUnknownSymbol, int(n.pos), "unknown symbol %s", echo(name))
}

func (ev *evaluator) binary(n *node) (uint64, *Error) {
	a, err := ev.eval(n.left)
	if err != nil {
		return 0, err
	}
	b, err := ev.eval(n.right)
	if err != nil {
		return 0, err
	}
	var v uint64
	switch n.op {
	case opAdd:
		v = a + b
	case opSub:
		v = a - b
	case opMul:
		v = a * b
	case opDiv, opMod:
		if b == 0 {
			return 0, errorf(CodeDivisionByZero, int(n.pos), "division by zero")
		}
		if n.op == opDiv {
			v = a / b
		} else {
			v = a % b
		}
	case opAnd:
		v = a & b
	case opOr:
		v = a | b
	case opXor:
		v = a ^ b
	case opEq:
		v = bool01(a == b)
	case opNe:
		v = bool01(a != b)
	case opLt:
		v = bool01(a < b)
	case opLe:
		v = bool01(a <= b)
	case opGt:
		v = bool01(a > b)
	case opGe:
		v = bool01(a >= b)
	}
	return v & ev.mask, nil
}

func bool01(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (ev *evaluator) read(n *node) (uint64, *Error) {
	addr, err := ev.eval(n.left)
	if err != nil {
		return 0, err
	}
	if err := ev.needTarget(n, "a memory read"); err != nil {
		return 0, err
	}
	ev.reads++
	if ev.reads > MaxReads {
		return 0, errorf(CodeTooManyReads, int(n.pos), "more than %d memory reads", MaxReads)
	}
	if err := ev.ctx.Err(); err != nil {
		return 0, &Error{Code: CodeCanceled, Pos: int(n.pos), Message: "evaluation canceled", Err: err}
	}
	size := int(n.size)
	if size == 0 {
		size = ev.asize
	}
	// Addresses are address-sized even in 64-bit integer expressions.
	addr &= widthMask(ev.asize)
	v, rerr := ev.t.Read(addr, size)
	if errors.Is(rerr, ErrReadSecret) {
		return 0, &Error{Code: CodeReadRefused, Pos: int(n.pos),
			Message: fmt.Sprintf("the %d bytes at %#x hold part of a credential, which this server's privacy mode does not show", size, addr), Err: rerr}
	}
	if errors.Is(rerr, ErrReadRefused) {
		return 0, &Error{Code: CodeReadRefused, Pos: int(n.pos), Message: "memory reads ([...]) are turned off for this caller", Err: rerr}
	}
	if rerr != nil {
		return 0, &Error{Code: CodeReadFailed, Pos: int(n.pos),
			Message: fmt.Sprintf("cannot read %d bytes at %#x", size, addr), Err: rerr}
	}
	return v & widthMask(size) & ev.mask, nil
}
