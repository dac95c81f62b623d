package toolset

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/tool"
)

// byteReader reads a view's memory: *binview.View and *boundView.
type byteReader interface {
	Bytes(addr uint64, n int) ([]byte, error)
}

// secretBytes returns the spans of b, read at addr, that hold a
// credential in the caller's privacy mode (none in off). The credential
// pass reads redact.ByteContext bytes either side of b too, so a
// credential that b cuts, its start or its end outside b, is found whole
// and every byte of it within b is removed: no sequence of small reads
// puts one together.
func secretBytes(r *redact.Redactor, v byteReader, addr uint64, b []byte) []redact.Span {
	if r.Mode() == redact.Off || len(b) == 0 {
		return nil
	}
	left := min(uint64(redact.ByteContext), addr)
	var pre []byte
	for ; left > 0; left /= 2 {
		if p, err := v.Bytes(addr-left, int(left)); err == nil && len(p) == int(left) {
			pre = p
			break
		}
	}
	var post []byte
	if end := addr + uint64(len(b)); end >= addr {
		post, _ = v.Bytes(end, redact.ByteContext)
	}
	window := make([]byte, 0, len(pre)+len(b)+len(post))
	window = append(append(append(window, pre...), b...), post...)
	var out []redact.Span
	for _, s := range r.Bytes(window) {
		st, en := max(s.Start-len(pre), 0), min(s.End-len(pre), len(b))
		if st < en {
			s.Start, s.End, s.Length = st, en, en-st
			out = append(out, s)
		}
	}
	return out
}

// withoutSecretMatches drops, in balanced and strict, the matches of n
// bytes whose bytes overlap a credential: where a pattern occurs inside
// a token is the token, a character at a time. A match near no run of
// text (8 characters, as bytes or UTF-16LE) cannot overlap one and costs
// a small read; the others are checked by secretBytes over the 4 KiB
// block that holds them, once per block.
func withoutSecretMatches(r *redact.Redactor, v byteReader, hits []binview.Match, n int) []binview.Match {
	if r.Mode() == redact.Off || len(hits) == 0 {
		return hits
	}
	const block = 4096
	spans := map[uint64][]redact.Span{} // by block, absolute addresses
	overlaps := func(lo, hi uint64) bool {
		for blk := lo &^ (block - 1); blk < hi; blk += block {
			sp, ok := spans[blk]
			if !ok {
				b, _ := v.Bytes(blk, block)
				for _, s := range secretBytes(r, v, blk, b) {
					s.Start += int(blk)
					s.End += int(blk)
					sp = append(sp, s)
				}
				spans[blk] = sp
			}
			for _, s := range sp {
				if uint64(s.Start) < hi && uint64(s.End) > lo {
					return true
				}
			}
		}
		return false
	}
	out := hits[:0:0]
	for _, h := range hits {
		if nearText(v, h.Addr, n) && overlaps(h.Addr, h.Addr+uint64(n)) {
			continue
		}
		out = append(out, h)
	}
	return out
}

// nearText reports whether the n bytes at addr overlap a run of 8 text
// characters, as bytes or as UTF-16LE: a credential needs one.
func nearText(v byteReader, addr uint64, n int) bool {
	const margin = 16
	lo := addr - min(addr, margin)
	b, err := v.Bytes(lo, n+int(addr-lo)+margin)
	if err != nil || len(b) == 0 {
		return true // cannot tell: check
	}
	st, en := int(addr-lo), min(int(addr-lo)+n, len(b))
	isText := func(c byte) bool { return c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\r' }
	// Runs of text bytes, and of (text, 0) pairs at either alignment.
	run := 0
	for i, c := range b {
		if isText(c) {
			run++
		} else {
			run = 0
		}
		if run >= 8 && i >= st && i-run+1 < en {
			return true
		}
	}
	for odd := 0; odd < 2; odd++ {
		run = 0
		for i := odd; i+1 < len(b); i += 2 {
			if b[i+1] == 0 && b[i] != 0 && isText(b[i]) {
				run++
			} else {
				run = 0
			}
			if run >= 8 && i+1 >= st && i-2*(run-1) < en {
				return true
			}
		}
	}
	return false
}

// stringText is the text of string s cut to maxBytes (StringText), less
// the characters whose bytes hold part of a credential in the caller's
// privacy mode, each run of them replaced by the credential's marker: a
// preview cut inside a token shows none of it, wherever the cut falls,
// where the text pass would see the part shown as ordinary text. A
// string is a whole run of text bounded by other bytes, so the
// credential pass reads the rest of the string after the cut (up to
// redact.ByteContext bytes), not the bytes around it; a string shown
// whole is left to the text pass, which sees all of it.
func (bv *boundView) stringText(s binview.String, maxBytes int) (string, bool) {
	text, cut := bv.StringText(s, maxBytes)
	r := bv.redactor()
	if !cut || r.Mode() == redact.Off {
		return text, cut
	}
	n := min(s.Length, maxBytes+redact.ByteContext)
	b, err := bv.View.Bytes(s.Addr, n)
	if err != nil || len(b) != n {
		return text, cut
	}
	var spans []redact.Span
	for _, sp := range r.Bytes(b) {
		if sp.Start < maxBytes {
			sp.End = min(sp.End, maxBytes)
			spans = append(spans, sp)
		}
	}
	if len(spans) == 0 {
		return text, cut
	}
	b = b[:maxBytes]
	return textWithout(b, s.Encoding == "utf16le", spans), cut
}

// shownText is text, the first 4 KiB of string s, as the caller may see
// it: every credential in it replaced by its marker in balanced and
// strict (for bininspect_strings' query).
func (bv *boundView) shownText(s binview.String, text string) string {
	r := bv.redactor()
	if r.Mode() == redact.Off {
		return text
	}
	n := min(s.Length, 4096+redact.ByteContext)
	b, err := bv.View.Bytes(s.Addr, n)
	if err != nil || len(b) != n {
		return text
	}
	var spans []redact.Span
	for _, sp := range r.Bytes(b) {
		if sp.Start < 4096 {
			sp.End = min(sp.End, 4096)
			spans = append(spans, sp)
		}
	}
	if len(spans) == 0 {
		return text
	}
	return textWithout(b[:min(len(b), 4096)], s.Encoding == "utf16le", spans)
}

// textWithout decodes a string's bytes (ASCII, or UTF-16LE when wide)
// with the bytes of each span replaced by its marker, widened to whole
// UTF-16 characters.
func textWithout(b []byte, wide bool, spans []redact.Span) string {
	decode := func(p []byte) string {
		if !wide {
			return string(p)
		}
		u := make([]uint16, len(p)/2)
		for i := range u {
			u[i] = uint16(p[2*i]) | uint16(p[2*i+1])<<8
		}
		return string(utf16.Decode(u))
	}
	var sb strings.Builder
	prev := 0
	for _, sp := range spans {
		st, en := max(sp.Start, prev), min(sp.End, len(b))
		if wide { // whole characters
			st, en = st&^1, min((en+1)&^1, len(b))
		}
		if st >= en {
			continue
		}
		sb.WriteString(decode(b[prev:st]))
		sb.WriteString("[REDACTED:" + sp.Type + "]")
		prev = en
	}
	sb.WriteString(decode(b[prev:]))
	return sb.String()
}

// The tools that read at addresses: eval, memory_read, search_bytes and
// address_info. The raw bytes the last three show, and memory reads in
// expressions, follow whether memory_read may run for the caller
// (BinaryOptions.MemoryRead).

// viewTool defines a view-scoped tool that is not a list.
func viewTool[A, R any](name, title, desc string, fn func(ctx context.Context, call *tool.Call, v *boundView, in A) (R, error)) (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name: name, Title: title, Description: desc,
		Annotations: readOnly,
		Catalog:     binaryCatalog,
		Scope:       tool.ViewScoped,
	}, func(ctx context.Context, call *tool.Call, in A) (R, error) {
		v, err := boundOf(call)
		if err != nil {
			var zero R
			return zero, err
		}
		return fn(ctx, call, v, in)
	})
}

// location names an address as symbol+offset ("main+0x10"), or "" when
// no symbol holds it.
func location(v *binview.View, addr uint64) (sym string, off uint64, loc string) {
	s, off, ok := v.SymbolAt(addr)
	if !ok {
		return "", 0, ""
	}
	if off == 0 {
		return s.Name, 0, s.Name
	}
	return s.Name, off, s.Name + "+" + binview.Hex(off)
}

type evalArgs struct {
	Expression tool.Address `json:"expression" desc:"An address expression: numbers are hex by default (0n for decimal), names are symbols (main, main.main in a Go binary, printf), sections (.text) or sub_/data_ + hex; + - * / % & | ^ ~ and comparisons; [expr] reads memory ([rsp].q, .b .w .d .q for 1, 2, 4, 8 bytes)."`
}

// EvalResult is the value of an expression in every form.
type EvalResult struct {
	Hex      string `json:"hex" privacy:"plain" desc:"The value as an address: 0x and lower-case hex."`
	Decimal  string `json:"decimal" privacy:"plain" desc:"Unsigned decimal (a string: 64-bit values do not fit a JSON number)."`
	Signed   string `json:"signed" privacy:"plain" desc:"The 64-bit value read as a signed decimal."`
	Symbol   string `json:"symbol,omitempty" privacy:"plain" desc:"The symbol that holds the address."`
	Offset   string `json:"offset,omitempty" privacy:"plain" desc:"The distance from that symbol, hex."`
	Location string `json:"location,omitempty" privacy:"plain" desc:"symbol+offset, as a disassembler writes it."`
	Section  string `json:"section,omitempty" privacy:"plain"`
	Mapped   bool   `json:"mapped" desc:"The value is an address mapped in the file."`
}

func evalTool() (*tool.Tool, error) {
	return viewTool("bininspect_eval", "Evaluate an address expression",
		"Evaluate an address expression against the view and give the value in hex, unsigned and signed decimal, and as symbol+offset with its section. "+
			"Use it instead of converting bases or adding offsets yourself.",
		func(ctx context.Context, call *tool.Call, v *boundView, in evalArgs) (EvalResult, error) {
			a := uint64(in.Expression)
			r := EvalResult{Hex: binview.Hex(a), Decimal: strconv.FormatUint(a, 10), Signed: strconv.FormatInt(int64(a), 10), Mapped: v.Mapped(a)}
			if r.Mapped {
				sym, off, loc := location(v.View, a)
				r.Symbol, r.Location = sym, loc
				if sym != "" {
					r.Offset = binview.Hex(off)
				}
				if s, ok := v.SectionAt(a); ok {
					r.Section = s.FullName()
				}
			}
			return r, nil
		})
}

type memoryReadArgs struct {
	Address tool.Address `json:"address" desc:"Where to read (an address expression)."`
	Length  tool.IntExpr `json:"length" relative:"address" min:"1" max:"65536" desc:"How many bytes, at most 65536 (an integer, or an expression where $here is address)."`
}

// MemoryReadResult holds bytes read from the view.
type MemoryReadResult struct {
	Address   string `json:"address" privacy:"plain"`
	Length    int    `json:"length" desc:"Bytes read: fewer than requested at the end of mapped memory (warning partial_read)."`
	Requested int    `json:"requested"`
	Hex       string `json:"hex" privacy:"bytes" desc:"The bytes in hex. Bytes that hold a credential are replaced by its marker ([REDACTED:<type>]) in balanced and strict privacy; the hex either side still decodes."`
	Base64    string `json:"base64" privacy:"bytes" desc:"The bytes in base64; a credential's bytes are replaced as in hex, widened to whole base64 quanta, each piece decodable alone."`
}

func memoryReadTool(n *Native) (*tool.Tool, error) {
	return viewTool("bininspect_memory_read", "Read bytes",
		"Read up to 64 KiB of the view's memory at an address, as hex and base64. Zero-fill memory (.bss) reads as zeros; a read that runs off the end of mapped memory returns fewer bytes with the warning partial_read.",
		func(ctx context.Context, call *tool.Call, v *boundView, in memoryReadArgs) (MemoryReadResult, error) {
			b, err := v.Bytes(uint64(in.Address), int(in.Length))
			if err != nil {
				return MemoryReadResult{}, err
			}
			if len(b) < int(in.Length) {
				call.Warn(WarnPartialRead, "the read ran past the end of mapped memory: "+strconv.Itoa(len(b))+" of "+strconv.FormatUint(uint64(in.Length), 10)+" bytes")
			}
			spans := secretBytes(n.privacy(ctx), v, uint64(in.Address), b)
			return MemoryReadResult{Address: binview.Hex(uint64(in.Address)), Length: len(b), Requested: int(in.Length),
				Hex: redact.HexWithout(b, spans), Base64: redact.Base64Without(b, spans)}, nil
		})
}

type searchArgs struct {
	Pattern string        `json:"pattern,omitempty" maxLength:"1024" desc:"Bytes in hex with wildcards: 48 8B ?? ?? (?? any byte, 4? any low nibble), at most 256 bytes. Give pattern or text."`
	Text    string        `json:"text,omitempty" maxLength:"256" desc:"Text to find instead of a byte pattern, matched exactly."`
	UTF16   bool          `json:"utf16" default:"false" desc:"Search the text as UTF-16LE (Windows wide strings) instead of its UTF-8 bytes."`
	Offset  int           `json:"offset" default:"0" min:"0" desc:"Matches to skip."`
	Limit   int           `json:"limit" default:"100" min:"1" desc:"Matches per page, at most 1000 (larger values are clamped)."`
	Address *tool.Address `json:"address,omitempty" desc:"Only a match starting at exactly this address. Not with start, end or length."`
	Start   *tool.Address `json:"start,omitempty" desc:"Search from this address; with end or length to bound the range."`
	End     *tool.Address `json:"end,omitempty" desc:"Search before this address (exclusive); with start."`
	Length  *tool.IntExpr `json:"length,omitempty" relative:"start" desc:"The range's length from start, instead of end."`
	Query   string        `json:"query,omitempty" maxLength:"256" desc:"Keep matches whose location (symbol+offset) or section contains this, ignoring case."`
}

// SearchMatch is one match.
type SearchMatch struct {
	Address    string `json:"address" privacy:"plain"`
	FileOffset int64  `json:"file_offset"`
	Section    string `json:"section,omitempty" privacy:"plain"`
	Location   string `json:"location,omitempty" privacy:"plain" desc:"symbol+offset."`
	Bytes      string `json:"bytes" privacy:"bytes" desc:"The matched bytes, hex; bytes of a credential are replaced by its marker in balanced and strict privacy; empty where bininspect_memory_read is off for the caller (warning bytes_withheld)."`

	addr uint64
}

func searchBytesTool(n *Native) (*tool.Tool, error) {
	return viewTool("bininspect_search_bytes", "Search bytes",
		"Find a byte pattern with wildcards (48 8B ?? ??) or a text in the view's loaded bytes, in address order. At most 10,000 matches are found (warning truncated past them). "+
			"In balanced and strict privacy a match whose bytes overlap a credential is not listed or counted: where a pattern occurs inside a token would spell the token out.",
		func(ctx context.Context, call *tool.Call, v *boundView, in searchArgs) (Page[SearchMatch], error) {
			var p binview.Pattern
			var err error
			switch {
			case (in.Pattern == "") == (in.Text == ""):
				return Page[SearchMatch]{}, errcode.New(tool.CodeInvalidParams, "give pattern or text")
			case in.Pattern != "":
				p, err = binview.ParsePattern(in.Pattern)
			default:
				p, err = binview.TextPattern(in.Text, in.UTF16)
			}
			if err != nil {
				return Page[SearchMatch]{}, err
			}
			ranged, lo, hi, err := rangeOf(in.Address, in.Start, in.End, in.Length)
			if err != nil {
				return Page[SearchMatch]{}, err
			}
			if in.Address != nil {
				hi = lo + uint64(p.Len()) // a match that starts there
			}
			var hits []binview.Match
			cut := false
			// The engine reads Start and End both zero as everything; an
			// empty range asked for finds nothing.
			if !ranged || hi > lo {
				hits, cut, err = v.Search(ctx, p, binview.SearchOptions{Start: lo, End: hi, Max: binview.MaxSearchMatches})
				if err != nil {
					return Page[SearchMatch]{}, err
				}
			}
			if cut {
				call.Warn("truncated", "the search stopped at 10,000 matches; narrow it with start and end")
			}
			// Whether a pattern occurs inside a token spells the token
			// out a character at a time: such matches are not listed.
			hits = withoutSecretMatches(n.privacy(ctx), v, hits, p.Len())
			q := strings.ToLower(in.Query)
			var items []SearchMatch
			for _, h := range hits {
				m := SearchMatch{Address: binview.Hex(h.Addr), FileOffset: h.Offset, addr: h.Addr}
				if s, ok := v.SectionAt(h.Addr); ok {
					m.Section = s.FullName()
				}
				_, _, m.Location = location(v.View, h.Addr)
				if q != "" && !strings.Contains(strings.ToLower(m.Location), q) && !strings.Contains(strings.ToLower(m.Section), q) {
					continue
				}
				items = append(items, m)
			}
			page := pageOf(items, in.Offset, in.Limit)
			if v.withholdBytes(call) {
				return page, nil
			}
			priv := n.privacy(ctx)
			for i := range page.Items {
				b, _ := v.Bytes(page.Items[i].addr, p.Len())
				page.Items[i].Bytes = redact.HexWithout(b, secretBytes(priv, v, page.Items[i].addr, b))
			}
			return page, nil
		})
}

type addressInfoArgs struct {
	Address tool.Address `json:"address" desc:"The address to describe (an address expression)."`
	Preview int          `json:"preview" default:"16" min:"0" max:"256" desc:"Bytes of data to show from the address."`
}

// AddressInfoResult describes one address.
type AddressInfoResult struct {
	Address       string        `json:"address" privacy:"plain"`
	FileOffset    *int64        `json:"file_offset,omitempty" desc:"Absent in zero-fill memory (.bss)."`
	Perm          string        `json:"perm" privacy:"plain"`
	Segment       string        `json:"segment,omitempty" privacy:"plain"`
	Section       string        `json:"section,omitempty" privacy:"plain"`
	SectionOffset string        `json:"section_offset,omitempty" privacy:"plain"`
	Symbol        string        `json:"symbol,omitempty" privacy:"plain"`
	SymbolAddress string        `json:"symbol_address,omitempty" privacy:"plain"`
	SymbolOffset  string        `json:"symbol_offset,omitempty" privacy:"plain"`
	Location      string        `json:"location,omitempty" privacy:"plain" desc:"symbol+offset."`
	Function      *GoFuncInfo   `json:"go_function,omitempty" desc:"The Go function that holds the address, with the source position of its entry."`
	Import        *ImportItem   `json:"import,omitempty" desc:"Set when the address is an import's slot or stub."`
	String        *StringAtInfo `json:"string,omitempty" desc:"Set when the address lies in a string."`
	Preview       string        `json:"preview" privacy:"bytes" desc:"Bytes from the address, hex; bytes of a credential are replaced by its marker in balanced and strict privacy; empty where bininspect_memory_read is off for the caller (warning bytes_withheld)."`
}

// GoFuncInfo is a Go function from the function table.
type GoFuncInfo struct {
	Name  string `json:"name" privacy:"plain"`
	Entry string `json:"entry" privacy:"plain"`
	End   string `json:"end" privacy:"plain"`
	File  string `json:"file,omitempty" privacy:"path" desc:"Source file on the build machine."`
	Line  int    `json:"line,omitempty"`
}

// StringAtInfo is the string at an address.
type StringAtInfo struct {
	Address  string `json:"address" privacy:"plain"`
	Encoding string `json:"encoding" privacy:"plain"`
	Text     string `json:"text" privacy:"plain" desc:"The first 256 bytes."`
}

func addressInfoTool(n *Native) (*tool.Tool, error) {
	return viewTool("bininspect_address_info", "Describe an address",
		"Say what is at an address: file offset, permissions, segment and section (with the offset into it), the symbol that holds it as symbol+offset, the Go function and its source file and line, the import whose slot or stub it is, the string it lies in, and a preview of the bytes.",
		func(ctx context.Context, call *tool.Call, v *boundView, in addressInfoArgs) (AddressInfoResult, error) {
			a := uint64(in.Address)
			preview := in.Preview
			if preview > 0 && v.withholdBytes(call) {
				preview = 0
			}
			info, err := v.AddressInfo(a, preview)
			if err != nil {
				return AddressInfoResult{}, err
			}
			r := AddressInfoResult{Address: binview.Hex(a), Perm: info.Perm.String(), Segment: info.Segment, Section: info.Section,
				Preview: redact.HexWithout(info.Preview, secretBytes(n.privacy(ctx), v, a, info.Preview))}
			if info.HasOffset {
				off := info.Offset
				r.FileOffset = &off
			}
			if info.Section != "" {
				r.SectionOffset = binview.Hex(info.SectionOffset)
			}
			if info.Symbol != "" {
				r.Symbol, r.SymbolAddress, r.SymbolOffset = info.Symbol, binview.Hex(info.SymbolAddr), binview.Hex(info.SymbolOffset)
				_, _, r.Location = location(v.View, a)
			}
			if f := info.Function; f != nil {
				r.Function = &GoFuncInfo{Name: f.Name, Entry: binview.Hex(f.Entry), End: binview.Hex(f.End), File: f.File, Line: f.Line}
			}
			if im := info.Import; im != nil {
				r.Import = &ImportItem{Name: im.Name, Demangled: im.Demangled, Library: im.Library, Address: hexOrEmpty(im.Addr()),
					Slot: hexOrEmpty(im.Slot), Stub: hexOrEmpty(im.Stub), Ordinal: im.Ordinal, ByOrdinal: im.ByOrdinal,
					Version: im.Version, Delay: im.Delay, Weak: im.Weak}
			}
			if s, ok := v.StringAt(a); ok {
				text, _ := v.stringText(s, 256)
				r.String = &StringAtInfo{Address: binview.Hex(s.Addr), Encoding: s.Encoding, Text: strings.ToValidUTF8(text, "\uFFFD")}
			}
			return r, nil
		})
}
