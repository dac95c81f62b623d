package redact

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"sync"

	"github.com/warden-mcp/warden/secretscan"
)

// The bytes pass: credentials inside bytes that a result renders as hex
// or base64. KeySweep reads text; a token in a binary's data, shown as
// "6768705f...", or as base64 of bytes that are not all text, is not text
// to it. The pass decodes such a rendering, reads the bytes as text the
// way the strings tool does (and as UTF-16LE, where a run of them reads
// so), and removes the bytes of every credential found from the
// rendering: their hex digits, or the base64 quanta that hold them,
// become the credential's marker. What is left around a marker still
// decodes: hex pieces keep whole bytes, base64 pieces whole quanta.
//
// A read window can cut a credential: its start or its end lies outside
// the bytes a tool returns, and what is inside matches no rule. Two
// things cover that. A tool that returns a window of a larger buffer
// passes the buffer around it to Bytes and removes every byte of the
// window that belongs to a credential found there (Warden's byte tools
// read 4 KiB either side), so no sequence of small windows puts a
// credential together again. And a rendering seen alone (a field of kind
// bytes, hex or base64 in free text) loses its tail from a credential
// prefix on ("ghp_", "AKIA", "xoxb-"...: the prefixes of KeySweep's rules)
// when the bytes end inside a run of token characters after one: the
// start of a cut credential. The tail of a cut credential, without its
// prefix, cannot be told from other text in a window alone.

// ByteContext is how many bytes either side of a window a tool should
// pass to Bytes: more than a PEM-encoded 4096-bit RSA key, the longest
// credential KeySweep matches whole.
const ByteContext = 4096

// PartialMarker replaces the tail of bytes that end inside a credential
// after its prefix (see the package documentation).
const PartialMarker = "[REDACTED:partial_secret]"

// Bytes runs the credential pass over raw bytes read as text and returns
// the byte ranges that hold a credential, in order and merged (Start and
// End are offsets in b; Length counts bytes). Off returns nil.
func (r *Redactor) Bytes(b []byte) []Span {
	if r.mode == Off || len(b) == 0 {
		return nil
	}
	cuts := r.byteCuts(b, false)
	spans := make([]Span, 0, len(cuts))
	for _, c := range cuts {
		spans = append(spans, Span{Type: c.typ, Start: int(c.start), End: int(c.end), Length: int(c.end - c.start)})
	}
	return spans
}

// byteCuts finds the credentials in b read as text (and as UTF-16LE
// where it reads so), as cuts of b, sorted and merged; with edges, the
// tail of b from a credential prefix on too.
func (r *Redactor) byteCuts(b []byte, edges bool) []cut {
	if !hasTextRun(b, minTextRun) {
		return nil
	}
	var cuts []cut
	view := textView(b)
	res, err := r.scanner.Scan(context.Background(), view)
	if err != nil || res.Truncated {
		return []cut{{start: 0, end: int32(len(b)), typ: "unscanned"}}
	}
	for i := range res.Detections {
		d := &res.Detections[i]
		if r.redactsIn(d, view) {
			cuts = append(cuts, cut{start: int32(d.Offset), end: int32(d.End), typ: d.Type})
		}
	}
	cuts = r.gluedCuts(cuts, nil, view, 0)
	for odd := 0; odd < 2; odd++ {
		v, ok := utf16View(b, odd)
		if !ok {
			continue
		}
		res, err := r.scanner.Scan(context.Background(), v)
		if err != nil || res.Truncated {
			return []cut{{start: 0, end: int32(len(b)), typ: "unscanned"}}
		}
		for i := range res.Detections {
			d := &res.Detections[i]
			if r.redactsIn(d, v) {
				cuts = append(cuts, cut{start: int32(odd + 2*d.Offset), end: int32(min(len(b), odd+2*d.End)), typ: d.Type})
			}
		}
		for _, c := range r.gluedCuts(nil, nil, v, 0) {
			cuts = append(cuts, cut{start: int32(odd) + 2*c.start, end: int32(min(len(b), odd+2*int(c.end))), typ: c.typ})
		}
	}
	if edges {
		if p := partialTail(view); p >= 0 {
			cuts = append(cuts, cut{start: int32(p), end: int32(len(b)), typ: "partial_secret"})
		}
	}
	return mergeCuts(cuts)
}

// mergeCuts sorts cuts and merges overlapping ones, keeping the first
// one's type.
func mergeCuts(cuts []cut) []cut {
	if len(cuts) < 2 {
		return cuts
	}
	slices.SortFunc(cuts, cmpCut)
	out := cuts[:1]
	for _, c := range cuts[1:] {
		last := &out[len(out)-1]
		if c.tok == last.tok && c.start < last.end {
			last.end = max(last.end, c.end)
			continue
		}
		out = append(out, c)
	}
	return out
}

// minTextRun is the shortest run of text a credential needs: the bytes
// of a rendering without one are not scanned.
const minTextRun = 8

func isTextByte(c byte) bool { return c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\r' }

// hasTextRun reports whether b holds n text bytes in a row, or n
// UTF-16LE text characters.
func hasTextRun(b []byte, n int) bool {
	run := 0
	for _, c := range b {
		if isTextByte(c) {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	_, ok := utf16View(b, 0)
	if !ok {
		_, ok = utf16View(b, 1)
	}
	return ok
}

// textView is b read as text: text bytes as they are, every other byte a
// newline, so offsets in the view are offsets in b and a credential never
// joins text across binary data.
func textView(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for _, c := range b {
		if !isTextByte(c) {
			c = '\n'
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// utf16View is b read as UTF-16LE from offset odd: one character per
// pair, a newline for every pair that is not an ASCII character. ok is
// false when no run of minTextRun such characters exists.
func utf16View(b []byte, odd int) (string, bool) {
	run, found := 0, false
	for i := odd; i+1 < len(b); i += 2 {
		if b[i+1] == 0 && isTextByte(b[i]) && b[i] != 0 {
			if run++; run >= minTextRun {
				found = true
				break
			}
		} else {
			run = 0
		}
	}
	if !found {
		return "", false
	}
	var sb strings.Builder
	sb.Grow(len(b) / 2)
	for i := odd; i+1 < len(b); i += 2 {
		c := b[i]
		if b[i+1] != 0 || !isTextByte(c) {
			c = '\n'
		}
		sb.WriteByte(c)
	}
	return sb.String(), true
}

var (
	prefixesOnce sync.Once
	prefixes     []string // credential prefixes of KeySweep's rules
)

// credentialPrefixes are the keywords of KeySweep's rules that start a
// credential of a fixed shape: at least four characters of letters and
// digits ending in '_', '-' or '.' ("ghp_", "xoxb-", "sk-ant-api03-",
// "dt0c01."), or four or more upper-case letters and digits ("AKIA",
// "ATATT3").
func credentialPrefixes() []string {
	prefixesOnce.Do(func() {
		seen := map[string]bool{}
		for _, ru := range secretscan.Rules() {
			for _, k := range ru.Keywords {
				if len(k) < 4 || seen[k] || !isPrefixKeyword(k) {
					continue
				}
				seen[k] = true
				prefixes = append(prefixes, k)
			}
		}
	})
	return prefixes
}

func isPrefixKeyword(k string) bool {
	last := k[len(k)-1]
	if last == '_' || last == '-' || last == '.' {
		for i := 0; i < len(k)-1; i++ {
			if !isTokenByte(k[i]) || k[i] == '/' || k[i] == '+' || k[i] == '=' {
				return false
			}
		}
		return true
	}
	if !(k[0] >= 'A' && k[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// isTokenByte reports whether c may be part of a token: letters, digits
// and _ - . + / = ~.
func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == '+' || c == '/' || c == '=' || c == '~'
}

// partialTail returns where the tail of view that may be a cut
// credential starts: the first credential prefix in the run of token
// characters that ends view, followed by at least one more token
// character; -1 when there is none.
func partialTail(view string) int {
	i := len(view)
	for i > 0 && isTokenByte(view[i-1]) && len(view)-i < 256 {
		i--
	}
	run := view[i:]
	if len(run) < 5 {
		return -1
	}
	best := -1
	for _, p := range credentialPrefixes() {
		if j := strings.Index(run, p); j >= 0 && j+len(p) < len(run) && (best < 0 || j < best) {
			best = j
		}
	}
	if best < 0 {
		return -1
	}
	return i + best
}

// rendering is a byte rendering: hex or base64.
type rendering int

const (
	renderNone rendering = iota
	renderHex
	renderBase64
)

// decodeRendering decodes a whole value of kind bytes: hex (pairs of
// digits, optionally each pair separated by one space, ':' or '-'), or
// base64 (standard or URL alphabet, padded or not). offs maps each
// decoded byte to the offset of its first character in s (with one more
// entry, len(s)); for base64 it is filled per quantum.
func decodeRendering(s string) (b []byte, how rendering, sepd bool) {
	if b, sep, ok := decodeHex(s); ok {
		return b, renderHex, sep
	}
	t := strings.TrimRight(s, "=")
	if len(t) == 0 || len(s)-len(t) > 2 {
		return nil, renderNone, false
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(t, "-_") {
		enc = base64.RawURLEncoding
	}
	raw, err := enc.DecodeString(t)
	if err != nil {
		return nil, renderNone, false
	}
	return raw, renderBase64, false
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeHex decodes "6768..." or "67 68 ...", "67:68:...", "67-68-...".
func decodeHex(s string) (b []byte, separated, ok bool) {
	if len(s) < 2 {
		return nil, false, false
	}
	separated = len(s) > 2 && (s[2] == ' ' || s[2] == ':' || s[2] == '-')
	step := 2
	if separated {
		step = 3
		if (len(s)+1)%3 != 0 {
			return nil, false, false
		}
	} else if len(s)%2 != 0 {
		return nil, false, false
	}
	b = make([]byte, 0, (len(s)+1)/step)
	for i := 0; i < len(s); i += step {
		hi, ok1 := hexDigit(s[i])
		lo, ok2 := hexDigit(s[i+1])
		if !ok1 || !ok2 || separated && i+2 < len(s) && s[i+2] != s[2] {
			return nil, false, false
		}
		b = append(b, hi<<4|lo)
	}
	return b, separated, true
}

// renderingCuts maps cuts of the decoded bytes to cuts of their
// rendering, which starts at base in its string: a hex cut covers the
// digits of its bytes (and the separators between them), a base64 cut
// the whole quanta that hold its bytes, so what is left still decodes.
func renderingCuts(bc []cut, how rendering, sepd bool, base, rlen int, tok int32) []cut {
	out := make([]cut, 0, len(bc))
	for _, c := range bc {
		var s, e int
		switch how {
		case renderHex:
			step := 2
			if sepd {
				step = 3
			}
			s, e = int(c.start)*step, int(c.end)*step
			if sepd {
				e-- // the separator after the last byte stays
			}
		case renderBase64:
			s, e = int(c.start)/3*4, (int(c.end)+2)/3*4
		}
		e = min(e, rlen)
		if s >= e {
			continue
		}
		out = append(out, cut{tok: tok, start: int32(base + s), end: int32(base + e), typ: c.typ})
	}
	return out
}

// fieldBytes is Field for privacy.Bytes: the credentials of the decoded
// bytes (and a cut one's start at the end) become markers in the
// rendering. A value with markers already is redacted piece by piece; a
// value that is not a rendering is left to the text pass.
func (r *Redactor) fieldBytes(v string) string {
	cuts := r.renderedCuts(v, 0, true)
	if len(cuts) == 0 {
		return v
	}
	return applyCuts(v, cuts)
}

// renderedCuts returns the cuts of a byte rendering s (the pieces between
// markers, each decoded alone), for string tok; edges applies the
// partial-credential rule to the end of the last piece.
func (r *Redactor) renderedCuts(s string, tok int32, edges bool) []cut {
	var cuts []cut
	for off := 0; off < len(s); {
		rest := s[off:]
		end, skip := len(rest), len(rest)
		if i := strings.Index(rest, "[REDACTED:"); i >= 0 {
			end, skip = i, len(rest)
			if j := strings.IndexByte(rest[i:], ']'); j >= 0 {
				skip = i + j + 1
			}
		}
		if piece := rest[:end]; piece != "" {
			if b, how, sepd := decodeRendering(piece); how != renderNone {
				bc := r.byteCuts(b, edges && off+end == len(s))
				cuts = append(cuts, renderingCuts(bc, how, sepd, off, len(piece), tok)...)
			}
		}
		off += skip
	}
	return cuts
}

// encodedCuts is the bytes pass over free text: every run of 20 or more
// hex digits or base64 characters in s is decoded, and the credentials
// in its bytes (and a cut one's start at its end) become cuts of s, for
// string tok. A run that holds no text worth scanning costs one decode.
func (r *Redactor) encodedCuts(s string, tok int32) []cut {
	var cuts []cut
	n := len(s)
	for i := 0; i+minB64Run <= n; {
		if !b64Class[s[i+minB64Run-1]] {
			i += minB64Run
			continue
		}
		j := i + minB64Run - 1
		for j > i && b64Class[s[j-1]] {
			j--
		}
		if j == i {
			for j > 0 && b64Class[s[j-1]] {
				j--
			}
		}
		k := i + minB64Run
		for k < n && b64Class[s[k]] {
			k++
		}
		pad := k
		for p := 0; p < 2 && pad < n && s[pad] == '='; p++ {
			pad++
		}
		if pad-j > 2 && s[j] == '0' && (s[j+1] == 'x' || s[j+1] == 'X') && isHexRun(s[j+2:pad]) {
			j += 2 // 0x and hex digits
		}
		if k-j >= minB64Run && pad-j <= maxEncodedRun {
			run := s[j:pad]
			// The run's end is the end of its bytes unless a marker
			// follows: there the bytes went on.
			edge := !strings.HasPrefix(s[pad:], "[REDACTED:")
			if b, how, sepd := decodeRun(run); how != renderNone {
				bc := r.byteCuts(b, edge)
				cuts = append(cuts, renderingCuts(bc, how, sepd, j, len(run), tok)...)
			}
			// Hex digits glued to other base64 characters: read as hex
			// too, as they will be once a cut ends the run there.
			if h := hexPrefix(run); h >= minB64Run && h < len(run) {
				if runHasText(run[:h], true) {
					b, _, _ := decodeHex(run[:h])
					bc := r.byteCuts(b, false)
					cuts = append(cuts, renderingCuts(bc, renderHex, false, j, h, tok)...)
				}
			}
		}
		i = pad
	}
	return cuts
}

// hexPrefix returns the length of the longest even-length run of hex
// digits s starts with.
func hexPrefix(s string) int {
	i := 0
	for i < len(s) && hexValue[s[i]] != 0xff {
		i++
	}
	return i &^ 1
}

// isHexRun reports whether s is an even number of hex digits.
func isHexRun(s string) bool {
	if len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if hexValue[s[i]] == 0xff {
			return false
		}
	}
	return true
}

// hexValue is each byte's value as a hex digit, 0xff for none.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range "0123456789abcdef" {
		t[c] = byte(i)
	}
	for i, c := range "ABCDEF" {
		t[c] = byte(10 + i)
	}
	return
}()

// hexTextHigh is whether a hex digit can start a text byte.
var hexTextHigh = byteClass("0234567")

// mixedCase reports whether s holds both lower- and upper-case letters:
// base64 of bytes that are not all text does, and a URL path, a UUID or
// a word run does not.
func mixedCase(s string) bool {
	var lower, upper bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		lower = lower || c >= 'a' && c <= 'z'
		upper = upper || c >= 'A' && c <= 'Z'
		if lower && upper {
			return true
		}
	}
	return false
}

// maxEncodedRun bounds one run the bytes pass decodes in free text (the
// largest read a byte tool returns, base64-encoded, fits).
const maxEncodedRun = 1 << 20

// textTracker watches decoded bytes go by for a run of minTextRun text
// characters, as bytes or as UTF-16LE at either alignment.
type textTracker struct {
	n     int
	run   int
	wide  [2]int
	prev  byte
	found bool
}

func (t *textTracker) add(c byte) {
	if isTextByte(c) {
		t.run++
	} else {
		t.run = 0
	}
	if t.n > 0 {
		a := (t.n - 1) & 1 // the alignment of the pair (prev, c)
		if c == 0 && t.prev != 0 && isTextByte(t.prev) {
			t.wide[a]++
		} else {
			t.wide[a] = 0
		}
	}
	t.prev = c
	t.n++
	t.found = t.found || t.run >= minTextRun || t.wide[0] >= minTextRun || t.wide[1] >= minTextRun
}

var b64Value = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" {
		t[c] = byte(i)
	}
	t['+'], t['-'] = 62, 62
	t['/'], t['_'] = 63, 63
	return
}()

// runHasText reports, without decoding into memory, whether the bytes a
// run of hex digits (hexRun) or base64 characters encodes hold a run of
// text worth scanning.
func runHasText(run string, hexRun bool) bool {
	if hexRun {
		// A text byte's first hex digit is 0 (tab, line ends) or 2 to 7,
		// and so is each byte of a UTF-16 character: minTextRun such
		// pairs in a row or there is no text. byteCuts checks exactly.
		n := 0
		for i := 0; i+1 < len(run); i += 2 {
			if hexTextHigh[run[i]] {
				if n++; n >= minTextRun {
					return true
				}
			} else {
				n = 0
			}
		}
		return false
	}
	var t textTracker
	if !mixedCase(run) {
		return false
	}
	var acc uint32
	bits := 0
	for i := 0; i < len(run) && !t.found; i++ {
		v := b64Value[run[i]]
		if v == 0xff {
			break
		}
		acc = acc<<6 | uint32(v)
		if bits += 6; bits >= 8 {
			bits -= 8
			t.add(byte(acc >> bits))
		}
	}
	return t.found
}

// decodeRun decodes a run of free text as hex when it is all hex digits
// of even length, else as base64 when it decodes so; a run whose bytes
// hold no text is not decoded at all.
func decodeRun(run string) ([]byte, rendering, bool) {
	if isHexRun(run) {
		if !runHasText(run, true) {
			return nil, renderNone, false
		}
		b, _, ok := decodeHex(run)
		if ok {
			return b, renderHex, false
		}
	}
	if !runHasText(run, false) {
		return nil, renderNone, false
	}
	b, how, _ := decodeRendering(run)
	if how != renderBase64 || keySweepDecodes(run, b) {
		return nil, renderNone, false
	}
	return b, how, false
}

// keySweepDecodes reports whether KeySweep decodes a base64 run itself:
// the decoded bytes are text (at most one in twenty a control byte), and
// the run mixes lower and upper case with digits or is 24 characters or
// more. Its text pass finds what such a run hides; the bytes pass reads
// the others.
func keySweepDecodes(run string, b []byte) bool {
	if len(b) < 12 {
		return false
	}
	bad := 0
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			bad++
		}
	}
	if bad*20 > len(b) {
		return false
	}
	var lower, upper, digit bool
	for i := 0; i < len(run); i++ {
		c := run[i]
		lower = lower || c >= 'a' && c <= 'z'
		upper = upper || c >= 'A' && c <= 'Z'
		digit = digit || c >= '0' && c <= '9'
	}
	return lower && upper && (digit || len(strings.TrimRight(run, "=")) >= 24)
}

// HexWithout renders b as lower-case hex with the bytes of each span
// replaced by its marker ("[REDACTED:<type>]"); Base64Without renders
// standard base64, each piece between markers padded and decodable on
// its own, the cut widened to whole quanta. Spans must be sorted and
// apart, as Bytes returns them.
func HexWithout(b []byte, spans []Span) string {
	const digits = "0123456789abcdef"
	var sb strings.Builder
	sb.Grow(2 * len(b))
	prev := 0
	for _, s := range spans {
		st, en := max(s.Start, prev), min(s.End, len(b))
		if st >= en {
			continue
		}
		for _, c := range b[prev:st] {
			sb.WriteByte(digits[c>>4])
			sb.WriteByte(digits[c&15])
		}
		sb.WriteString(markerFor(s.Type))
		prev = en
	}
	for _, c := range b[prev:] {
		sb.WriteByte(digits[c>>4])
		sb.WriteByte(digits[c&15])
	}
	return sb.String()
}

// Base64Without is HexWithout's base64 form; see HexWithout.
func Base64Without(b []byte, spans []Span) string {
	var sb strings.Builder
	prev := 0
	for _, s := range spans {
		st, en := max(s.Start/3*3, prev), min((s.End+2)/3*3, len(b))
		if st >= en {
			continue
		}
		sb.WriteString(base64.StdEncoding.EncodeToString(b[prev:st]))
		sb.WriteString(markerFor(s.Type))
		prev = en
	}
	sb.WriteString(base64.StdEncoding.EncodeToString(b[prev:]))
	return sb.String()
}
