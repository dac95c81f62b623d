package binview

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Default and largest page sizes for list queries.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Query selects a page of a list: items in an address range whose text
// contains a substring, from Offset, at most Limit of them.
type Query struct {
	// Offset is the number of matching items to skip.
	Offset int
	// Limit is the page size. Zero: DefaultLimit; above MaxLimit it is
	// clamped.
	Limit int
	// Ranged limits items to addresses in [Start, End).
	Ranged     bool
	Start, End uint64
	// Text keeps items whose name (or a string's text, an import's
	// library) contains it, ignoring case. Empty: all.
	Text string
}

// Page is one page of a list.
type Page[T any] struct {
	Items []T `json:"items"`
	// Total counts every item that matches the query.
	Total int `json:"total"`
	// Next is the Offset of the next page; 0 when this is the last.
	Next int `json:"nextOffset"`
	// Truncated reports that more items follow.
	Truncated bool `json:"truncated"`
}

func (q Query) limit() int {
	switch {
	case q.Limit <= 0:
		return DefaultLimit
	case q.Limit > MaxLimit:
		return MaxLimit
	}
	return q.Limit
}

// paginate pages items. When sorted, items are in ascending addr order
// and the range is found by binary search.
func paginate[T any](items []T, sorted bool, q Query, addr func(*T) uint64, match func(*T, string) bool) Page[T] {
	if q.Ranged && sorted {
		lo := sort.Search(len(items), func(i int) bool { return addr(&items[i]) >= q.Start })
		hi := sort.Search(len(items), func(i int) bool { return addr(&items[i]) >= q.End })
		if hi < lo {
			hi = lo
		}
		items = items[lo:hi]
	}
	limit := q.limit()
	off := max(q.Offset, 0)
	needle := strings.ToLower(q.Text)
	p := Page[T]{Items: []T{}}
	for i := range items {
		it := &items[i]
		if q.Ranged && !sorted {
			if a := addr(it); a < q.Start || a >= q.End {
				continue
			}
		}
		if needle != "" && !match(it, needle) {
			continue
		}
		if p.Total >= off && len(p.Items) < limit {
			p.Items = append(p.Items, *it)
		}
		p.Total++
	}
	if off+len(p.Items) < p.Total {
		p.Truncated = true
		p.Next = off + len(p.Items)
	}
	return p
}

// containsFold reports whether s contains needle, which is lower case,
// ignoring ASCII case; other text falls back to strings.ToLower.
func containsFold(s, needle string) bool {
	if len(needle) > len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), needle)
		}
	}
	n := len(needle)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}

// ListSections pages the sections (mapped ones in address order, then
// the others); Text matches the name.
func (v *View) ListSections(q Query) Page[Section] {
	return paginate(v.a.Sections, false, q, func(s *Section) uint64 { return s.Addr },
		func(s *Section, n string) bool { return containsFold(s.FullName(), n) })
}

// ListSegments pages the segments; Text matches the name.
func (v *View) ListSegments(q Query) Page[Segment] {
	return paginate(v.a.Segments, true, q, func(s *Segment) uint64 { return s.Addr },
		func(s *Segment, n string) bool { return containsFold(s.Name, n) })
}

// ListSymbols pages the symbols by address; Text matches the raw or
// demangled name.
func (v *View) ListSymbols(q Query) Page[Symbol] {
	return paginate(v.syms, true, q, func(s *Symbol) uint64 { return s.Addr },
		func(s *Symbol, n string) bool { return containsFold(s.Name, n) || containsFold(s.Demangled, n) })
}

// ListImports pages the imports by library and name; the range applies
// to Import.Addr; Text matches the name, demangled name or library.
func (v *View) ListImports(q Query) Page[Import] {
	return paginate(v.a.Imports, false, q, func(s *Import) uint64 { return s.Addr() },
		func(s *Import, n string) bool {
			return containsFold(s.Name, n) || containsFold(s.Demangled, n) || containsFold(s.Library, n)
		})
}

// ListExports pages the exports by address; Text matches the name,
// demangled name or forwarder.
func (v *View) ListExports(q Query) Page[Export] {
	return paginate(v.a.Exports, true, q, func(s *Export) uint64 { return s.Addr },
		func(s *Export, n string) bool {
			return containsFold(s.Name, n) || containsFold(s.Demangled, n) || containsFold(s.Forwarder, n)
		})
}

// ListRelocations pages the relocations by address; Text matches the
// symbol or type.
func (v *View) ListRelocations(q Query) Page[Relocation] {
	return paginate(v.a.Relocations, true, q, func(s *Relocation) uint64 { return s.Addr },
		func(s *Relocation, n string) bool { return containsFold(s.Symbol, n) || containsFold(s.Type, n) })
}

// ListGoFunctions pages the Go functions by entry; Text matches the
// name or file.
func (v *View) ListGoFunctions(q Query) Page[GoFunction] {
	return paginate(v.a.GoFunctions, true, q, func(s *GoFunction) uint64 { return s.Entry },
		func(s *GoFunction, n string) bool { return containsFold(s.Name, n) || containsFold(s.File, n) })
}

// ListStrings pages the strings by address; Text matches the string's
// text (its first 4 KiB).
func (v *View) ListStrings(q Query) Page[String] {
	return v.ListStringsShown(q, nil)
}

// ListStringsShown is ListStrings where q.Text is matched against what a
// caller shows of each string: shown returns it for a string whose raw
// text (its first 4 KiB) matches, so that a string that only matches in
// text the caller withholds (a credential a privacy mode removes) is
// neither listed nor counted. Nil shown: the raw text.
func (v *View) ListStringsShown(q Query, shown func(s String, text string) string) Page[String] {
	strs, _ := v.Strings()
	return paginate(strs, true, q, func(s *String) uint64 { return s.Addr },
		func(s *String, n string) bool {
			t, _ := v.StringText(*s, 4096)
			if !containsFold(t, n) {
				return false
			}
			return shown == nil || containsFold(shown(*s, t), n)
		})
}
