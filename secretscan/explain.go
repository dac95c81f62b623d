package secretscan

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

// Filters that are not value rules (valueRules holds those). A pattern
// rule's match goes through the checks of the same names where they
// apply: "length", "known-test-value", "placeholder".
const (
	filterName          = "name"           // the assigned name does not name a credential of the class
	filterBoundary      = "boundary"       // the match is part of a longer word
	filterExclude       = "exclude"        // the rule's own exclusion (an API path where a name should be)
	filterEntropy       = "entropy"        // below the rule's entropy floor
	filterUserInfo      = "user-info"      // a URL password that repeats the user or is a port
	filterMinConfidence = "min-confidence" // below Options.MinConfidence
	filterLength        = "length"
	filterKnownTest     = "known-test-value"
	filterPlaceholder   = "placeholder"
)

// Rejection is a candidate that a filter turned down, recorded when
// Options.ExplainFilters is set. Like Detection, it never holds the
// value: only which filter, which rule, where and how long.
type Rejection struct {
	// Filter names what rejected the candidate. For the generic
	// assignment rules it is "name" when the assigned name does not name
	// a credential ("password_file", "max_tokens"), else one of the value
	// rules ("variable-reference", "placeholder-word", "key-entropy", ...:
	// the package's valueRules). For the other rules it is "boundary" (the
	// match is part of a longer word), "length", "known-test-value",
	// "placeholder", "exclude" (the rule's own exclusion), "entropy" or
	// "user-info" (a URL password that repeats the user or is a port).
	// "min-confidence" is Options.MinConfidence, for any rule. Names are
	// for people: they may change between versions.
	Filter string `json:"filter"`
	RuleID string `json:"rule_id"`
	Type   string `json:"type"`
	// ValueLength, Line, Column, Offset, End and Encoding are as in
	// Detection: a candidate in an encoded layer is located at the
	// encoded span.
	ValueLength int    `json:"value_length"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
	Offset      int    `json:"offset"`
	End         int    `json:"end"`
	Encoding    string `json:"encoding,omitempty"`
}

// rejected records that filter turned down text[start:end] as r's
// candidate, found under the encodings enc. Callers check st.explain
// first, so that a scan without Options.ExplainFilters does no work for it.
func (st *scanState) rejected(r *compiledRule, filter string, start, end int, value, enc string) {
	if len(st.rejections) >= st.maxRejections {
		return
	}
	st.rejections = append(st.rejections, Rejection{Filter: filter, RuleID: r.ID, Type: r.Type,
		ValueLength: utf8.RuneCountInString(value), Offset: start, End: end, Encoding: enc})
}

// relocate moves the rejections recorded from mark on, found in the
// decoded text of sp, to sp in the text it was decoded from.
func (st *scanState) relocate(mark int, sp encodedSpan) {
	for i := mark; i < len(st.rejections); i++ {
		r := &st.rejections[i]
		if r.Encoding != "" {
			r.Encoding = sp.enc + "+" + r.Encoding
		} else {
			r.Encoding = sp.enc
		}
		r.Offset, r.End = sp.start, sp.end
	}
}

// explained returns the rejections in text order, located by line and
// column.
func (st *scanState) explained(text string) []Rejection {
	rs := st.rejections
	slices.SortStableFunc(rs, func(a, b Rejection) int {
		return cmp.Or(cmp.Compare(a.Offset, b.Offset), cmp.Compare(a.End, b.End),
			cmp.Compare(a.RuleID, b.RuleID), cmp.Compare(a.Filter, b.Filter))
	})
	lt := newLineTracker(text)
	for i := range rs {
		rs[i].Line, rs[i].Column = lt.at(rs[i].Offset)
	}
	return rs
}
