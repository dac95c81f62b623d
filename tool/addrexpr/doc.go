// Package addrexpr parses and evaluates address expressions: the strings
// that tool parameters of kind "address expression" and "integer
// expression" accept, such as "0x401000", "main", ".text + 10" or
// "[rsp].q - 8".
//
// The syntax follows the expression language of Binary Ninja's
// BinaryView.parse_expression, which its MCP server uses for every address
// parameter, so that prompts and habits carry over. Where that language is
// ambiguous or hostile to machine callers this package makes a choice and
// documents it below.
//
// The package is a leaf: it imports only the standard library and knows
// nothing of MCP. The caller supplies the active target (an open binary, a
// process) through the [Target] interface.
//
// # Use
//
//	e, err := addrexpr.Parse("main + 0n16")
//	if err != nil { ... }           // *Error with Code "syntax_error", ...
//	addr, err := e.Eval(ctx, target) // resolves names and reads memory
//
// or in one step with [Evaluate]. An [Expr] is immutable and safe for
// concurrent use. Integer parameters that are relative to an earlier
// address parameter (a length, a count) use [EvalInteger] or
// [Expr.EvalInteger], which bind $here to that earlier value.
//
// # Grammar
//
// In EBNF, lowest precedence first. Whitespace (space, tab, CR, LF) may
// separate tokens and is otherwise ignored.
//
//	Expr           = BitOr .
//	BitOr          = BitXor { "|" BitXor } .
//	BitXor         = BitAnd { "^" BitAnd } .
//	BitAnd         = Equality { "&" Equality } .
//	Equality       = Relation { ( "==" | "!=" ) Relation } .
//	Relation       = Additive { ( "<" | "<=" | ">" | ">=" ) Additive } .
//	Additive       = Multiplicative { ( "+" | "-" ) Multiplicative } .
//	Multiplicative = Unary { ( "*" | "/" | "%" ) Unary } .
//	Unary          = ( "-" | "~" ) Unary | Primary .
//	Primary        = Word | Quoted | Magic | "(" Expr ")" | Read .
//	Read           = "[" Expr "]" [ Size ] .
//	Size           = ".b" | ".w" | ".d" | ".q" .   (directly after "]", no space;
//	                                               upper case also accepted)
//	Magic          = "$" | "$here" | "$start" | "$end" .
//	Quoted         = "'" { any character but "'" } "'"
//	               | `"` { any character but `"` } `"` .
//	Word           = WordChar { WordChar } .
//	WordChar       = "A"…"Z" | "a"…"z" | "0"…"9" | "_" | "." | ":" | "@" | "?" | "$" .
//	                 (a Word cannot start with "$"; that is Magic)
//
// Binary operators are left-associative and bind as in C. All of them work
// on unsigned integers.
//
// # Words: numbers and names
//
// A Word is classified by its first characters:
//
//   - "0x" or "0X" followed by hex digits is a hexadecimal number.
//   - "0n" or "0N" followed by decimal digits is a decimal number.
//   - "0" followed only by octal digits is an octal number ("017" is 15);
//     "0" alone is zero. Any other word that starts with "0" ("08",
//     "0ff", "0b101") is a syntax error, never a name, so that a typo is
//     not silently read in the wrong base.
//   - Any other word is a name. A name made only of hex digits ("10",
//     "add", "DEADBEEF") is ambiguous: it is looked up first, and only when
//     the target knows no such symbol or section is it read as a
//     hexadecimal number. So "10" is 0x10, not ten, and "add" is the
//     address of a symbol called add if there is one, else 0xadd.
//
// A name resolves to the address of the symbol of that name
// ([Target.Symbol]); failing that, to the start of the section of that
// name ([Target.Section]), so ".text + 0x10" is 16 bytes into .text.
// Names that need other characters, such as C++ names with templates or
// operators, are quoted: 'std::vector<int>::size' or "operator-". Quoted
// names are always names, never numbers. Unlike Binary Ninja's lexer, "-",
// "<" and ">" never occur inside unquoted names, so "main-4" is main minus
// 4 and "a<b" is a comparison.
//
// # Values
//
//   - $here (or $) is the target's current address ([Target.Here]), or
//     for integer expressions the earlier parameter's value.
//   - $start and $end are [Target.Start] and [Target.End]: the first
//     address of the target and the address just past its last byte.
//   - [e] reads an address-sized little-endian value at address e; [e].b,
//     [e].w, [e].d and [e].q read 1, 2, 4 and 8 bytes.
//   - Comparisons yield 1 or 0.
//   - "/" and "%" are unsigned; a zero divisor is an error.
//
// # Width
//
// Address expressions compute modulo 2^(8×[Target.AddressSize]): every
// number, name, read and intermediate result is masked to the address size
// (4 or 8 bytes), so on a 32-bit target "-1" is 0xffffffff and
// "0xffffffff + 2" is 1. Integer expressions always compute in 64 bits.
//
// # Limits and errors
//
// An expression is at most [MaxLen] bytes and [MaxTokens] tokens, nests
// parentheses, brackets and unary operators at most [MaxDepth] deep, and
// performs at most [MaxReads] memory reads per evaluation. Parsing and
// evaluation never panic. Every failure is an [*Error] carrying a stable
// snake_case Code, the byte offset of the offending token and a short
// message that is safe to show to a client; the cause from the target, if
// any, is reachable only through errors.Unwrap.
package addrexpr
