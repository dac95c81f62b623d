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
}

// redacts reports whether the mode removes what d found: every credential,
// and identifiers (ARNs, account IDs, bucket names: family "identifier")
// only in Strict, since they name things without opening them.
func (r *Redactor) redacts(d *secretscan.Detection) bool {
	return d.Family != secretscan.FamilyIdentifier || r.mode == Strict
}

// Text runs the credential pass over one string: every credential KeySweep
// detects becomes "[REDACTED:<type>]", with the detection's type. It
// returns the new string and the spans removed, in input order; the input
// is returned as it is, with no spans, when nothing was found. Off returns s
// unchanged. Text scans any length; Result enforces the per-result bounds.
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
		if !r.redacts(d) {
			continue
		}
		cuts = append(cuts, cut{start: int32(d.Offset), end: int32(d.End), typ: d.Type})
		spans = append(spans, Span{Type: d.Type, Family: d.Family, Start: d.Offset, End: d.End,
			Length: d.ValueLength, Fingerprint: d.Fingerprint})
	}
	for _, c := range r.encodedCuts(s, 0) {
		cuts = append(cuts, c)
		spans = append(spans, Span{Type: c.typ, Start: int(c.start), End: int(c.end), Length: utf8.RuneCountInString(s[c.start:c.end])})
	}
	if len(cuts) == 0 {
		return s, nil
	}
	return applyCuts(s, cuts), spans
}

// applyCuts replaces each range of s (all cuts belong to s) with its
// marker. Ranges are widened to whole UTF-8 sequences and overlapping
// ones merged, so the output is never left with half a character.
func applyCuts(s string, cuts []cut) string {
	if !slices.IsSortedFunc(cuts, cmpCut) {
		slices.SortFunc(cuts, cmpCut)
	}
	var b strings.Builder
	b.Grow(len(s) + 24*len(cuts))
	prev := 0
	for i := 0; i < len(cuts); i++ {
		st, en := int(cuts[i].start), int(cuts[i].end)
		typ := cuts[i].typ
		for i+1 < len(cuts) && int(cuts[i+1].start) < en { // merge overlaps
			i++
			en = max(en, int(cuts[i].end))
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
		b.WriteString(s[prev:st])
		b.WriteString(markerFor(typ))
		prev = en
	}
	b.WriteString(s[prev:])
	return b.String()
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
