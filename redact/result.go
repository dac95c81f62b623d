package redact

import (
	"context"
	"slices"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/tool"
)

// Report says what one Result pass did, for audit records and metrics. It
// never holds a removed value.
type Report struct {
	// Redactions counts the credentials the text pass removed.
	Redactions int `json:"redactions"`
	// ByType counts them by KeySweep type. Nil when there were none.
	ByType map[string]int `json:"by_type,omitempty"`
	// Strings counts the strings examined: member names and values of
	// structured content, text blocks and the text fields of other blocks.
	Strings int `json:"strings"`
	// Bytes counts the bytes handed to the scanner.
	Bytes int `json:"bytes"`
	// Pseudonyms counts the host names, addresses, e-mail addresses and
	// paths Strict replaced in free text.
	Pseudonyms int `json:"pseudonyms,omitempty"`
}

func (rep *Report) count(typ string) {
	rep.Redactions++
	if rep.ByType == nil {
		rep.ByType = map[string]int{}
	}
	rep.ByType[typ]++
}

// Result returns res with the text pass applied to every string a client
// will read: text blocks, the text of embedded resources, the URI, name,
// title and description of every block, warning messages, and every member
// name and string value of the structured content (and of an embedded
// resource's _meta). Images, audio and blobs are left alone.
//
// Member names are scanned too: a map keyed by token or session ID carries
// its secrets in its names. A name the pass changes keeps its object valid
// and unambiguous: if it now equals another member's name, "#2", "#3"...
// is appended.
//
// Structured content is decoded, never edited as bytes: every string is
// decoded, the changed ones are re-encoded whole, and every other token,
// member order and white space included, is kept byte for byte. A text
// block that repeats the structured content byte for byte (as the SDK
// writes it for typed tools) becomes the redacted structured content, so
// the two views agree and the pass runs once.
//
// Result never mutates res. When nothing needs removing, and in Off, it
// returns res itself: callers must not modify the returned Result in place.
// It fails closed, with a *errcode.Error, when the result is larger than the
// bounds (CodeLimit) or its structured content is not valid JSON
// (CodeMalformed); the caller refuses the result then.
func (r *Redactor) Result(res *tool.Result) (*tool.Result, error) {
	out, _, err := r.RedactResult(res)
	return out, err
}

// RedactResult is Result with a report of what was removed.
func (r *Redactor) RedactResult(res *tool.Result) (*tool.Result, Report, error) {
	var rep Report
	if r.mode == Off || res == nil {
		return res, rep, nil
	}
	sc := r.pool.get()
	defer r.pool.put(sc)

	structured := res.Structured
	changed := false
	if len(res.Structured) > 0 {
		b, ch, err := r.redactJSON(sc, res.Structured, &rep)
		if err != nil {
			return nil, rep, err
		}
		structured, changed = b, ch
	}

	var content []tool.Content // a copy, made at the first change
	for i := range res.Content {
		c := res.Content[i]
		orig := c
		var err error
		if c.Type == "text" && len(res.Structured) > 0 && c.Text == string(res.Structured) {
			if changed {
				c.Text = string(structured)
			}
		} else if c.Type == "text" || c.Text != "" {
			if c.Text, err = r.textField(c.Text, &rep); err != nil {
				return nil, rep, err
			}
		}
		for _, f := range []*string{&c.URI, &c.Name, &c.Title, &c.Description} {
			if *f, err = r.textField(*f, &rep); err != nil {
				return nil, rep, err
			}
		}
		if c.Resource != nil {
			rc, ch, err := r.resource(sc, c.Resource, &rep)
			if err != nil {
				return nil, rep, err
			}
			if ch {
				c.Resource = rc
			}
		}
		if !sameContent(&c, &orig) {
			if content == nil {
				content = slices.Clone(res.Content)
			}
			content[i] = c
		}
	}

	var warnings []tool.Warning
	for i, w := range res.Warnings {
		m, err := r.textField(w.Message, &rep)
		if err != nil {
			return nil, rep, err
		}
		if m != w.Message {
			if warnings == nil {
				warnings = slices.Clone(res.Warnings)
			}
			warnings[i].Message = m
		}
	}

	if !changed && content == nil && warnings == nil {
		return res, rep, nil
	}
	out := *res
	if changed {
		out.Structured = structured
	}
	if content != nil {
		out.Content = content
	}
	if warnings != nil {
		out.Warnings = warnings
	}
	return &out, rep, nil
}

// resource applies the pass to an embedded resource's URI, text and
// _meta, returning a copy when it changed any.
func (r *Redactor) resource(sc *scratch, res *tool.ResourceContents, rep *Report) (*tool.ResourceContents, bool, error) {
	rc := *res
	changed := false
	var err error
	if rc.URI, err = r.textField(rc.URI, rep); err != nil {
		return nil, false, err
	}
	changed = rc.URI != res.URI
	if rc.Text != nil {
		t, err := r.textField(*rc.Text, rep)
		if err != nil {
			return nil, false, err
		}
		if t != *rc.Text {
			rc.Text, changed = &t, true
		}
	}
	if len(rc.Meta) > 0 {
		b, ch, err := r.redactJSON(sc, rc.Meta, rep)
		if err != nil {
			return nil, false, err
		}
		if ch {
			rc.Meta, changed = b, true
		}
	}
	return &rc, changed, nil
}

// sameContent reports whether the pass left a block's strings as they were.
func sameContent(a, b *tool.Content) bool {
	return a.Text == b.Text && a.URI == b.URI && a.Name == b.Name && a.Title == b.Title &&
		a.Description == b.Description && a.Resource == b.Resource
}

var (
	errLimitStrings = errcode.New(CodeLimit, "the result holds too many strings to check for credentials")
	errLimitBytes   = errcode.New(CodeLimit, "the result is too large to check for credentials")
)

func errMalformed(cause error) error {
	return errcode.Wrap(CodeMalformed, "the result cannot be checked for credentials", cause)
}

// textField runs the text pass over one string of a result, counting it
// against the bounds.
func (r *Redactor) textField(s string, rep *Report) (string, error) {
	if s == "" {
		return s, nil
	}
	rep.Strings++
	rep.Bytes += len(s)
	if rep.Strings > r.maxStrings {
		return "", errLimitStrings
	}
	if rep.Bytes > r.maxBytes {
		return "", errLimitBytes
	}
	res, err := r.scanner.Scan(context.Background(), s)
	if err != nil || res.Truncated {
		return "", errMalformed(errScannerGaveUp)
	}
	var cuts []cut
	for i := range res.Detections {
		d := &res.Detections[i]
		if r.redactsIn(d, s) {
			cuts = append(cuts, cut{start: int32(d.Offset), end: int32(d.End), typ: d.Type})
			rep.count(d.Type)
		}
	}
	n := len(cuts)
	cuts = r.gluedCuts(cuts, nil, s, 0)
	for _, c := range cuts[n:] {
		rep.count(c.typ)
	}
	for _, c := range r.encodedCuts(s, 0) {
		cuts = append(cuts, c)
		rep.count(c.typ)
	}
	for _, c := range r.identityCuts(nil, s, 0, nil) {
		cuts = append(cuts, c)
		rep.Pseudonyms++
	}
	if len(cuts) == 0 {
		return s, nil
	}
	return applyCuts(s, cuts), nil
}

type scannerError string

func (e scannerError) Error() string { return string(e) }

const errScannerGaveUp = scannerError("the scanner stopped early on a string")
