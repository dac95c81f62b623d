package secretscan

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/quotedprintable"
	"net/url"
	"strings"
)

// Encoded layers. Each decoder finds spans of one encoding in the text,
// decodes them, and the decoded text is scanned again (to a bounded depth).
// A secret found in a layer is reported at the encoded span in the
// original text, with Detection.Encoding naming the layers.

const (
	minB64Run     = 20
	maxDecodeSpan = 64 << 10
	maxLayers     = 256 // decoded spans per text, bounds the work per layer
)

type encodedSpan struct {
	start, end int
	decoded    string
	enc        string
}

var b64Table = func() (t [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-" {
		t[c] = true
	}
	return
}()

// printable reports whether b is mostly printable text.
func printable(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	bad := 0
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			bad++
		}
	}
	return bad*20 <= len(b)
}

// decodeBase64 decodes a base64 run (standard or URL alphabet, padded or
// not) if the result is printable text.
func decodeBase64(s string) (string, bool) {
	t := strings.TrimRight(s, "=")
	var raw []byte
	var err error
	if strings.ContainsAny(t, "-_") {
		if strings.ContainsAny(t, "+/") {
			return "", false
		}
		raw, err = base64.RawURLEncoding.DecodeString(t)
	} else {
		raw, err = base64.RawStdEncoding.DecodeString(t)
	}
	if err != nil || len(raw) < 12 || !printable(raw) {
		return "", false
	}
	return string(raw), true
}

func base64Spans(text string, out []encodedSpan) []encodedSpan {
	n := len(text)
	t := &b64Table
	// Only runs of at least minB64Run bytes matter, so probe the last byte
	// of each minB64Run window first: if it is outside the alphabet, no
	// qualifying run touches the window and the scan skips it whole.
	i := 0
	for i+minB64Run <= n && len(out) < maxLayers {
		if !t[text[i+minB64Run-1]] {
			i += minB64Run
			continue
		}
		j := i + minB64Run - 1 // walk back to the start of this run
		for j > i && t[text[j-1]] {
			j--
		}
		if j == i {
			for j > 0 && t[text[j-1]] { // a run that began before the window
				j--
			}
		}
		k := i + minB64Run
		for k < n && t[text[k]] {
			k++
		}
		core := k - j // the minimum length does not count padding
		for p := 0; p < 2 && k < n && text[k] == '='; p++ {
			k++
		}
		if core >= minB64Run && k-j <= maxDecodeSpan {
			run := text[j:k]
			lower, upper, digit, _ := charClasses(run)
			if lower && upper && (digit || k-j >= 24) {
				if d, ok := decodeBase64(run); ok {
					out = append(out, encodedSpan{j, k, d, "base64"})
				}
			}
		}
		i = k // after padding, text[k] may already start the next run
	}
	return out
}

// decodeURL percent-decodes s; it fails on malformed escapes.
func decodeURL(s string) (string, bool) {
	d, err := url.QueryUnescape(s)
	if err != nil || d == s {
		return "", false
	}
	return d, true
}

func urlSpans(text string, out []encodedSpan) []encodedSpan {
	for i := 0; len(out) < maxLayers; {
		k := strings.IndexByte(text[i:], '%')
		if k < 0 {
			break
		}
		p := i + k
		if p+2 >= len(text) || !isHex(text[p+1]) || !isHex(text[p+2]) {
			i = p + 1
			continue
		}
		s := p
		for s > i && p-s < 4096 && text[s-1] > ' ' && text[s-1] != '"' && text[s-1] != '\'' {
			s--
		}
		e := p
		for e < len(text) && e-p < maxDecodeSpan && text[e] > ' ' && text[e] != '"' && text[e] != '\'' {
			e++
		}
		tok := text[s:e]
		if strings.Count(tok, "%") >= 2 {
			if d, ok := decodeURL(tok); ok {
				out = append(out, encodedSpan{s, e, d, "url"})
			}
		}
		i = e
		if i <= p {
			i = p + 1
		}
	}
	return out
}

// decodeJSONString decodes a double-quoted JSON string literal (quotes
// included).
func decodeJSONString(lit string) (string, bool) {
	var s string
	if err := json.Unmarshal([]byte(lit), &s); err != nil {
		return "", false
	}
	return s, true
}

// '=' is not in the table: inside a run it separates "NAME=value", and at
// the end of a run base64Spans takes up to two as padding.

// jsonSpans finds double-quoted literals on one line that contain
// backslash escapes. It scans forward only, so its cost is linear.
func jsonSpans(text string, out []encodedSpan) []encodedSpan {
	n := len(text)
	for i := 0; i < n && len(out) < maxLayers; {
		k := strings.IndexByte(text[i:], '"')
		if k < 0 {
			break
		}
		s := i + k
		e := s + 1
		escaped := false
		for e < n && e-s < maxDecodeSpan && text[e] != '"' && text[e] != '\n' {
			if text[e] == '\\' {
				escaped = true
				e++
			}
			e++
		}
		if e >= n || text[e] != '"' {
			// Every quote before e was escaped, so none of them can open
			// a literal either: continue after the scanned stretch.
			i = e
			if i <= s {
				i = s + 1
			}
			continue
		}
		if escaped {
			if d, ok := decodeJSONString(text[s : e+1]); ok && d != text[s+1:e] {
				out = append(out, encodedSpan{s, e + 1, d, "json"})
			}
		}
		i = e + 1
	}
	return out
}

// hasQPEscape reports whether s holds an "=XX" escape (upper-case hex),
// which every quoted-printable body with a non-ASCII or "=" byte has.
func hasQPEscape(s string) bool {
	for i := strings.IndexByte(s, '='); i >= 0 && i+2 < len(s); {
		if isUpperHex(s[i+1]) && isUpperHex(s[i+2]) {
			return true
		}
		k := strings.IndexByte(s[i+1:], '=')
		if k < 0 {
			return false
		}
		i += k + 1
	}
	return false
}

func isUpperHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }

// decodeQP decodes quoted-printable text.
func decodeQP(s string) (string, bool) {
	b, err := io.ReadAll(io.LimitReader(quotedprintable.NewReader(strings.NewReader(s)), maxDecodeSpan))
	if err != nil || string(b) == s {
		return "", false
	}
	return string(b), true
}

func qpSpans(text string, out []encodedSpan) []encodedSpan {
	// A quoted-printable region: consecutive lines ending in a soft break
	// ("=\n"), plus the line after them, or a line with "=3D" escapes.
	for i := 0; len(out) < maxLayers; {
		// next "=\n" soft break or "=3D" escape, in one forward pass over '='
		k := -1
		for j := i; j < len(text); {
			e := strings.IndexByte(text[j:], '=')
			if e < 0 {
				break
			}
			j += e
			if j+1 < len(text) && text[j+1] == '\n' || j+2 < len(text) && text[j+1] == '3' && text[j+2] == 'D' {
				k = j - i
				break
			}
			j++
		}
		if k < 0 {
			break
		}
		p := i + k
		s := i + strings.LastIndexByte(text[i:p], '\n') + 1
		e := p
		for e < len(text) && e-s < maxDecodeSpan {
			nl := strings.IndexByte(text[e:], '\n')
			if nl < 0 {
				e = len(text)
				break
			}
			lineEnd := e + nl
			if lineEnd > 0 && text[lineEnd-1] == '=' {
				e = lineEnd + 1
				continue
			}
			e = lineEnd
			break
		}
		if e > s && hasQPEscape(text[s:e]) {
			if d, ok := decodeQP(text[s:e]); ok {
				out = append(out, encodedSpan{s, e, d, "quoted_printable"})
			}
		}
		if e <= p {
			e = p + 1
		}
		i = e
	}
	return out
}

// findEncoded scans decoded layers and appends their candidates, mapped to
// the encoded spans.
func (s *Scanner) findEncoded(ctx context.Context, st *scanState, text string, depth int, cands []candidate) ([]candidate, error) {
	var spans []encodedSpan
	spans = base64Spans(text, spans)
	if strings.IndexByte(text, '%') >= 0 {
		spans = urlSpans(text, spans)
	}
	if strings.IndexByte(text, '\\') >= 0 {
		spans = jsonSpans(text, spans)
	}
	spans = qpSpans(text, spans)
	for _, sp := range spans {
		mark := len(st.rejections)
		inner, err := s.find(ctx, st, sp.decoded, depth-1)
		if err != nil {
			return nil, err
		}
		if st.explain {
			st.relocate(mark, sp)
		}
		for _, c := range inner {
			enc := sp.enc
			if c.enc != "" {
				enc += "+" + c.enc
			}
			c.start, c.end, c.enc = sp.start, sp.end, enc
			c.idStart, c.idEnd = 0, 0 // a part inside the decoded layer has no place in the text
			c.evidence = append(c.evidence, "decoded")
			cands = append(cands, c)
		}
	}
	return cands, nil
}
