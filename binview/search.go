package binview

import (
	"bytes"
	"context"
	"strings"

	"github.com/warden-mcp/warden/errcode"
)

// MaxPatternLen bounds a search pattern, in bytes.
const MaxPatternLen = 256

// Default and largest number of search matches.
const (
	DefaultSearchMatches = 100
	MaxSearchMatches     = 10000
)

// Pattern is a byte pattern with wildcards: each byte matches where
// data&mask == value&mask.
type Pattern struct {
	value, mask []byte
}

// Len is the pattern's length in bytes.
func (p Pattern) Len() int { return len(p.value) }

// ParsePattern parses hex bytes with wildcards: "48 8B ?? ??",
// "488b05????????", "4? 8b" ("?" is a wildcard nibble, "??" a wildcard
// byte). Spaces separate nothing and may appear anywhere between
// nibbles. A pattern of only wildcards, an odd number of nibbles or
// more than MaxPatternLen bytes is invalid_pattern.
func ParsePattern(s string) (Pattern, error) {
	var nib []byte // 0-15, or 16 for a wildcard
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == ',':
			continue
		case c >= '0' && c <= '9':
			nib = append(nib, c-'0')
		case c >= 'a' && c <= 'f':
			nib = append(nib, c-'a'+10)
		case c >= 'A' && c <= 'F':
			nib = append(nib, c-'A'+10)
		case c == '?':
			nib = append(nib, 16)
		default:
			return Pattern{}, errcode.New(CodeInvalidPattern, "a byte pattern has only hex digits, ? wildcards and spaces")
		}
		if len(nib) > 2*MaxPatternLen {
			return Pattern{}, errcode.New(CodeInvalidPattern, "the pattern is too long").WithDetail("maxBytes", MaxPatternLen)
		}
	}
	if len(nib) == 0 || len(nib)%2 != 0 {
		return Pattern{}, errcode.New(CodeInvalidPattern, "a byte pattern needs whole bytes (two hex digits or ?? each)")
	}
	p := Pattern{value: make([]byte, len(nib)/2), mask: make([]byte, len(nib)/2)}
	fixed := false
	for i := range p.value {
		hi, lo := nib[2*i], nib[2*i+1]
		if hi != 16 {
			p.value[i] |= hi << 4
			p.mask[i] |= 0xf0
		}
		if lo != 16 {
			p.value[i] |= lo
			p.mask[i] |= 0x0f
		}
		fixed = fixed || p.mask[i] != 0
	}
	if !fixed {
		return Pattern{}, errcode.New(CodeInvalidPattern, "the pattern has no fixed byte")
	}
	return p, nil
}

// TextPattern returns a pattern for the exact text, as ASCII/UTF-8
// bytes or, with utf16 set, as UTF-16LE.
func TextPattern(text string, utf16 bool) (Pattern, error) {
	if text == "" {
		return Pattern{}, errcode.New(CodeInvalidPattern, "the text is empty")
	}
	var b []byte
	if utf16 {
		for _, r := range text {
			if r > 0xffff {
				return Pattern{}, errcode.New(CodeInvalidPattern, "the text has a character outside the basic plane")
			}
			b = append(b, byte(r), byte(r>>8))
		}
	} else {
		b = []byte(text)
	}
	if len(b) > MaxPatternLen {
		return Pattern{}, errcode.New(CodeInvalidPattern, "the pattern is too long").WithDetail("maxBytes", MaxPatternLen)
	}
	return Pattern{value: b, mask: bytes.Repeat([]byte{0xff}, len(b))}, nil
}

// String renders the pattern as hex bytes with ?? wildcards.
func (p Pattern) String() string {
	const hexd = "0123456789abcdef"
	var sb strings.Builder
	for i, v := range p.value {
		if i > 0 {
			sb.WriteByte(' ')
		}
		m := p.mask[i]
		if m&0xf0 != 0 {
			sb.WriteByte(hexd[v>>4])
		} else {
			sb.WriteByte('?')
		}
		if m&0x0f != 0 {
			sb.WriteByte(hexd[v&0xf])
		} else {
			sb.WriteByte('?')
		}
	}
	return sb.String()
}

// SearchOptions bound a search.
type SearchOptions struct {
	// Start and End limit the search to addresses in [Start, End). Both
	// zero: every mapped byte.
	Start, End uint64
	// Max is the most matches returned. Zero: DefaultSearchMatches;
	// above MaxSearchMatches it is clamped.
	Max int
}

// Match is one search hit.
type Match struct {
	Addr   uint64 `json:"addr"`
	Offset int64  `json:"offset"`
}

// Search finds p in the file's loaded bytes (zero-fill memory is not
// searched), in address order, and reports whether it stopped at
// opts.Max. Matches do not span two segments.
func (v *View) Search(ctx context.Context, p Pattern, opts SearchOptions) ([]Match, bool, error) {
	if len(p.value) == 0 {
		return nil, false, errcode.New(CodeInvalidPattern, "the pattern is empty")
	}
	max := opts.Max
	if max <= 0 {
		max = DefaultSearchMatches
	}
	max = min(max, MaxSearchMatches)
	lo, hi := opts.Start, opts.End
	if lo == 0 && hi == 0 {
		hi = ^uint64(0)
	}
	// The anchor is the first fully fixed byte.
	anchor := -1
	for i, m := range p.mask {
		if m == 0xff {
			anchor = i
			break
		}
	}
	out := []Match{}
	// Regions may alias the same file bytes; a crafted file can make
	// thousands do so. Scanning stops after a few passes over the file.
	budget := 4*int64(len(v.data)) + 1<<20
	for ri := range v.regions {
		r := &v.regions[ri]
		if r.fileSize <= 0 {
			continue
		}
		s, e := r.addr, r.addr+uint64(r.fileSize)
		s, e = max64(s, lo), min(e, hi)
		if s >= e || e-s < uint64(len(p.value)) {
			continue
		}
		base := r.off + int64(s-r.addr)
		hay := v.data[base : base+int64(e-s)]
		if budget -= int64(len(hay)); budget < 0 {
			return out, true, nil
		}
		for i, n := 0, 0; i+len(p.value) <= len(hay); n++ {
			if n&1023 == 0 && ctx.Err() != nil {
				return out, true, errcode.Wrap(CodeAnalysisTimeout, "the search ran out of time", ctx.Err())
			}
			var at int
			if anchor >= 0 {
				k := bytes.IndexByte(hay[i+anchor:len(hay)-len(p.value)+anchor+1], p.value[anchor])
				if k < 0 {
					break
				}
				at = i + k
			} else {
				at = i
			}
			if p.matchAt(hay[at:]) {
				if len(out) >= max {
					return out, true, nil
				}
				out = append(out, Match{Addr: s + uint64(at), Offset: base + int64(at)})
			}
			i = at + 1
		}
	}
	return out, false, nil
}

func max64(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

func (p Pattern) matchAt(b []byte) bool {
	for i, v := range p.value {
		if b[i]&p.mask[i] != v&p.mask[i] {
			return false
		}
	}
	return true
}
