package redact

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/warden-mcp/warden/secretscan"
)

// The joint scan: every string of a JSON document scanned in a few
// KeySweep scans, each string as if alone (see render).

// scratch is the per-call working memory of redactJSON.
type scratch struct {
	tz    tokenizer
	buf   []byte // the scan text
	segs  []seg  // where strings appear in it, in order
	lines []line
	cuts  []cut
	named map[string]bool // member names seen in this call: hold a keyword?
	memo  pseudoMemo      // Strict's pseudonyms made in this call
}

// seg is one appearance of a string in the scan text.
type seg struct {
	start int32 // offset in the scan text
	tok   int32 // the string
}

// line is a piece of the scan text ending in a blank line: one string
// alone, or one member written as JSON; tok is the string scanned apart
// when the piece is over the decode budget (-1 for a member line).
type line struct {
	start, end int32
	tok        int32
}

type scratchPool struct{ p sync.Pool }

func (p *scratchPool) get() *scratch {
	if s, ok := p.p.Get().(*scratch); ok {
		return s
	}
	return &scratch{}
}

// put keeps a scratch for reuse unless one of its buffers grew large
// (about a megabyte): one huge result must not pin its memory for good.
func (p *scratchPool) put(s *scratch) {
	if cap(s.buf) > 1<<20 || cap(s.tz.arena) > 1<<20 || cap(s.tz.toks) > 1<<16 || cap(s.segs) > 1<<16 ||
		cap(s.lines) > 1<<16 || cap(s.cuts) > 1<<12 || cap(s.tz.stack) > 1<<12 {
		return
	}
	s.tz.src = nil
	clear(s.named)
	s.memo.reset()
	p.p.Put(s)
}

// redactJSON applies the text pass to every string of the JSON document
// src and returns the new document; changed is false (and src returned)
// when nothing was found.
func (r *Redactor) redactJSON(sc *scratch, src []byte, rep *Report) (out []byte, changed bool, err error) {
	if rep.Bytes+len(src) > r.maxBytes {
		return nil, false, errLimitBytes
	}
	tz := &sc.tz
	tz.src = src
	tz.maxStrings = r.maxStrings - rep.Strings
	if err := tz.run(); err != nil {
		if err == errTooMany {
			return nil, false, errLimitStrings
		}
		return nil, false, errMalformed(err)
	}
	rep.Strings += len(tz.toks)
	if len(tz.toks) == 0 {
		return src, false, nil
	}
	r.render(sc)
	rep.Bytes += len(sc.buf)
	if rep.Bytes > r.maxBytes {
		return nil, false, errLimitBytes
	}
	text := string(sc.buf)
	sc.cuts = sc.cuts[:0]
	if err := r.scanBatches(sc, text, rep); err != nil {
		return nil, false, err
	}
	r.scanEncoded(sc, text, rep)
	if len(sc.cuts) == 0 {
		return src, false, nil
	}
	return r.rewrite(sc), true, nil
}

// The scan text holds every string of the document (member names and
// values) exactly as decoded, each alone, followed by blank lines: to
// KeySweep each string is a text of its own, starting a line and ending
// one, which is what a scan of the string alone sees. Single-line rules
// never look past a line, quoted literals and quoted-printable soft breaks
// stop at the blank lines, and a detection maps back to its string by
// offset alone.
//
// Where a member's name holds one of KeySweep's keywords ("password",
// "api_key", "stripe"...) and its value is a string, the member also
// appears as JSON, after its value:
//
//	"name":"value"      the value holds no '"' and no '\'
//	"name": value       it does: written bare, so its quotes pair as alone
//
// so that KeySweep reads {"password": "..."} as the assignment it is,
// though neither string alone is one, just as it would in the text block
// of the same result. Every rule needs a keyword in or just before its
// match, so a name without one adds nothing. Detections of both
// appearances of a string add up.
//
// So a joint scan finds what scanning each string alone finds, and more.
// Three things could still make it miss, and each is handled:
//
//   - KeySweep decodes at most 256 encoded spans (base64, percent-encoding,
//     JSON escapes, quoted-printable) per scan. The spans a piece of text
//     can hold are counted from above (potential), and a scan never covers
//     pieces whose counts add up to more than batchBudget; a string over
//     the budget is scanned alone.
//   - KeySweep stops at a million keyword hits or at its detection cap,
//     and says so (Truncated): the batch is split in two and scanned
//     again, down to single strings, and a single string it gives up on
//     fails the pass.
//   - A few rules read beyond a line: multi-line patterns (PEM keys, key
//     pairs) and the look for a user name assigned above a password. A
//     neighbouring string can then add a finding, or a better-ranked one
//     covering a slightly different span; it cannot hide one.
//
// TestJointScanFindsWhatEachStringAloneFinds checks all this on every
// string of the shared example sets.
const batchBudget = 200

// sep ends every piece of the scan text. Four newlines: KeySweep looks at
// most three lines above a password (for a user name assigned there, or
// an anonymous login that makes the password no secret), so no string
// reads its neighbour's lines that way; and a string's trailing backslash
// or quoted-printable soft break consumes one newline at most.
const sep = "\n\n\n\n"

func (r *Redactor) render(sc *scratch) {
	tz := &sc.tz
	toks := tz.toks
	buf := sc.buf[:0]
	sc.lines = sc.lines[:0]
	sc.segs = sc.segs[:0]
	put := func(k int) {
		sc.segs = append(sc.segs, seg{start: int32(len(buf)), tok: int32(k)})
		buf = append(buf, tz.value(&toks[k])...)
	}
	for i := range toks {
		t := &toks[i]
		ls := len(buf)
		put(i)
		buf = append(buf, sep...)
		sc.lines = append(sc.lines, line{start: int32(ls), end: int32(len(buf)), tok: int32(i)})
		if t.flags&fMember == 0 || !r.hasKeyword(sc, tz.value(&toks[i-1])) {
			continue
		}
		ls = len(buf)
		buf = append(buf, '"')
		put(i - 1)
		if t.flags&fComplex == 0 {
			buf = append(buf, '"', ':', '"')
			put(i)
			buf = append(buf, '"')
		} else {
			buf = append(buf, '"', ':', ' ')
			put(i)
			buf = append(buf, ' ')
		}
		buf = append(buf, sep...)
		sc.lines = append(sc.lines, line{start: int32(ls), end: int32(len(buf)), tok: -1})
	}
	sc.buf = buf
}

// hasKeyword reports whether a member name holds one of KeySweep's rule
// keywords (case-insensitively), remembering the answer for the call.
func (r *Redactor) hasKeyword(sc *scratch, name []byte) bool {
	if v, ok := sc.named[string(name)]; ok {
		return v
	}
	v := keywordIn(name)
	if sc.named == nil {
		sc.named = map[string]bool{}
	}
	if len(sc.named) < 1024 { // names repeat; a map's own keys need not be kept
		sc.named[string(name)] = v
	}
	return v
}

var (
	keywordsOnce sync.Once
	keywordsBy   map[uint16][]string // KeySweep's keywords (lower-case) by their first two bytes
	keywordPair  [1 << 16]bool       // whether a keyword starts with these two bytes
)

func keywordIn[S ~string | ~[]byte](name S) bool {
	keywordsOnce.Do(func() {
		keywordsBy = map[uint16][]string{}
		seen := map[string]bool{}
		for _, ru := range secretscan.Rules() {
			for _, k := range ru.Keywords {
				k = strings.ToLower(k)
				if len(k) < 2 || seen[k] {
					continue
				}
				seen[k] = true
				b := uint16(k[0])<<8 | uint16(k[1])
				keywordsBy[b] = append(keywordsBy[b], k)
				keywordPair[b] = true
			}
		}
	})
	var buf [128]byte
	if len(name) > len(buf) {
		return true // long names are rare: read them in context
	}
	lc := buf[:len(name)]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lc[i] = c
	}
	for i := 0; i+1 < len(lc); i++ {
		pair := uint16(lc[i])<<8 | uint16(lc[i+1])
		if !keywordPair[pair] {
			continue
		}
		for _, k := range keywordsBy[pair] {
			if len(lc)-i >= len(k) && string(lc[i:i+len(k)]) == k {
				return true
			}
		}
	}
	return false
}

// Byte classes for potential.
var b64Class = func() (t [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-" {
		t[c] = true
	}
	return
}()

// potential bounds from above the encoded spans KeySweep's decoders can
// find in a line: runs of 20 or more base64 characters, half the '%'
// signs, the '"' of a line with a '\', and each "=3D" or "=\n". Runs are
// counted the way KeySweep finds them, probing every 20th byte, so prose
// costs a twentieth of its length.
func potential(l string) int {
	n := 0
	for i := 0; i+minB64Run <= len(l); {
		if !b64Class[l[i+minB64Run-1]] {
			i += minB64Run
			continue
		}
		j := i + minB64Run - 1 // back to the start of this run
		for j > i && b64Class[l[j-1]] {
			j--
		}
		if j == i {
			for j > 0 && b64Class[l[j-1]] {
				j--
			}
		}
		k := i + minB64Run
		for k < len(l) && b64Class[l[k]] {
			k++
		}
		if k-j >= minB64Run {
			n++
		}
		i = k
	}
	n += strings.Count(l, "%") / 2
	if strings.IndexByte(l, '\\') >= 0 {
		n += strings.Count(l, `"`)
	}
	for i := strings.IndexByte(l, '='); i >= 0; {
		if i+1 < len(l) && l[i+1] == '\n' || i+2 < len(l) && l[i+1] == '3' && l[i+2] == 'D' {
			n++
		}
		k := strings.IndexByte(l[i+1:], '=')
		if k < 0 {
			break
		}
		i += k + 1
	}
	return n
}

// minB64Run is the shortest base64 run KeySweep decodes.
const minB64Run = 20

// scanBatches scans the lines in batches within the decode budget.
// Potentials add up over lines (a base64 run never crosses a newline), so
// whole blocks of about blockBytes are counted at once, and a block is
// counted line by line only where it would overflow the budget.
func (r *Redactor) scanBatches(sc *scratch, text string, rep *Report) error {
	const blockBytes = 4096
	lines := sc.lines
	la, pot := 0, 0 // the open batch: lines [la, i), its potential
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && int(lines[j].end-lines[i].start) <= blockBytes {
			j++
		}
		if j-i > 1 {
			if p := potential(text[lines[i].start:lines[j-1].end]); pot+p <= batchBudget {
				pot += p
				i = j
				continue
			}
		}
		// One line at a time through this block.
		for ; i < j; i++ {
			p := potential(text[lines[i].start:lines[i].end])
			switch {
			case p > batchBudget:
				if err := r.scanLines(sc, text, la, i, rep); err != nil {
					return err
				}
				if err := r.scanPiece(sc, text, i, rep); err != nil {
					return err
				}
				la, pot = i+1, 0
				continue
			case pot+p > batchBudget:
				if err := r.scanLines(sc, text, la, i, rep); err != nil {
					return err
				}
				la, pot = i, 0
			}
			pot += p
		}
	}
	return r.scanLines(sc, text, la, len(lines), rep)
}

// scanLines scans lines [la, lb) together.
func (r *Redactor) scanLines(sc *scratch, text string, la, lb int, rep *Report) error {
	if la >= lb {
		return nil
	}
	a, b := int(sc.lines[la].start), int(sc.lines[lb-1].end)
	res, err := r.scanner.Scan(context.Background(), text[a:b])
	if err != nil {
		return errMalformed(err)
	}
	if res.Truncated {
		if lb-la > 1 {
			mid := (la + lb) / 2
			if err := r.scanLines(sc, text, la, mid, rep); err != nil {
				return err
			}
			return r.scanLines(sc, text, mid, lb, rep)
		}
		if sc.lines[la].tok < 0 {
			return errMalformed(errScannerGaveUp)
		}
		return r.scanApart(sc, sc.lines[la].tok, rep)
	}
	for i := range res.Detections {
		d := &res.Detections[i]
		if r.redactsIn(d, text[a:b]) {
			r.mapDetection(sc, d, a, rep)
		}
	}
	return nil
}

// scanEncoded runs the glued pass (gluedCuts), the bytes pass
// (encodedCuts) and, in Strict, the identity pass (identityCuts) over
// every string of the scan text, each read where it stands alone.
func (r *Redactor) scanEncoded(sc *scratch, text string, rep *Report) {
	toks := sc.tz.toks
	for _, l := range sc.lines {
		if l.tok < 0 {
			continue
		}
		t := &toks[l.tok]
		n := t.v1 - t.v0
		v := text[l.start : l.start+n]
		k := len(sc.cuts)
		sc.cuts = r.gluedCuts(sc.cuts, nil, v, l.tok)
		for _, c := range sc.cuts[k:] {
			rep.count(c.typ)
		}
		if n >= minB64Run {
			for _, c := range r.encodedCuts(v, l.tok) {
				sc.cuts = append(sc.cuts, c)
				rep.count(c.typ)
			}
		}
		if r.mode == Strict {
			n := len(sc.cuts)
			sc.cuts = r.identityCuts(sc.cuts, v, l.tok, &sc.memo)
			rep.Pseudonyms += len(sc.cuts) - n
		}
	}
}

// scanPiece scans one piece over the decode budget: a string alone, as a
// scan of it alone would; a member line is already covered by its
// strings' own pieces, and scanning it whole could go over the budget.
func (r *Redactor) scanPiece(sc *scratch, text string, i int, rep *Report) error {
	if sc.lines[i].tok < 0 {
		return nil
	}
	return r.scanApart(sc, sc.lines[i].tok, rep)
}

// scanApart scans one string alone.
func (r *Redactor) scanApart(sc *scratch, k int32, rep *Report) error {
	v := sc.tz.value(&sc.tz.toks[k])
	if len(v) == 0 {
		return nil
	}
	res, err := r.scanner.Scan(context.Background(), string(v))
	if err != nil {
		return errMalformed(err)
	}
	if res.Truncated {
		return errMalformed(errScannerGaveUp)
	}
	for i := range res.Detections {
		d := &res.Detections[i]
		if r.redactsIn(d, string(v)) {
			sc.cuts = append(sc.cuts, cut{tok: k, start: int32(d.Offset), end: int32(d.End), typ: d.Type})
			rep.count(d.Type)
		}
	}
	return nil
}

// mapDetection turns a detection at base+[Offset, End) of the scan text
// into cuts of the strings it overlaps. A detection in a decoded layer
// reports the whole encoded span, which for quoted-printable starts at the
// line's start: it is cut from the last string it overlaps only (a
// member's value, not its name).
func (r *Redactor) mapDetection(sc *scratch, d *secretscan.Detection, base int, rep *Report) {
	s, e := int32(base+d.Offset), int32(base+d.End)
	toks := sc.tz.toks
	segs := sc.segs
	end := func(g seg) int32 { t := &toks[g.tok]; return g.start + (t.v1 - t.v0) }
	i := sort.Search(len(segs), func(j int) bool { return end(segs[j]) > s })
	first := len(sc.cuts)
	for ; i < len(segs) && segs[i].start < e; i++ {
		g := segs[i]
		cs, ce := max(s, g.start), min(e, end(g))
		if cs >= ce {
			continue
		}
		c := cut{tok: g.tok, start: cs - g.start, end: ce - g.start, typ: d.Type}
		if d.Encoding != "" && len(sc.cuts) > first {
			sc.cuts[first] = c
			continue
		}
		sc.cuts = append(sc.cuts, c)
	}
	if len(sc.cuts) > first {
		rep.count(d.Type)
	}
}

// rewrite builds the new document: the source with every changed string
// re-encoded whole.
func (r *Redactor) rewrite(sc *scratch) []byte {
	tz := &sc.tz
	cuts := sc.cuts
	slices.SortFunc(cuts, cmpCut)
	var changes []change
	var arena []byte // the changed strings, in order
	var ends []int   // where each ends in arena
	hasName := false
	for i := 0; i < len(cuts); {
		j := i
		for j < len(cuts) && cuts[j].tok == cuts[i].tok {
			j++
		}
		k := cuts[i].tok
		st := len(arena)
		arena = appendCuts(arena, tz.value(&tz.toks[k]), cuts[i:j])
		c := change{tok: k}
		if tz.toks[k].flags&fName != 0 {
			c.name, hasName = string(arena[st:]), true
		}
		changes = append(changes, c)
		ends = append(ends, len(arena))
		i = j
	}
	if hasName {
		r.uniqueNames(sc, changes)
	}
	src := tz.src
	out := make([]byte, 0, len(src)+32*len(changes))
	prev, st := 0, 0
	for i, c := range changes {
		t := &tz.toks[c.tok]
		out = append(out, src[prev:t.raw0]...)
		if c.name != "" || t.flags&fName != 0 {
			out = appendJSONString(out, c.name)
		} else {
			out = appendJSONString(out, arena[st:ends[i]])
		}
		st = ends[i]
		prev = int(t.raw1)
	}
	return append(out, src[prev:]...)
}

// change is one string rewrite changes.
type change struct {
	tok  int32
	name string // a changed member name, which must stay unique
}

// uniqueNames keeps every object's member names apart: a changed name
// that now equals another member's gets "#2", "#3"...
func (r *Redactor) uniqueNames(sc *scratch, changes []change) {
	tz := &sc.tz
	objs := map[int32]bool{}
	newName := map[int32]int{} // token -> index in changes
	for i, c := range changes {
		if tz.toks[c.tok].flags&fName != 0 {
			objs[tz.toks[c.tok].obj] = true
			newName[c.tok] = i
		}
	}
	names := map[int32][]int32{}
	for k := range tz.toks {
		t := &tz.toks[k]
		if t.flags&fName != 0 && objs[t.obj] {
			names[t.obj] = append(names[t.obj], int32(k))
		}
	}
	for _, ks := range names {
		seen := map[string]bool{}
		for _, k := range ks {
			if _, ok := newName[k]; !ok {
				seen[string(tz.value(&tz.toks[k]))] = true
			}
		}
		for _, k := range ks {
			ci, ok := newName[k]
			if !ok {
				continue
			}
			base := changes[ci].name
			v := base
			for n := 2; seen[v]; n++ {
				v = base + "#" + strconv.Itoa(n)
			}
			seen[v] = true
			changes[ci].name = v
		}
	}
}
