// Package budget bounds what one analysis of an untrusted file may use:
// instructions decoded, functions, basic blocks, control-flow edges and
// cross-references kept, the bytes of memory all of that holds, and the
// bytes of one answer drawn from it (a listing, a DOT or SVG graph).
//
// Every stage of the code analysis (package binview/funcs) and every
// graph or listing drawn from it take from one [Budget], counting each
// thing as it is made, before it is kept: a check is an addition and a
// comparison. A limit counted with [Budget.Take] (blocks, edges, bytes,
// output) fails the work when it is passed, with the error code
// analysis_limit ([Code]), whose details name the limit ("limit":
// "bytes") and its value ("max"), and the budget stays spent: every
// later Take fails the same way, so the work stops at its next check. A
// limit counted with [Budget.Try] (the instructions decoded, the
// functions and cross-references kept) only refuses more: the work goes
// on without it, and says so in a warning.
//
// The limits are the same for an analysis in the server's process and in
// the isolated worker (package binview/isolate): the worker's memory
// limit is the backstop for what the counts miss, never the bound a
// normal file meets. [DefaultLimits] fit the largest files a hosted
// server accepts; docs/bininspect.md derives the server's memory bound
// from them.
package budget

import (
	"fmt"

	"github.com/warden-mcp/warden/errcode"
)

// Code is the error code of a limit reached.
const Code = "analysis_limit"

// Kind is what a limit counts.
type Kind uint8

// The kinds, and the names analysis_limit's "limit" detail gives them.
const (
	// Instructions decoded by one analysis, every stage together.
	Instructions Kind = iota
	// Functions kept.
	Functions
	// Blocks: basic blocks kept, every function together.
	Blocks
	// Edges: control-flow edges between blocks kept.
	Edges
	// Xrefs: cross-references kept.
	Xrefs
	// Bytes of memory the analysis holds, its working state and its
	// results, estimated as they grow.
	Bytes
	// Output is the bytes of one answer drawn from an analysis: a
	// function's instructions with their text, its DOT or SVG graph.
	Output
	numKinds
)

var kindNames = [numKinds]string{"instructions", "functions", "blocks", "edges", "xrefs", "bytes", "output"}

// String returns the limit's name: "instructions", "functions", "blocks",
// "edges", "xrefs", "bytes" or "output".
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "unknown"
}

// Default limits. They fit the largest files a hosted server opens (64
// MiB): the stripped Go compiler (25 MB, 20,265 functions, 2.4 million
// instructions decoded for its function list, 556,000 cross-references)
// holds 73 MiB at most, under a third of the bytes, and less than a
// tenth of every other limit.
const (
	DefaultInstructions = 64 << 20
	DefaultFunctions    = 1 << 20
	DefaultBlocks       = 8 << 20
	DefaultEdges        = 16 << 20
	DefaultXrefs        = 16 << 20
	DefaultBytes        = 256 << 20
	DefaultOutput       = 8 << 20
)

// Limits are the caps of a budget. A zero (or negative) field selects
// the default its constant names; the zero value is DefaultLimits.
type Limits struct {
	// Instructions decoded, every stage together. Zero:
	// DefaultInstructions (64 Mi).
	Instructions int64 `json:"instructions,omitempty"`
	// Functions kept. Zero: DefaultFunctions (1 Mi).
	Functions int64 `json:"functions,omitempty"`
	// Blocks kept, every function together. Zero: DefaultBlocks (8 Mi).
	Blocks int64 `json:"blocks,omitempty"`
	// Edges kept. Zero: DefaultEdges (16 Mi).
	Edges int64 `json:"edges,omitempty"`
	// Xrefs kept. Zero: DefaultXrefs (16 Mi).
	Xrefs int64 `json:"xrefs,omitempty"`
	// Bytes of memory held, estimated. Zero: DefaultBytes (256 MiB).
	Bytes int64 `json:"bytes,omitempty"`
	// Output is the bytes of one answer. Zero: DefaultOutput (8 MiB).
	Output int64 `json:"output,omitempty"`
}

// DefaultLimits are the limits of the zero Limits.
var DefaultLimits = Limits{}.WithDefaults()

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	def := func(p *int64, d int64) {
		if *p <= 0 {
			*p = d
		}
	}
	def(&l.Instructions, DefaultInstructions)
	def(&l.Functions, DefaultFunctions)
	def(&l.Blocks, DefaultBlocks)
	def(&l.Edges, DefaultEdges)
	def(&l.Xrefs, DefaultXrefs)
	def(&l.Bytes, DefaultBytes)
	def(&l.Output, DefaultOutput)
	return l
}

// Max returns the limit of kind k, defaults applied.
func (l Limits) Max(k Kind) int64 {
	l = l.WithDefaults()
	switch k {
	case Instructions:
		return l.Instructions
	case Functions:
		return l.Functions
	case Blocks:
		return l.Blocks
	case Edges:
		return l.Edges
	case Xrefs:
		return l.Xrefs
	case Bytes:
		return l.Bytes
	case Output:
		return l.Output
	}
	return 0
}

// Budget counts what one analysis uses against its limits. It is not
// safe for concurrent use: an analysis runs on one goroutine, and each
// answer drawn from it takes a budget of its own.
type Budget struct {
	max  [numKinds]int64
	used [numKinds]int64
	peak [numKinds]int64
	err  *errcode.Error
}

// New returns a budget with the limits l (zero fields: the defaults).
func New(l Limits) *Budget {
	b := &Budget{}
	for k := Kind(0); k < numKinds; k++ {
		b.max[k] = l.Max(k)
	}
	return b
}

// Take counts n more of kind k. It fails with analysis_limit when that
// passes k's limit, or when any limit was passed before: the budget is
// spent and the work must stop. What was counted stays counted.
func (b *Budget) Take(k Kind, n int64) error {
	if b.err != nil {
		return b.err
	}
	b.used[k] += n
	b.peak[k] = max(b.peak[k], b.used[k])
	if b.used[k] > b.max[k] {
		b.err = LimitError(k, b.max[k])
		return b.err
	}
	return nil
}

// Try counts n more of kind k if that stays within k's limit and
// reports whether it did. Passing the limit this way does not spend the
// budget: it is for the limits past which work goes on without doing or
// keeping more (the instructions a walk decodes, the functions it keeps).
func (b *Budget) Try(k Kind, n int64) bool {
	if b.used[k]+n > b.max[k] {
		return false
	}
	b.used[k] += n
	b.peak[k] = max(b.peak[k], b.used[k])
	return true
}

// Give returns n of kind k taken before: memory a stage freed (a
// function's scratch once its blocks are built). It never revives a
// spent budget.
func (b *Budget) Give(k Kind, n int64) {
	b.used[k] = max(0, b.used[k]-n)
}

// Used returns how much of kind k is counted now.
func (b *Budget) Used(k Kind) int64 { return b.used[k] }

// Peak returns the most of kind k counted at once.
func (b *Budget) Peak(k Kind) int64 { return b.peak[k] }

// Max returns the limit of kind k.
func (b *Budget) Max(k Kind) int64 { return b.max[k] }

// Left returns what kind k may still take (zero once spent).
func (b *Budget) Left(k Kind) int64 {
	if b.err != nil {
		return 0
	}
	return max(0, b.max[k]-b.used[k])
}

// Err returns the analysis_limit error of the first limit passed, or
// nil.
func (b *Budget) Err() error {
	if b.err == nil {
		return nil
	}
	return b.err
}

// LimitError is the error of limit k, whose value is max: analysis_limit
// with the details "limit" (k's name) and "max".
func LimitError(k Kind, max int64) *errcode.Error {
	return errcode.New(Code, fmt.Sprintf("the analysis reached its %s limit (%d); this file needs more than a call may use", k, max)).
		WithDetail("limit", k.String()).WithDetail("max", max)
}

// IsLimit reports whether err is an analysis_limit error, and which limit
// it names.
func IsLimit(err error) (string, bool) {
	e, ok := errcode.As(err)
	if !ok || e.Code != Code {
		return "", false
	}
	l, _ := e.Details["limit"].(string)
	return l, true
}
