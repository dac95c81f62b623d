package toolset

import (
	"context"
	"strings"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/tool"
)

// The list tools: sections, symbols, imports, exports and strings. Each
// takes offset and limit, an optional address range (address, or start
// with end or length) and a case-insensitive substring query, and
// returns one Page.

// Page is one page of a list tool's items.
type Page[T any] struct {
	Items []T `json:"items"`
	// Count is len(Items).
	Count int `json:"count" desc:"Items in this page."`
	// Total counts every item that matches.
	Total int `json:"total" desc:"Items that match, on every page."`
	// NextOffset is the offset of the next page (offset + count), and
	// absent when there is none.
	NextOffset int `json:"next_offset,omitempty" desc:"Offset of the next page (offset + count), absent on the last page; call again with it while truncated is true."`
	// Truncated reports that more items follow.
	Truncated bool `json:"truncated" desc:"More items follow this page."`
}

// pageOf pages items already filtered.
func pageOf[T any](items []T, offset, limit int) Page[T] {
	limit = clampLimit(limit)
	offset = max(offset, 0)
	total := len(items)
	lo := min(offset, total)
	hi := min(lo+limit, total)
	page := append([]T{}, items[lo:hi]...)
	p := Page[T]{Items: page, Count: len(page), Total: total, Truncated: hi < total}
	if p.Truncated {
		p.NextOffset = offset + len(page)
	}
	return p
}

func clampLimit(limit int) int {
	switch {
	case limit <= 0:
		return binview.DefaultLimit
	case limit > binview.MaxLimit:
		return binview.MaxLimit
	}
	return limit
}

// convert pages an engine page into a tool page.
func convert[T, U any](p binview.Page[T], offset int, f func(T) U) Page[U] {
	out := Page[U]{Items: make([]U, 0, len(p.Items)), Total: p.Total, Truncated: p.Truncated}
	for _, it := range p.Items {
		out.Items = append(out.Items, f(it))
	}
	out.Count = len(out.Items)
	if out.Truncated {
		out.NextOffset = max(offset, 0) + out.Count
	}
	return out
}

// listArgs are the arguments every list tool takes.
type listArgs struct {
	Offset  int           `json:"offset" default:"0" min:"0" desc:"Matching items to skip."`
	Limit   int           `json:"limit" default:"100" min:"1" desc:"Items per page, at most 1000 (larger values are clamped)."`
	Address *tool.Address `json:"address,omitempty" desc:"Only items at exactly this address (an address expression such as 0x401000, main or .text+0x10). Not with start, end or length."`
	Start   *tool.Address `json:"start,omitempty" desc:"Only items at or after this address (an address expression); with end or length to bound the range."`
	End     *tool.Address `json:"end,omitempty" desc:"Only items before this address (exclusive); with start."`
	Length  *tool.IntExpr `json:"length,omitempty" relative:"start" desc:"The range's length from start, instead of end (an integer, or an expression where $here is start)."`
	Query   string        `json:"query,omitempty" maxLength:"256" desc:"Keep items whose name (or text) contains this, ignoring case."`
}

// rangeOf reads the range arguments.
func rangeOf(address, start, end *tool.Address, length *tool.IntExpr) (ranged bool, lo, hi uint64, err error) {
	bad := func(msg string) (bool, uint64, uint64, error) {
		return false, 0, 0, errcode.New(tool.CodeInvalidParams, msg)
	}
	switch {
	case address != nil && (start != nil || end != nil || length != nil):
		return bad("give address alone, or start with end or length")
	case address != nil:
		a := uint64(*address)
		return true, a, a + 1, nil
	case end != nil && length != nil:
		return bad("give start with end or with length, not both")
	case start == nil && (end != nil || length != nil):
		return bad("end and length need start")
	case start == nil:
		return false, 0, 0, nil
	}
	lo, hi = uint64(*start), ^uint64(0)
	switch {
	case end != nil:
		hi = uint64(*end)
	case length != nil:
		if n := uint64(*length); n < hi-lo {
			hi = lo + n
		}
	}
	if hi < lo {
		return bad("end is before start")
	}
	return true, lo, hi, nil
}

func (a listArgs) query() (binview.Query, error) {
	ranged, lo, hi, err := rangeOf(a.Address, a.Start, a.End, a.Length)
	return binview.Query{Offset: a.Offset, Limit: a.Limit, Ranged: ranged, Start: lo, End: hi, Text: a.Query}, err
}

// listTool defines a view-scoped list tool.
func listTool[A any, T any](name, title, desc string, fn func(ctx context.Context, v *boundView, in A) (Page[T], error)) (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name: name, Title: title, Description: desc,
		Annotations: readOnly,
		Catalog:     binaryCatalog,
		Scope:       tool.ViewScoped,
	}, func(ctx context.Context, call *tool.Call, in A) (Page[T], error) {
		v, err := boundOf(call)
		if err != nil {
			return Page[T]{}, err
		}
		return fn(ctx, v, in)
	})
}

// SectionItem is one section.
type SectionItem struct {
	Name       string  `json:"name" privacy:"plain" desc:"Mach-O sections are segment,section."`
	Address    string  `json:"address" privacy:"plain"`
	End        string  `json:"end" privacy:"plain" desc:"Exclusive."`
	Size       uint64  `json:"size"`
	FileOffset int64   `json:"file_offset"`
	FileSize   int64   `json:"file_size" desc:"Bytes the file holds (0 for .bss)."`
	Perm       string  `json:"perm" privacy:"plain" desc:"rwx with dashes."`
	Mapped     bool    `json:"mapped" desc:"Loaded into memory; unmapped sections are reached by name."`
	Type       string  `json:"type,omitempty" privacy:"plain"`
	Compressed bool    `json:"compressed,omitempty"`
	Entropy    float64 `json:"entropy" desc:"Shannon entropy of the file bytes, 0 to 8 bits per byte: near 8 suggests compressed or encrypted data."`
}

func sectionsTool() (*tool.Tool, error) {
	return listTool("bininspect_sections", "List sections",
		"List the file's sections with address, size, file offset, permissions and entropy (high entropy suggests packed or encrypted data).",
		func(ctx context.Context, v *boundView, in listArgs) (Page[SectionItem], error) {
			q, err := in.query()
			if err != nil {
				return Page[SectionItem]{}, err
			}
			return convert(v.ListSections(q), in.Offset, func(s binview.Section) SectionItem {
				return SectionItem{Name: s.FullName(), Address: binview.Hex(s.Addr), End: binview.Hex(s.End()), Size: s.Size,
					FileOffset: s.Offset, FileSize: s.FileSize, Perm: s.Perm.String(), Mapped: s.Mapped, Type: s.Type,
					Compressed: s.Compressed, Entropy: round2(s.Entropy)}
			}), nil
		})
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// SymbolItem is one symbol.
type SymbolItem struct {
	Name      string `json:"name" privacy:"plain"`
	Demangled string `json:"demangled,omitempty" privacy:"plain"`
	Address   string `json:"address" privacy:"plain"`
	Size      uint64 `json:"size,omitempty"`
	Kind      string `json:"kind" privacy:"plain" desc:"function, object, section, file, tls, import or other."`
	Binding   string `json:"binding,omitempty" privacy:"plain" desc:"global, local or weak."`
	Source    string `json:"source" privacy:"plain" desc:"Where the name came from: symtab, dynsym, pclntab (Go, also when stripped), export, coff, macho."`
}

func symbolsTool() (*tool.Tool, error) {
	return listTool("bininspect_symbols", "List symbols",
		"List the file's symbols by address: symbol tables, exports and, for Go binaries (stripped ones too), every function of the Go function table. Query matches the raw or demangled name.",
		func(ctx context.Context, v *boundView, in listArgs) (Page[SymbolItem], error) {
			q, err := in.query()
			if err != nil {
				return Page[SymbolItem]{}, err
			}
			return convert(v.ListSymbols(q), in.Offset, func(s binview.Symbol) SymbolItem {
				return SymbolItem{Name: s.Name, Demangled: s.Demangled, Address: binview.Hex(s.Addr), Size: s.Size,
					Kind: string(s.Kind), Binding: s.Binding, Source: s.Source}
			}), nil
		})
}

// ImportItem is one import.
type ImportItem struct {
	Name      string `json:"name" privacy:"plain"`
	Demangled string `json:"demangled,omitempty" privacy:"plain"`
	Library   string `json:"library,omitempty" privacy:"plain"`
	Address   string `json:"address,omitempty" privacy:"plain" desc:"Where the name resolves: the stub when there is one, else the slot."`
	Slot      string `json:"slot,omitempty" privacy:"plain" desc:"The IAT/GOT entry the loader writes."`
	Stub      string `json:"stub,omitempty" privacy:"plain" desc:"The PLT or Mach-O stub."`
	Ordinal   uint32 `json:"ordinal,omitempty"`
	ByOrdinal bool   `json:"by_ordinal,omitempty"`
	Version   string `json:"version,omitempty" privacy:"plain"`
	Delay     bool   `json:"delay,omitempty" desc:"A PE delay-load import."`
	Weak      bool   `json:"weak,omitempty"`
}

func hexOrEmpty(a uint64) string {
	if a == 0 {
		return ""
	}
	return binview.Hex(a)
}

func importsTool() (*tool.Tool, error) {
	return listTool("bininspect_imports", "List imports",
		"List the functions and objects the file imports, by library, with their IAT/GOT slot and PLT stub. Query matches the name, demangled name or library; the range applies to the resolved address.",
		func(ctx context.Context, v *boundView, in listArgs) (Page[ImportItem], error) {
			q, err := in.query()
			if err != nil {
				return Page[ImportItem]{}, err
			}
			return convert(v.ListImports(q), in.Offset, func(s binview.Import) ImportItem {
				return ImportItem{Name: s.Name, Demangled: s.Demangled, Library: s.Library, Address: hexOrEmpty(s.Addr()),
					Slot: hexOrEmpty(s.Slot), Stub: hexOrEmpty(s.Stub), Ordinal: s.Ordinal, ByOrdinal: s.ByOrdinal,
					Version: s.Version, Delay: s.Delay, Weak: s.Weak}
			}), nil
		})
}

// ExportItem is one export.
type ExportItem struct {
	Name      string `json:"name" privacy:"plain"`
	Demangled string `json:"demangled,omitempty" privacy:"plain"`
	Address   string `json:"address" privacy:"plain"`
	Ordinal   uint32 `json:"ordinal,omitempty"`
	Forwarder string `json:"forwarder,omitempty" privacy:"plain" desc:"A PE forwarder such as NTDLL.RtlAllocateHeap."`
	Kind      string `json:"kind,omitempty" privacy:"plain"`
}

func exportsTool() (*tool.Tool, error) {
	return listTool("bininspect_exports", "List exports",
		"List the symbols the file exports, by address, with PE ordinals and forwarders. Query matches the name, demangled name or forwarder.",
		func(ctx context.Context, v *boundView, in listArgs) (Page[ExportItem], error) {
			q, err := in.query()
			if err != nil {
				return Page[ExportItem]{}, err
			}
			return convert(v.ListExports(q), in.Offset, func(s binview.Export) ExportItem {
				return ExportItem{Name: s.Name, Demangled: s.Demangled, Address: binview.Hex(s.Addr), Ordinal: s.Ordinal,
					Forwarder: s.Forwarder, Kind: string(s.Kind)}
			}), nil
		})
}

type stringsArgs struct {
	Offset       int           `json:"offset" default:"0" min:"0" desc:"Matching strings to skip."`
	Limit        int           `json:"limit" default:"100" min:"1" desc:"Strings per page, at most 1000 (larger values are clamped)."`
	Address      *tool.Address `json:"address,omitempty" desc:"Only the string at exactly this address. Not with start, end or length."`
	Start        *tool.Address `json:"start,omitempty" desc:"Only strings at or after this address; with end or length to bound the range."`
	End          *tool.Address `json:"end,omitempty" desc:"Only strings before this address (exclusive); with start."`
	Length       *tool.IntExpr `json:"length,omitempty" relative:"start" desc:"The range's length from start, instead of end."`
	Query        string        `json:"query,omitempty" maxLength:"256" desc:"Keep strings containing this, ignoring case (matched in each string's first 4 KiB; in balanced and strict privacy, as the text is shown, a credential replaced by its marker)."`
	PreviewBytes int           `json:"preview_bytes" default:"64" min:"1" max:"4096" desc:"Show at most this many bytes of each string's text."`
}

// StringItem is one string found in the file.
type StringItem struct {
	Address    string `json:"address" privacy:"plain"`
	FileOffset int64  `json:"file_offset"`
	Length     int    `json:"length" desc:"Length in characters."`
	Encoding   string `json:"encoding" privacy:"plain" desc:"ascii or utf16le."`
	Section    string `json:"section,omitempty" privacy:"plain"`
	// Text passes through the server's privacy mode like any result: a
	// credential embedded in a binary is a secret like any other.
	Text string `json:"text" privacy:"plain" desc:"The string, cut to preview_bytes."`
	Cut  bool   `json:"cut,omitempty" desc:"The text was cut to preview_bytes."`
}

func stringsTool() (*tool.Tool, error) {
	return listTool("bininspect_strings", "List strings",
		"List the printable strings (ASCII and UTF-16LE, 4 characters or more) in the file's loaded data, by address, with their section. Query finds strings containing a substring: URLs, paths, registry keys, error messages. Secrets in the text are redacted by the server's privacy mode.",
		func(ctx context.Context, v *boundView, in stringsArgs) (Page[StringItem], error) {
			ranged, lo, hi, err := rangeOf(in.Address, in.Start, in.End, in.Length)
			if err != nil {
				return Page[StringItem]{}, err
			}
			q := binview.Query{Offset: in.Offset, Limit: in.Limit, Ranged: ranged, Start: lo, End: hi, Text: in.Query}
			// The query matches what the listing shows: where a query
			// occurs inside a token would spell the token out.
			return convert(v.ListStringsShown(q, v.shownText), in.Offset, func(s binview.String) StringItem {
				text, cut := v.stringText(s, in.PreviewBytes)
				return StringItem{Address: binview.Hex(s.Addr), FileOffset: s.Offset, Length: s.Chars(), Encoding: s.Encoding,
					Section: s.Section, Text: strings.ToValidUTF8(text, "\uFFFD"), Cut: cut}
			}), nil
		})
}
