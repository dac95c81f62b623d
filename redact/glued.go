package redact

import (
	"context"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/warden-mcp/warden/secretscan"
)

// The glued pass: a credential whose prefix is glued to the word before
// it. KeySweep's rules for prefixed tokens start at a word boundary
// (`\bghp_...`), which is right for a scanner that reports what it finds:
// "abcghp_..." may be a longer word. But in a result, a token inside an
// identifier or after stray characters ("tok_ghp_...", "%zzghp_...",
// "xAKIA...") is still the token, and the privacy pass must not let it
// through. So every place where one of a few distinctive prefixes follows
// a letter, a digit or '_' is scanned again from the prefix on, alone,
// and a credential KeySweep finds starting there is removed like any
// other.
//
// Only prefixes that do not occur in ordinary words and names qualify
// (gluedPrefixes): those of rules that check a checksum or structure
// (ghp_, npm_, xoxb-, AKIA, sk-proj-...), and the others of five
// characters or more, less a few that are words ("secret_", "live_") or
// pieces of something else. A short generic prefix such as "key-" or
// "api-" glued into "cachekey-<md5>" would read a hash as a credential.
// The match itself is still KeySweep's: the prefix must be followed by a
// token of the rule's shape and length, so "tok_ghp_" followed by a
// short word is left alone.

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
	gluedOnce  sync.Once
	gluedFirst [256]bool           // whether a glued prefix starts with this byte
	gluedBy    map[uint16][]string // the glued prefixes by their first two bytes
)

// gluedPrefixes returns the prefixes the glued pass looks for, indexed.
func gluedPrefixes() map[uint16][]string {
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
		gluedBy = map[uint16][]string{}
		for _, p := range credentialPrefixes() {
			f := facts[p]
			if f.identifier || notGlued[p] || !(f.validated || len(p) >= 5) {
				continue
			}
			gluedFirst[p[0]] = true
			k := uint16(p[0])<<8 | uint16(p[1])
			gluedBy[k] = append(gluedBy[k], p)
		}
	})
	return gluedBy
}

// isGlue reports whether c glues a following prefix into its word: a
// letter, a digit or '_' before it leaves no word boundary.
func isGlue(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }

// gluedCuts appends to dst the cuts of s (string tok) that hold a
// credential whose prefix is glued to the word before it, and to spans,
// when not nil, their spans.
func (r *Redactor) gluedCuts(dst []cut, spans *[]Span, s string, tok int32) []cut {
	by := gluedPrefixes()
	// Windows may overlap (a second glued token inside the first one's
	// run is scanned from its own prefix); a string made of glued
	// prefixes must not cost a scan of a kilobyte for every five bytes,
	// so past a budget the rest of the string is removed unscanned.
	budget := 16*len(s) + 4*maxGluedWindow
	n0 := len(dst)
	for i := 1; i+4 <= len(s); i++ {
		if !gluedFirst[s[i]] || !isGlue(s[i-1]) {
			continue
		}
		var p string
		for _, q := range by[uint16(s[i])<<8|uint16(s[i+1])] {
			if strings.HasPrefix(s[i:], q) {
				p = q
				break
			}
		}
		if p == "" || covered(dst[:n0], tok, i) {
			continue // a cut of the main pass holds it already
		}
		e := i + len(p)
		for e < len(s) && e-i < maxGluedWindow && isTokenByte(s[e]) {
			e++
		}
		if e-i < len(p)+8 {
			continue // no token after the prefix
		}
		if budget -= e - i; budget < 0 {
			return unscannedCut(dst, spans, s, tok, i, len(s))
		}
		w := s[i:e]
		res, err := r.scanner.Scan(context.Background(), w)
		if err != nil || res.Truncated {
			dst = unscannedCut(dst, spans, s, tok, i, e)
			continue
		}
		for j := range res.Detections {
			d := &res.Detections[j]
			// Only a credential that starts at the prefix: the rest of
			// the window is scanned where it stands already.
			if d.Offset > len(p) || !r.redactsIn(d, w) {
				continue
			}
			dst = append(dst, cut{tok: tok, start: int32(i + d.Offset), end: int32(i + d.End), typ: d.Type})
			if spans != nil {
				*spans = append(*spans, Span{Type: d.Type, Family: d.Family, Start: i + d.Offset, End: i + d.End,
					Length: d.ValueLength, Fingerprint: d.Fingerprint})
			}
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
