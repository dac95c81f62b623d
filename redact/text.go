package redact

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/warden-mcp/warden/secretscan"
)

// UnscannedMarker replaces a whole string the scanner gave up on (more
// than a million keyword occurrences): the pass fails closed.
const UnscannedMarker = "[REDACTED:unscanned]"

// Span is one credential the text pass removed, without its value.
type Span struct {
	// Type is KeySweep's credential type ("github_personal_access_token", "password",
	// "aws_access_key_id"), the one named in the marker; "unscanned" when
	// the scanner gave up and the whole string went.
	Type string `json:"type"`
	// Family is KeySweep's rule family ("vcs", "generic", "identifier").
	Family string `json:"family,omitempty"`
	// Start and End are the byte span removed from the input.
	Start int `json:"start"`
	End   int `json:"end"`
	// Length is the credential's length in Unicode characters.
	Length int `json:"length"`
	// Fingerprint is KeySweep's keyed fingerprint of the value.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// cut is a byte range of one string to replace by a marker.
type cut struct {
	tok        int32 // the string's number within its document
	start, end int32
	typ        string
	repl       string // Strict's pseudonym for the range; "" for a marker
}

// redacts reports whether the mode removes what d found: every credential,
// and identifiers (ARNs, account IDs, bucket names: family "identifier")
// only in Strict, since they name things without opening them.
func (r *Redactor) redacts(d *secretscan.Detection) bool {
	return d.Family != secretscan.FamilyIdentifier || r.mode == Strict
}

// redactsIn is redacts for a detection in text: a pseudonym Strict wrote
// is not a credential, though its hex digits may read as one next to a
// keyword ("JIRA_USER=user-1e47...@host-b817....invalid" as the value of
// a member named secret). A detection whose span holds a pseudonym is kept
// only if what is left without it still looks like a credential.
func (r *Redactor) redactsIn(d *secretscan.Detection, text string) bool {
	if !r.redacts(d) {
		return false
	}
	if d.Encoding != "" || d.Offset < 0 || d.End > len(text) || d.Offset >= d.End {
		return true
	}
	rest, found := stripPseudonyms(text[d.Offset:d.End])
	if found && !secretish(rest) {
		return false
	}
	// A generic rule reads a keyword before its value; the word
	// "private" of an address's pseudonym ("ip4-....private.invalid:...")
	// is none.
	return d.Family != "generic" || !afterPseudonym(text, d.Offset)
}

// afterPseudonym reports whether the word just before offset i of text
// (before an optional ':' or '=' and quotes or spaces) is a pseudonym.
func afterPseudonym(text string, i int) bool {
	j := i
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '"' || text[j-1] == '\'') {
		j--
	}
	if j > 0 && (text[j-1] == ':' || text[j-1] == '=') {
		j--
	}
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '"' || text[j-1] == '\'') {
		j--
	}
	k := j
	for k > 0 && j-k < 128 && !isDelim(text[k-1]) {
		k--
	}
	return k < j && pseudonymLike(text[k:j])
}

var pseudoPrefixes = [...]string{"host-", "user-", "ip4-", "ip6-", "path-"}

// stripPseudonyms removes the "<prefix><12 hex>" labels of Strict's
// pseudonyms from v; found says whether there were any.
func stripPseudonyms(v string) (string, bool) {
	if !strings.Contains(v, "-") {
		return v, false
	}
	var b strings.Builder
	found := false
	for i := 0; i < len(v); {
		j := strings.IndexByte(v[i:], '-')
		if j < 0 {
			break
		}
		j += i
		hit := false
		for _, p := range pseudoPrefixes {
			st := j + 1 - len(p)
			if st >= i && v[st:j+1] == p && j+1+2*tokenBytes <= len(v) && isPseudoLabel(v[st:j+1+2*tokenBytes], p) &&
				(st == 0 || !isTokenByte(v[st-1]) || v[st-1] == '.' || v[st-1] == '/' || v[st-1] == '=') {
				b.WriteString(v[i:st])
				i, hit, found = j+1+2*tokenBytes, true, true
				break
			}
		}
		if !hit {
			b.WriteString(v[i : j+1])
			i = j + 1
		}
		if i >= len(v) {
			return b.String(), found
		}
		if !strings.Contains(v[i:], "-") {
			b.WriteString(v[i:])
			return b.String(), found
		}
	}
	return b.String(), found
}

// secretish reports whether v holds a run of 12 or more token characters
// with letters and digits: something a credential could be.
func secretish(v string) bool {
	run, letter, digit := 0, false, false
	for i := 0; i <= len(v); i++ {
		if i < len(v) && (isLetter(v[i]) || v[i] >= '0' && v[i] <= '9' || strings.IndexByte("+/_-", v[i]) >= 0) {
			run++
			letter = letter || isLetter(v[i])
			digit = digit || v[i] >= '0' && v[i] <= '9'
			continue
		}
		if run >= 12 && letter && digit {
			return true
		}
		run, letter, digit = 0, false, false
	}
	return false
}

// Text runs the credential pass over one string: every credential KeySweep
// detects becomes "[REDACTED:<type>]", with the detection's type, and so
// does one in the bytes a hex or base64 run encodes; in Strict, every host
// name, address, e-mail address and path becomes its pseudonym too (spans
// of type host, ip, email and path). It returns the new string and the
// spans removed, in input order; the input is returned as it is, with no
// spans, when nothing was found. Off returns s unchanged. Text scans any length; Result enforces the per-result bounds.
// If the scanner gives up on s (more than a million keyword occurrences)
// the whole string becomes UnscannedMarker: the pass fails closed.
func (r *Redactor) Text(s string) (string, []Span) {
	if r.mode == Off || s == "" {
		return s, nil
	}
	res, err := r.scanner.Scan(context.Background(), s)
	if err != nil || res.Truncated {
		return UnscannedMarker, []Span{{Type: "unscanned", Start: 0, End: len(s), Length: utf8.RuneCountInString(s)}}
	}
	var cuts []cut
	var spans []Span
	for i := range res.Detections {
		d := &res.Detections[i]
		if !r.redactsIn(d, s) {
			continue
		}
		cuts = append(cuts, cut{start: int32(d.Offset), end: int32(d.End), typ: d.Type})
		spans = append(spans, Span{Type: d.Type, Family: d.Family, Start: d.Offset, End: d.End,
			Length: d.ValueLength, Fingerprint: d.Fingerprint})
	}
	cuts = r.gluedCuts(cuts, &spans, s, 0)
	for _, c := range r.encodedCuts(s, 0) {
		cuts = append(cuts, c)
		spans = append(spans, Span{Type: c.typ, Start: int(c.start), End: int(c.end), Length: utf8.RuneCountInString(s[c.start:c.end])})
	}
	for _, c := range r.identityCuts(nil, s, 0, nil) {
		cuts = append(cuts, c)
		spans = append(spans, Span{Type: c.typ, Start: int(c.start), End: int(c.end), Length: utf8.RuneCountInString(s[c.start:c.end])})
	}
	slices.SortFunc(spans, func(a, b Span) int { return a.Start - b.Start })
	if len(cuts) == 0 {
		return s, nil
	}
	return applyCuts(s, cuts), spans
}

// applyCuts replaces each range of s (all cuts belong to s) with its
// marker, or its pseudonym. Ranges are widened to whole UTF-8 sequences
// and overlapping ones merged, so the output is never left with half a
// character.
func applyCuts(s string, cuts []cut) string {
	return string(appendCuts(make([]byte, 0, len(s)+24*len(cuts)), s, cuts))
}

// appendCuts is applyCuts appending to dst, over a string or bytes.
func appendCuts[S ~string | ~[]byte](dst []byte, s S, cuts []cut) []byte {
	if !slices.IsSortedFunc(cuts, cmpCut) {
		slices.SortFunc(cuts, cmpCut)
	}
	prev := 0
	for i := 0; i < len(cuts); i++ {
		st, en := int(cuts[i].start), int(cuts[i].end)
		typ, repl := cuts[i].typ, cuts[i].repl
		for i+1 < len(cuts) && int(cuts[i+1].start) < en { // merge overlaps
			i++
			en = max(en, int(cuts[i].end))
			// Where a credential and a pseudonym overlap, the
			// credential's marker covers both (fail closed).
			if cuts[i].repl == "" && repl != "" {
				typ = cuts[i].typ
			}
			repl = ""
		}
		st = max(st, prev)
		en = min(en, len(s))
		for st > prev && st < len(s) && !utf8.RuneStart(s[st]) {
			st--
		}
		for en < len(s) && !utf8.RuneStart(s[en]) {
			en++
		}
		if st >= en {
			continue
		}
		dst = append(dst, s[prev:st]...)
		if repl != "" {
			dst = append(dst, repl...)
		} else {
			dst = append(dst, markerFor(typ)...)
		}
		prev = en
	}
	return append(dst, s[prev:]...)
}

func cmpCut(a, b cut) int {
	if a.tok != b.tok {
		return int(a.tok) - int(b.tok)
	}
	if a.start != b.start {
		return int(a.start) - int(b.start)
	}
	return int(a.end) - int(b.end)
}

// pseudonymLike reports whether v is one of Strict's pseudonyms whole: a
// host or address under .invalid, an e-mail address at one, or a path's
// "path-<12 hex>" (with its root and extension).
func pseudonymLike(v string) bool {
	if at := strings.LastIndexByte(v, '@'); at > 0 {
		if !isPseudoLabel(v[:at], "user-") {
			return false
		}
		v = v[at+1:]
	}
	if h, ok := strings.CutSuffix(v, invalidTLD); ok {
		h = strings.TrimPrefix(h, "*.")
		if isPseudoLabel(h, "host-") {
			return true
		}
		if (strings.HasPrefix(h, "ip4-") || strings.HasPrefix(h, "ip6-")) && len(h) > 16 && h[16] == '.' {
			return isPseudoLabel(h[:16], h[:4])
		}
		return false
	}
	if v == "" {
		return false
	}
	_, rest := splitRoot(v)
	if i := strings.LastIndexByte(rest, '.'); i > 0 {
		rest = rest[:i]
	}
	return isPseudoLabel(rest, "path-")
}
