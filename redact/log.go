package redact

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// Hide replaces every credential in s by its marker, as Text does, and
// also one glued to the word before it ("tok_ghp_...", "/tmp/xghp_...",
// "%zzAKIA..."), which Text's rules, written for credentials that stand
// alone, do not see. It is for what must never hold a credential whatever
// the mode (logs, approval questions, what a store keeps): Off is treated
// as Balanced. It costs a scan, and a second one only when a credential
// prefix follows a letter, digit or '_'.
func (r *Redactor) Hide(s string) string {
	if r.mode == Off || !mayHold(s) {
		return s
	}
	cuts := r.hideCuts(s)
	if len(cuts) == 0 {
		return s
	}
	return applyCuts(s, cuts)
}

// Credential reports the type of the first credential Hide would remove
// from s, or "" when there is none.
func (r *Redactor) Credential(s string) string {
	if r.mode == Off || !mayHold(s) {
		return ""
	}
	if cuts := r.hideCuts(s); len(cuts) > 0 {
		return cuts[0].typ
	}
	return ""
}

// mayHold reports whether s may hold a credential at all: every KeySweep
// rule needs one of its keywords in or just before its match, and a
// credential in encoded bytes needs a run of 20 hex or base64
// characters. A log line's method, path and status hold neither and cost
// no scan.
func mayHold(s string) bool {
	if len(s) < 8 {
		return false
	}
	if len(s) > 128 || keywordIn(s) {
		return true
	}
	run := 0
	for i := 0; i < len(s); i++ {
		if b64Class[s[i]] {
			if run++; run >= minB64Run {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

func (r *Redactor) hideCuts(s string) []cut {
	var cuts []cut
	add := func(text string) {
		_, spans := r.Text(text)
		for _, sp := range spans {
			if sp.Type == "host" || sp.Type == "ip" || sp.Type == "email" || sp.Type == "path" {
				continue // Strict's pseudonyms are not credentials
			}
			cuts = append(cuts, cut{start: int32(sp.Start), end: int32(sp.End), typ: sp.Type})
		}
	}
	add(s)
	if v, ok := unglued(s); ok {
		add(v)
	}
	return mergeCuts(cuts)
}

// unglued returns s with the byte before every credential prefix that
// follows a letter, digit or '_' turned into a space, so the prefix
// starts a word; offsets stay those of s. ok is false when there is none.
func unglued(s string) (string, bool) {
	var b []byte
	for _, p := range credentialPrefixes() {
		for i := 1; ; {
			k := strings.Index(s[i:], p)
			if k < 0 {
				break
			}
			k += i
			if c := s[k-1]; isLetter(c) || isDigit(c) || c == '_' {
				if b == nil {
					b = []byte(s)
				}
				b[k-1] = ' '
			}
			i = k + 1
			if i >= len(s) {
				break
			}
		}
	}
	if b == nil {
		return s, false
	}
	return string(b), true
}

// NewLogHandler wraps next so that no credential reaches a log: the
// message and every attribute's value that is text (a string, an error,
// a Stringer, a list of strings) pass through Hide. Numbers, times and
// durations pass as they are. r's mode does not matter (Off is treated as
// Balanced); nil builds a Balanced Redactor.
func NewLogHandler(next slog.Handler, r *Redactor) slog.Handler {
	if r == nil || r.mode == Off {
		r, _ = New(nil)
	}
	return &logHandler{next: next, r: r}
}

type logHandler struct {
	next slog.Handler
	r    *Redactor
}

func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *logHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.Hide(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a)
	}
	return &logHandler{next: h.next.WithAttrs(red), r: h.r}
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{next: h.next.WithGroup(name), r: h.r}
}

// attr hides the credentials of one attribute's value.
func (h *logHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.Hide(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, x := range g {
			red[i] = h.attr(x)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, h.r.Hide(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, h.r.Hide(x.String()))
		case []string:
			red := make([]string, len(x))
			for i, s := range x {
				red[i] = h.r.Hide(s)
			}
			return slog.Any(a.Key, red)
		case []byte:
			return slog.String(a.Key, h.r.Hide(string(x)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
