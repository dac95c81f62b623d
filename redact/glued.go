package redact

import (
	"context"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/warden-mcp/warden/secretscan"
)

// The glued pass: a credential glued to the text around it. KeySweep's
// rules for prefixed tokens start at a word boundary (`\bghp_...`) and
// reject a match that a letter or digit continues, which is right for a
// scanner that reports what it finds: "abcghp_..." may be a longer word.
// But in a result, a token inside an identifier or among stray
// characters ("tok_ghp_...", "%zzghp_...", "xAKIA..."), or packed against
// the next string of a binary ("ghp_...UH"), is still the token, and the
// privacy pass must not let it through. So every place where one of a
// few distinctive prefixes occurs, and the main pass found nothing, is
// scanned again from the prefix on, alone, with KeySweep's Glued
// scanner, which also takes a match of a rule with a checksum when
// something is glued to its end; a credential found starting at the
// prefix is removed like any other.
//
// Only prefixes that do not occur in ordinary words and names qualify
// (gluedPrefixes): those of rules that check a checksum or structure
// (ghp_, npm_, xoxb-, AKIA, sk-proj-...), and the others of five
// characters or more, less a few that are words ("secret_", "live_") or
// pieces of something else. A short generic prefix such as "key-" or
// "api-" glued into "cachekey-<md5>" would read a hash as a credential.
// The match itself is still KeySweep's: the prefix must be followed by a
// token of the rule's shape and length, so "tok_ghp_" followed by a
// short word is left alone, and a rule without a checksum still wants
// its match to end where the word does.

// maxGluedWindow bounds the text scanned after a glued prefix: the run
// of token characters from it, at most this long. The longest prefixed
// token KeySweep matches whole fits.
const maxGluedWindow = 1024

// notGlued are prefixes of five characters or more that ordinary text
// holds glued to a word, or that are not a token's start.
var notGlued = map[string]bool{
	"secret_": true, "live_": true, "v1.0-": true, ".atlasv1.": true,
	"AAAAAAAAAAAAAAAAAAAAA": true, "react_app_": true,
}

var (
	gluedOnce sync.Once
	// The pass finds a prefix by an anchor byte: the separator that ends
	// it ('_', '-', '.'), then its last four bytes (sepBy); or, for a
	// prefix of capitals and digits (AKIA), its first letter (capBy).
	// Prose and names hold few of either, so most bytes cost one look
	// in anchorClass.
	anchorClass [256]uint8
	sepPair     [1 << 16]bool // the last two bytes of a prefix in sepBy
	sepBy       sepTable
	capBy       [256][]string
)

const (
	sepAnchor = 1
	capAnchor = 2
)

func last4(s string) uint32 {
	return uint32(s[0])<<24 | uint32(s[1])<<16 | uint32(s[2])<<8 | uint32(s[3])
}

// gluedPrefixes indexes the prefixes the glued pass looks for.
func gluedPrefixes() {
	gluedOnce.Do(func() {
		type ruleFacts struct{ validated, identifier bool }
		facts := map[string]ruleFacts{}
		for _, ru := range secretscan.Rules() {
			for _, k := range ru.Keywords {
				f := facts[k]
				f.validated = f.validated || ru.Validated
				f.identifier = f.identifier || ru.Identifier || ru.Family == secretscan.FamilyIdentifier
				facts[k] = f
			}
		}
		for _, p := range credentialPrefixes() {
			f := facts[p]
			if f.identifier || notGlued[p] || !(f.validated || len(p) >= 5) {
				continue
			}
			if c := p[len(p)-1]; c == '_' || c == '-' || c == '.' {
				anchorClass[c] = sepAnchor
				sepBy.add(last4(p[len(p)-4:]), p)
				sepPair[uint16(p[len(p)-2])<<8|uint16(c)] = true
				continue
			}
			anchorClass[p[0]] = capAnchor // isPrefixKeyword: capitals and digits
			capBy[p[0]] = append(capBy[p[0]], p)
		}
	})
}

// sepTable maps the last four bytes of a prefix to the prefixes that end
// so: an open-addressing table, a few nanoseconds a look where a map
// takes twenty, since the pass looks at every separator of a result.
type sepTable struct {
	keys [sepSlots]uint32
	vals [sepSlots][]string
}

const sepSlots = 512 // a power of two, over twice the prefixes

func sepSlot(k uint32) uint32 { return (k * 0x9E3779B1) >> 23 } // 9 bits

func (t *sepTable) add(k uint32, p string) {
	for i := sepSlot(k); ; i = (i + 1) % sepSlots {
		if t.vals[i] == nil || t.keys[i] == k {
			t.keys[i], t.vals[i] = k, append(t.vals[i], p)
			return
		}
	}
}

func (t *sepTable) get(k uint32) []string {
	for i := sepSlot(k); t.vals[i] != nil; i = (i + 1) % sepSlots {
		if t.keys[i] == k {
			return t.vals[i]
		}
	}
	return nil
}

// gluedCuts appends to dst the cuts of s (string tok) that hold a
// credential glued to the text around it, and to spans, when not nil,
// their spans. dst holds the main pass's cuts of s already: a prefix
// inside one of them is not scanned again.
func (r *Redactor) gluedCuts(dst []cut, spans *[]Span, s string, tok int32) []cut {
	gluedPrefixes()
	g := gluedScan{r: r, spans: spans, s: s, tok: tok, n0: len(dst), last: -1,
		// Windows may overlap (a second glued token inside the first
		// one's run is scanned from its own prefix); a string made of
		// glued prefixes must not cost a scan of a kilobyte for every
		// five bytes, so past a budget the rest of the string is
		// removed unscanned.
		budget: 16*len(s) + 4*maxGluedWindow}
	for j := 0; j < len(s); j++ {
		switch anchorClass[s[j]] {
		case 0:
			continue
		case sepAnchor:
			if j < 3 || !sepPair[uint16(s[j-1])<<8|uint16(s[j])] {
				continue
			}
			for _, p := range sepBy.get(last4(s[j-3 : j+1])) {
				if i := j + 1 - len(p); i >= 0 && s[i:j+1] == p {
					if dst = g.at(dst, i, p); g.stop {
						return dst
					}
				}
			}
		case capAnchor:
			for _, p := range capBy[s[j]] {
				if strings.HasPrefix(s[j:], p) {
					if dst = g.at(dst, j, p); g.stop {
						return dst
					}
					break
				}
			}
		}
	}
	return dst
}

// gluedScan is the state of one gluedCuts call.
type gluedScan struct {
	r      *Redactor
	spans  *[]Span
	s      string
	tok    int32
	n0     int // cuts of the main pass end here in dst
	last   int // the last prefix scanned from
	budget int
	stop   bool
}

// at scans from a prefix p glued at s[i].
func (g *gluedScan) at(dst []cut, i int, p string) []cut {
	s := g.s
	if i == g.last || covered(dst[:g.n0], g.tok, i) {
		return dst // scanned already, or a cut of the main pass holds it
	}
	g.last = i
	e := i + len(p)
	for e < len(s) && e-i < maxGluedWindow && isTokenByte(s[e]) {
		e++
	}
	if e-i < len(p)+8 {
		return dst // no token after the prefix
	}
	if g.budget -= e - i; g.budget < 0 {
		g.stop = true
		return unscannedCut(dst, g.spans, s, g.tok, i, len(s))
	}
	w := s[i:e]
	res, err := g.r.glued.Scan(context.Background(), w)
	if err != nil || res.Truncated {
		return unscannedCut(dst, g.spans, s, g.tok, i, e)
	}
	for j := range res.Detections {
		d := &res.Detections[j]
		// Only a credential that starts at the prefix: the rest of the
		// window is scanned where it stands already.
		if d.Offset > len(p) || !g.r.redactsIn(d, w) {
			continue
		}
		dst = append(dst, cut{tok: g.tok, start: int32(i + d.Offset), end: int32(i + d.End), typ: d.Type})
		if g.spans != nil {
			*g.spans = append(*g.spans, Span{Type: d.Type, Family: d.Family, Start: i + d.Offset, End: i + d.End,
				Length: d.ValueLength, Fingerprint: d.Fingerprint})
		}
	}
	return dst
}

// covered reports whether a cut of string tok holds offset i.
func covered(cuts []cut, tok int32, i int) bool {
	for _, c := range cuts {
		if c.tok == tok && int(c.start) <= i && i < int(c.end) {
			return true
		}
	}
	return false
}

// unscannedCut removes s[st:en] unscanned (fail closed).
func unscannedCut(dst []cut, spans *[]Span, s string, tok int32, st, en int) []cut {
	if spans != nil {
		*spans = append(*spans, Span{Type: "unscanned", Start: st, End: en, Length: utf8.RuneCountInString(s[st:en])})
	}
	return append(dst, cut{tok: tok, start: int32(st), end: int32(en), typ: "unscanned"})
}
