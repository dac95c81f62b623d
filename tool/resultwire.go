package tool

import (
	"encoding/json"
	"strconv"
)

// appendPlainResult renders the common result without reflection: text
// blocks whose text is printable ASCII, and structured content that is
// already compact JSON with nothing in it that encoding/json would escape.
// It reports false for anything else, which MarshalJSON leaves to
// encoding/json. Where both apply the two renderings are byte for byte the
// same; FuzzResultMarshal checks it.
func appendPlainResult(dst []byte, r *Result) ([]byte, bool) {
	n := len(`{"content":[],"structuredContent":,"isError":false}`) + len(r.Structured)
	for i := range r.Content {
		c := &r.Content[i]
		// Every field but Text at its text-block value; a field added to
		// Content later is covered by this comparison too.
		if *c != (Content{Type: "text", Text: c.Text}) {
			return nil, false
		}
		escapes, ok := plainText(c.Text)
		if !ok {
			return nil, false
		}
		n += len(`{"type":"text","text":""},`) + len(c.Text) + escapes
	}
	if len(r.Structured) > 0 && !plainCompactJSON(r.Structured) {
		return nil, false
	}
	if dst == nil {
		dst = make([]byte, 0, n)
	}
	dst = append(dst, `{"content":[`...)
	for i := range r.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":"text","text":"`...)
		t := r.Content[i].Text
		for j := 0; j < len(t); j++ {
			if t[j] == '"' || t[j] == '\\' {
				dst = append(dst, '\\')
			}
			dst = append(dst, t[j])
		}
		dst = append(dst, `"}`...)
	}
	dst = append(dst, ']')
	if len(r.Structured) > 0 { // omitempty
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, r.Structured...)
	}
	dst = append(dst, `,"isError":`...)
	dst = strconv.AppendBool(dst, r.IsError)
	return append(dst, '}'), true
}

// plainText reports whether encoding/json writes s as it is except for a
// backslash before '"' and '\\': printable ASCII without the HTML
// characters it escapes. escapes counts those backslashes.
func plainText(s string) (escapes int, ok bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e || c == '<' || c == '>' || c == '&':
			return 0, false
		case c == '"' || c == '\\':
			escapes++
		}
	}
	return escapes, true
}

// plainCompactJSON reports whether b is valid JSON that encoding/json would
// copy unchanged into its output: ASCII, without the HTML characters it
// escapes, and without white space outside strings.
func plainCompactJSON(b []byte) bool {
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case c > 0x7e || c == '<' || c == '>' || c == '&':
			return false
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return json.Valid(b)
}
