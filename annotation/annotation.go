// Package annotation keeps what people add to a binary (comments, names
// and function starts) so that it is never lost.
//
// Annotations are an append-only log keyed by tenant and the file's
// SHA-256, each entry addressed relative to the file's image base. So an
// annotation survives closing and reopening the file, uploading it again,
// loading it at another base, a restart, and a move to another replica
// sharing the store (SQLite embedded, PostgreSQL for several). A change
// is a new entry, a deletion too; the current state is computed from the
// log (the latest entry per address and kind wins), and the log keeps
// every earlier value.
//
// The package is a domain leaf: it defines the Store interface, which the
// storage adapters implement (store/sqlite, store/postgres, and Memory
// here), the rules every entry meets, and the state computed from a log.
package annotation

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/warden-mcp/warden/errcode"
)

// Kind is what an entry annotates.
type Kind string

// The kinds.
const (
	// KindComment is a comment at an address.
	KindComment Kind = "comment"
	// KindName is a name a person gave an address: it resolves in
	// address expressions and names the function or data there.
	KindName Kind = "name"
	// KindFunction says a function starts at the address.
	KindFunction Kind = "function"
)

// Valid reports a known kind.
func (k Kind) Valid() bool { return k == KindComment || k == KindName || k == KindFunction }

// Bounds on what one file's log holds.
const (
	// MaxCommentLen bounds a comment, in characters.
	MaxCommentLen = 4096
	// MaxNameLen bounds a name, in bytes.
	MaxNameLen = 256
	// MaxEntries bounds the entries of one file's log, deletions
	// included.
	MaxEntries = 50000
	// MaxAuthorLen bounds the author credential kept with an entry.
	MaxAuthorLen = 256
	// MaxTenantLen bounds the tenant.
	MaxTenantLen = 256
)

// Error codes.
const (
	// CodeInvalid: an entry breaks a rule (kind, text, name syntax).
	CodeInvalid = "invalid_annotation"
	// CodeLimit: the file's log holds MaxEntries entries.
	CodeLimit = "annotation_limit"
	// CodeUnavailable: the store failed; the cause is logged, not
	// returned.
	CodeUnavailable = "annotations_unavailable"
)

// File names one file's log: the tenant and the file's SHA-256.
type File struct {
	Tenant string
	// SHA256 is the file's digest in lower-case hex.
	SHA256 string
}

// Entry is one record of a file's log.
type Entry struct {
	File
	// Seq numbers the file's entries from 1, in the order they were
	// appended; the store assigns it.
	Seq  int64
	Kind Kind
	// Offset is the address minus the file's image base.
	Offset uint64
	// Text is the comment, or the name; empty for a function start and
	// for a deletion.
	Text string
	// Author is the credential that made the entry.
	Author string
	Time   time.Time
	// Deleted marks an entry that removes the kind at Offset.
	Deleted bool
}

// Store keeps the logs. Implementations must be safe for concurrent use,
// assign Seq under a per-file lock (so that the file's entries commit in
// Seq order and a reader that saw Seq n has seen every entry before it),
// and never change or remove an entry.
type Store interface {
	// AppendAnnotation appends e to its file's log with the next Seq
	// and returns it as stored. When the log already holds max entries
	// it appends nothing and fails with annotation_limit.
	AppendAnnotation(ctx context.Context, e Entry, max int) (Entry, error)
	// AnnotationLog returns the file's entries with Seq > after, in Seq
	// order, at most limit of them.
	AnnotationLog(ctx context.Context, f File, after int64, limit int) ([]Entry, error)
	// LatestAnnotation returns the file's last entry of kind at offset
	// (deletions included), if any.
	LatestAnnotation(ctx context.Context, f File, kind Kind, offset uint64) (Entry, bool, error)
}

var (
	sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)
	autoRE   = regexp.MustCompile(`^(sub|data|loc)_[0-9a-fA-F]{1,16}$`)
)

func invalid(msg string) error { return errcode.New(CodeInvalid, msg) }

// CheckFile checks a file key.
func CheckFile(f File) error {
	if f.Tenant == "" || len(f.Tenant) > MaxTenantLen {
		return invalid("no tenant, or one too long")
	}
	if !sha256RE.MatchString(f.SHA256) {
		return invalid("the file hash must be 64 lower-case hex digits")
	}
	return nil
}

// CheckName checks a name a person gives an address: 1 to 256 bytes of
// printable characters without quotes, white space or a leading digit,
// and not an automatic name (sub_401000), so that it resolves in address
// expressions (quoted when it holds operator characters) and never
// shadows another address's automatic name.
func CheckName(name string) error {
	switch {
	case name == "":
		return invalid("the name is empty")
	case len(name) > MaxNameLen:
		return invalid("the name is longer than 256 bytes")
	case !utf8.ValidString(name):
		return invalid("the name is not valid UTF-8")
	case name[0] >= '0' && name[0] <= '9':
		return invalid("a name cannot start with a digit (it would read as a number)")
	case autoRE.MatchString(name):
		return invalid("sub_, data_ and loc_ followed by hex digits are automatic names")
	}
	for _, r := range name {
		if r == '\'' || r == '"' || r == '`' || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return invalid("a name holds no quotes, white space or control characters")
		}
	}
	return nil
}

// CheckComment checks a comment: 1 to 4096 characters of valid UTF-8,
// without control characters other than newlines and tabs.
func CheckComment(text string) error {
	if strings.TrimSpace(text) == "" {
		return invalid("the comment is empty")
	}
	if !utf8.ValidString(text) {
		return invalid("the comment is not valid UTF-8")
	}
	if utf8.RuneCountInString(text) > MaxCommentLen {
		return invalid("the comment is longer than 4096 characters")
	}
	for _, r := range text {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return invalid("the comment holds control characters")
		}
	}
	return nil
}

// Check checks an entry before it is appended.
func Check(e Entry) error {
	if err := CheckFile(e.File); err != nil {
		return err
	}
	if !e.Kind.Valid() {
		return invalid("the kind must be comment, name or function")
	}
	if e.Author == "" || len(e.Author) > MaxAuthorLen {
		return invalid("no author, or one too long")
	}
	if e.Deleted {
		if e.Text != "" {
			return invalid("a deletion carries no text")
		}
		return nil
	}
	switch e.Kind {
	case KindComment:
		return CheckComment(e.Text)
	case KindName:
		return CheckName(e.Text)
	case KindFunction:
		if e.Text != "" {
			return invalid("a function start carries no text; name it with a name entry")
		}
	}
	return nil
}

// Change is what a write did: the current entry before it and after it
// (nil when there was none, or it was deleted), and whether it appended
// anything. A write that would not change the current value appends
// nothing: writes are idempotent.
type Change struct {
	Before, After *Entry
	Changed       bool
}

func current(e Entry, ok bool) *Entry {
	if !ok || e.Deleted {
		return nil
	}
	return &e
}

// Set makes text the current value of kind at offset (e.Text; empty for
// a function start), appending an entry unless it already is. e.Seq,
// e.Deleted and a zero e.Time are filled in.
func Set(ctx context.Context, st Store, e Entry) (Change, error) {
	e.Deleted, e.Seq = false, 0
	if err := Check(e); err != nil {
		return Change{}, err
	}
	last, ok, err := st.LatestAnnotation(ctx, e.File, e.Kind, e.Offset)
	if err != nil {
		return Change{}, unavailable(err)
	}
	before := current(last, ok)
	if before != nil && before.Text == e.Text {
		return Change{Before: before, After: before}, nil
	}
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	stored, err := st.AppendAnnotation(ctx, e, MaxEntries)
	if err != nil {
		return Change{}, unavailable(err)
	}
	return Change{Before: before, After: &stored, Changed: true}, nil
}

// Delete removes the current value of kind at offset, appending a
// deletion unless there is none. e names the file, kind, offset, author
// and (optionally) time.
func Delete(ctx context.Context, st Store, e Entry) (Change, error) {
	e.Deleted, e.Text, e.Seq = true, "", 0
	if err := Check(e); err != nil {
		return Change{}, err
	}
	last, ok, err := st.LatestAnnotation(ctx, e.File, e.Kind, e.Offset)
	if err != nil {
		return Change{}, unavailable(err)
	}
	before := current(last, ok)
	if before == nil {
		return Change{}, nil
	}
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if _, err := st.AppendAnnotation(ctx, e, MaxEntries); err != nil {
		return Change{}, unavailable(err)
	}
	return Change{Before: before, Changed: true}, nil
}

// unavailable keeps coded errors (annotation_limit) and hides a store's
// cause behind annotations_unavailable.
func unavailable(err error) error {
	if _, ok := errcode.As(err); ok {
		return err
	}
	return errcode.Wrap(CodeUnavailable, "the annotation store is unavailable", err)
}

// ErrLimit is the error a Store returns when a file's log is full.
func ErrLimit() error {
	return errcode.New(CodeLimit, "this file has as many annotations as it may hold").WithDetail("maxEntries", MaxEntries)
}

// key is a current-state slot.
type key struct {
	kind   Kind
	offset uint64
}

// State is the current annotations of one file, computed from its log:
// the latest entry per kind and offset wins, and a deletion removes. It
// is safe for concurrent use; Apply takes entries in Seq order.
type State struct {
	mu  sync.RWMutex
	seq int64
	cur map[key]Entry
	n   int // entries applied
}

// NewState returns an empty state.
func NewState() *State { return &State{cur: map[key]Entry{}} }

// Apply applies log entries with Seq above the last applied one, in
// order; others are ignored.
func (s *State) Apply(entries []Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range entries {
		if e.Seq <= s.seq {
			continue
		}
		s.seq = e.Seq
		s.n++
		k := key{e.Kind, e.Offset}
		if e.Deleted {
			delete(s.cur, k)
		} else {
			s.cur[k] = e
		}
	}
}

// Seq is the last entry applied.
func (s *State) Seq() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.seq
}

// Get returns the current entry of kind at offset.
func (s *State) Get(kind Kind, offset uint64) (Entry, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.cur[key{kind, offset}]
	return e, ok
}

// Entries returns the current entries sorted by offset, then kind.
func (s *State) Entries() []Entry {
	s.mu.RLock()
	out := make([]Entry, 0, len(s.cur))
	for _, e := range s.cur {
		out = append(out, e)
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b Entry) int {
		switch {
		case a.Offset < b.Offset:
			return -1
		case a.Offset > b.Offset:
			return 1
		}
		return strings.Compare(string(a.Kind), string(b.Kind))
	})
	return out
}

// Names returns the current names by offset.
func (s *State) Names() map[uint64]string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := map[uint64]string{}
	for k, e := range s.cur {
		if k.kind == KindName {
			out[k.offset] = e.Text
		}
	}
	return out
}

// Functions returns the offsets of user-defined function starts, sorted.
func (s *State) Functions() []uint64 {
	s.mu.RLock()
	var out []uint64
	for k := range s.cur {
		if k.kind == KindFunction {
			out = append(out, k.offset)
		}
	}
	s.mu.RUnlock()
	slices.Sort(out)
	return out
}

// Load reads a file's whole log from st (in pages) into a new State.
func Load(ctx context.Context, st Store, f File) (*State, error) {
	s := NewState()
	return s, s.Refresh(ctx, st, f)
}

// Refresh applies the entries appended to the file's log since the last
// one applied.
func (s *State) Refresh(ctx context.Context, st Store, f File) error {
	const page = 5000
	for {
		after := s.Seq()
		es, err := st.AnnotationLog(ctx, f, after, page)
		if err != nil {
			return unavailable(err)
		}
		s.Apply(es)
		if len(es) < page {
			return nil
		}
	}
}
