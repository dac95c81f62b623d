package binview

import (
	"fmt"
	"strings"
	"time"

	"github.com/warden-mcp/warden/binview/budget"
)

// Default limits. The zero value of every Options field selects one of
// these, which are the hosted defaults: safe for a file from anyone.
const (
	// DefaultMaxFileSize is the largest file a hosted server opens.
	DefaultMaxFileSize = 64 << 20
	// LocalMaxFileSize is the cap a local (stdio or command-line) user
	// may choose instead.
	LocalMaxFileSize = 512 << 20
	// DefaultTimeout bounds one analysis.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxSymbols bounds the symbols kept from every source
	// together (symbol tables, pclntab, exports).
	DefaultMaxSymbols = 1 << 20
	// DefaultMaxImports bounds imports and exports, each.
	DefaultMaxImports = 1 << 17
	// DefaultMaxRelocations bounds the relocations kept.
	DefaultMaxRelocations = 1 << 20
	// DefaultMaxSections bounds segments and sections, each.
	DefaultMaxSections = 1 << 12
	// DefaultMaxStrings bounds the strings a view extracts.
	DefaultMaxStrings = 1 << 20
	// DefaultMinStringLen is the shortest string a view reports.
	DefaultMinStringLen = 4
	// DefaultMaxReadSize is the largest memory read, 64 KiB.
	DefaultMaxReadSize = 64 << 10
	// DefaultMaxFunctions bounds the function-start hints and Go
	// functions kept, each.
	DefaultMaxFunctions = 1 << 20
	// DefaultCodeTimeout bounds a view's code analysis (function
	// discovery, blocks, references), all stages together.
	DefaultCodeTimeout = 2 * time.Minute
	// DefaultMaxInstructions bounds the instructions the code analysis
	// decodes, all stages together.
	DefaultMaxInstructions = 64 << 20
)

// Options configure Analyze and New. A nil *Options and the zero value
// are safe: every zero field selects the hosted default named in its
// comment. The fields that change what an analysis contains are part of
// [Options.CacheKey].
type Options struct {
	// Format forces a format: "elf", "pe", "macho" or "raw". Empty:
	// detect it from the magic number; a file of no known format fails
	// with unsupported_format.
	Format Format
	// Arch is the architecture of a raw load (required for "raw"). It
	// is ignored for other formats, whose headers name the architecture.
	Arch Arch
	// BigEndian marks a raw load as big-endian; only ppc64 and s390x
	// honour it (s390x is always big-endian).
	BigEndian bool
	// Base is the load address of a raw load. Zero: 0.
	Base uint64
	// Slice picks the architecture of a Mach-O fat file by name
	// ("x86-64", "arm64"). Empty: the first slice.
	Slice Arch

	// MaxFileSize is the largest file accepted, in bytes. Zero:
	// DefaultMaxFileSize (64 MiB). A local user may raise it to
	// LocalMaxFileSize or beyond; the wiring decides.
	MaxFileSize int64
	// Timeout bounds Analyze, on top of the context. Zero:
	// DefaultTimeout (30 s).
	Timeout time.Duration
	// MaxSymbols bounds the symbols kept. Zero: DefaultMaxSymbols.
	MaxSymbols int
	// MaxImports bounds imports, and separately exports. Zero:
	// DefaultMaxImports.
	MaxImports int
	// MaxRelocations bounds the relocations kept. Zero:
	// DefaultMaxRelocations.
	MaxRelocations int
	// MaxSections bounds segments and sections, each. Zero:
	// DefaultMaxSections.
	MaxSections int
	// MaxFunctions bounds function-start hints and Go functions, each.
	// Zero: DefaultMaxFunctions.
	MaxFunctions int
	// MaxStrings bounds the strings a View extracts. Zero:
	// DefaultMaxStrings.
	MaxStrings int
	// MinStringLen is the shortest string reported, in characters.
	// Zero: DefaultMinStringLen (4).
	MinStringLen int
	// MaxReadSize is the largest memory read through View.Bytes. Zero:
	// DefaultMaxReadSize (64 KiB).
	MaxReadSize int

	// CodeTimeout bounds the view's code analysis (View.StartCode), all
	// stages together; what is found by then stays usable. Zero:
	// DefaultCodeTimeout (2 min).
	CodeTimeout time.Duration
	// MaxInstructions bounds the instructions the code analysis decodes.
	// Zero: DefaultMaxInstructions (64 Mi). When set it replaces
	// Limits.Instructions.
	MaxInstructions int64
	// Limits is the budget of the code analysis and of every answer
	// drawn from it (package budget): instructions decoded, functions,
	// blocks, edges and cross-references kept, the bytes of memory the
	// analysis holds, and the bytes of one graph or listing. Zero fields:
	// the budget's defaults, the same in process and in an isolated
	// worker.
	Limits budget.Limits

	// CodeRunner runs the code analysis somewhere else: an isolated
	// worker process (package binview/isolate). Nil: in this process.
	CodeRunner CodeRunner `json:"-"`
}

// withDefaults returns a copy of o (nil allowed) with every zero field
// set to its default.
func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.MaxFileSize <= 0 {
		c.MaxFileSize = DefaultMaxFileSize
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	def := func(p *int, d int) {
		if *p <= 0 {
			*p = d
		}
	}
	def(&c.MaxSymbols, DefaultMaxSymbols)
	def(&c.MaxImports, DefaultMaxImports)
	def(&c.MaxRelocations, DefaultMaxRelocations)
	def(&c.MaxSections, DefaultMaxSections)
	def(&c.MaxFunctions, DefaultMaxFunctions)
	def(&c.MaxStrings, DefaultMaxStrings)
	def(&c.MinStringLen, DefaultMinStringLen)
	def(&c.MaxReadSize, DefaultMaxReadSize)
	if c.CodeTimeout <= 0 {
		c.CodeTimeout = DefaultCodeTimeout
	}
	if c.MaxInstructions <= 0 {
		c.MaxInstructions = c.Limits.Instructions
	}
	if c.MaxInstructions <= 0 {
		c.MaxInstructions = DefaultMaxInstructions
	}
	c.Limits.Instructions = c.MaxInstructions
	c.Limits = c.Limits.WithDefaults()
	if c.Format != FormatRaw {
		c.Arch, c.BigEndian, c.Base = "", false, 0
	}
	if c.Arch == ArchS390X {
		c.BigEndian = true
	}
	return c
}

// CacheKey is a stable string of every option that changes what Analyze
// produces, with defaults applied: a server caches an Analysis under the
// file's SHA-256, EngineVersion and this key. Limits that only bound
// time or reads (Timeout, MaxReadSize, MaxFileSize) and the code
// analysis's bounds, which a View applies and no snapshot holds, are not
// part of it.
func (o *Options) CacheKey() string {
	c := o.withDefaults()
	var b strings.Builder
	fmt.Fprintf(&b, "f=%s;a=%s;be=%t;base=%x;slice=%s;", c.Format, c.Arch, c.BigEndian, c.Base, c.Slice)
	fmt.Fprintf(&b, "sym=%d;imp=%d;rel=%d;sec=%d;fn=%d;str=%d;minstr=%d",
		c.MaxSymbols, c.MaxImports, c.MaxRelocations, c.MaxSections, c.MaxFunctions, c.MaxStrings, c.MinStringLen)
	return b.String()
}
