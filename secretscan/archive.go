package secretscan

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/warden-mcp/warden/errcode"
)

// Skip reasons of archive entries.
const (
	// SkipArchiveLimit: the archive's entry count, expanded size or
	// nesting depth ran out (a zip bomb ends here).
	SkipArchiveLimit = "archive_limit"
	// SkipArchiveCorrupt: the archive (or the rest of it) could not be read.
	SkipArchiveCorrupt = "archive_corrupt"
)

// ArchiveOptions bound what scanning inside archives (zip, jar, tar,
// tar.gz, gzip) may read. Zero fields take the defaults below. Memory
// stays within MaxArchiveSize for the outer archive, MaxNestedSize per
// level of nesting and one entry of MaxEntrySize, whatever the archive
// claims about itself.
type ArchiveOptions struct {
	// MaxArchiveSize skips larger archive files. Default 64 MiB.
	MaxArchiveSize int64
	// MaxNestedSize bounds an archive inside an archive. Default 16 MiB.
	MaxNestedSize int64
	// MaxEntrySize skips larger entries (SkipTooLarge). Default: the
	// walk's MaxFileSize.
	MaxEntrySize int64
	// MaxExpanded bounds the bytes all entries of one archive expand to,
	// nested ones included. Default 256 MiB.
	MaxExpanded int64
	// MaxEntries bounds the entries of one archive, nested ones included.
	// Default 10,000.
	MaxEntries int
	// MaxDepth bounds nesting: 1 opens only the archive itself. Default 3.
	MaxDepth int
}

func (o *ArchiveOptions) withDefaults(maxEntry int64) ArchiveOptions {
	var d ArchiveOptions
	if o != nil {
		d = *o
	}
	if d.MaxArchiveSize <= 0 {
		d.MaxArchiveSize = 64 << 20
	}
	if d.MaxNestedSize <= 0 {
		d.MaxNestedSize = 16 << 20
	}
	if d.MaxEntrySize <= 0 {
		d.MaxEntrySize = maxEntry
	}
	if d.MaxExpanded <= 0 {
		d.MaxExpanded = 256 << 20
	}
	if d.MaxEntries <= 0 {
		d.MaxEntries = 10_000
	}
	if d.MaxDepth <= 0 {
		d.MaxDepth = 3
	}
	return d
}

// IsArchive reports whether head, a file's first bytes (at least 262 for
// tar), starts a zip (or jar), gzip or tar archive.
func IsArchive(head []byte) bool { return archiveKind(head) != "" }

func archiveKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return "zip"
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "gzip"
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return "tar"
	}
	return ""
}

// archiveEntry is one entry's outcome, in archive order.
type archiveEntry struct {
	path  string
	res   Result
	bytes int64
	skip  string
}

// archiveWalk scans one archive and the archives inside it, within one
// budget of entries and expanded bytes.
type archiveWalk struct {
	ctx           context.Context
	s             *Scanner
	o             ArchiveOptions
	includeBinary bool
	entries       int
	expanded      int64
	out           []archiveEntry
	stopped       bool // the budget ran out: the rest is one archive_limit skip
}

// scanArchive scans the entries of the archive in data; name is the
// archive's path, entries are reported as name!entry.
func (s *Scanner) scanArchive(ctx context.Context, name string, data []byte, o ArchiveOptions, includeBinary bool) ([]archiveEntry, error) {
	w := &archiveWalk{ctx: ctx, s: s, o: o, includeBinary: includeBinary}
	w.archive(name, data, 1)
	if err := ctx.Err(); err != nil {
		return nil, errcode.Wrap(CodeCanceled, "scan canceled", err)
	}
	return w.out, nil
}

func (w *archiveWalk) skip(path, reason string) {
	w.out = append(w.out, archiveEntry{path: path, skip: reason})
}

// limit records that the budget ran out, once.
func (w *archiveWalk) limit(path string) {
	if !w.stopped {
		w.stopped = true
		w.skip(path, SkipArchiveLimit)
	}
}

func (w *archiveWalk) archive(name string, data []byte, depth int) {
	switch archiveKind(data[:min(len(data), 512)]) {
	case "zip":
		w.zip(name, data, depth)
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			w.skip(name, SkipArchiveCorrupt)
			return
		}
		zr.Multistream(false)
		inner := strings.TrimSuffix(strings.TrimSuffix(baseName(name), ".gz"), ".tgz")
		// A gzip file holds one file, which may be a tar archive.
		w.entry(name+"!"+inner, zr, depth, true)
	case "tar":
		w.tar(name, bytes.NewReader(data), depth)
	}
}

func (w *archiveWalk) zip(name string, data []byte, depth int) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		w.skip(name, SkipArchiveCorrupt)
		return
	}
	for _, f := range zr.File {
		if w.stopped || w.ctx.Err() != nil {
			return
		}
		if f.FileInfo().IsDir() {
			continue
		}
		p := name + "!" + cleanEntryName(f.Name)
		if f.UncompressedSize64 > uint64(w.o.MaxEntrySize) {
			w.counted(p, SkipTooLarge)
			continue
		}
		rc, err := f.Open()
		if err != nil {
			w.counted(p, SkipArchiveCorrupt)
			continue
		}
		w.entry(p, rc, depth, false)
		rc.Close()
	}
}

func (w *archiveWalk) tar(name string, r io.Reader, depth int) {
	tr := tar.NewReader(r)
	for !w.stopped && w.ctx.Err() == nil {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			w.skip(name, SkipArchiveCorrupt)
			return
		}
		if h.Typeflag != tar.TypeReg {
			continue // directories, links and devices hold no text
		}
		p := name + "!" + cleanEntryName(h.Name)
		if h.Size > w.o.MaxEntrySize {
			w.counted(p, SkipTooLarge)
			continue
		}
		w.entry(p, tr, depth, false)
	}
}

// counted records a skipped entry, which still counts against the budget
// of entries.
func (w *archiveWalk) counted(path, reason string) {
	w.entries++
	if w.entries > w.o.MaxEntries {
		w.limit(path)
		return
	}
	w.skip(path, reason)
}

// entry reads one entry within the budget, then opens it as an archive
// (nested, within MaxDepth) or scans it as text.
func (w *archiveWalk) entry(path string, r io.Reader, depth int, gzipped bool) {
	w.entries++
	if w.entries > w.o.MaxEntries {
		w.limit(path)
		return
	}
	room := w.o.MaxExpanded - w.expanded
	if room <= 0 {
		w.limit(path)
		return
	}
	// An entry may be an archive larger than an entry may be as text.
	capacity := max(w.o.MaxEntrySize, w.o.MaxNestedSize)
	if gzipped {
		capacity = max(capacity, w.o.MaxArchiveSize)
	}
	n := min(capacity, room)
	data, err := io.ReadAll(io.LimitReader(r, n+1))
	w.expanded += int64(len(data))
	if err != nil {
		w.skip(path, SkipArchiveCorrupt)
		return
	}
	if int64(len(data)) > n {
		if n == room {
			w.limit(path) // the archive expands past its budget: a bomb
		} else {
			w.skip(path, SkipTooLarge)
		}
		return
	}
	if kind := archiveKind(data[:min(len(data), 512)]); kind != "" {
		if depth >= w.o.MaxDepth {
			w.skip(path, SkipArchiveLimit)
			return
		}
		if kind == "tar" && gzipped {
			// tar.gz is one archive, as people think of it: its entries
			// are the gzip file's own (x.tar.gz!etc/app.conf).
			w.tar(path[:strings.LastIndexByte(path, '!')], bytes.NewReader(data), depth)
			return
		}
		w.archive(path, data, depth+1)
		return
	}
	if int64(len(data)) > w.o.MaxEntrySize {
		w.skip(path, SkipTooLarge)
		return
	}
	text := string(data)
	if IsUTF16(data[:min(len(data), 2)]) {
		text = decodeText(text)
	} else if !w.includeBinary && bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		w.skip(path, SkipBinary)
		return
	}
	res, err := w.s.Scan(w.ctx, text)
	if err != nil {
		return // canceled: scanArchive reports it
	}
	w.out = append(w.out, archiveEntry{path: path, res: res, bytes: int64(len(data))})
}

// cleanEntryName makes an entry's name safe to print: no control
// characters (a terminal's escape sequences), valid UTF-8, at most 512 bytes.
func cleanEntryName(n string) string {
	n = strings.ToValidUTF8(n, "?")
	n = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, n)
	if len(n) > 512 {
		cut := 512
		for cut > 0 && !utf8.RuneStart(n[cut]) {
			cut--
		}
		n = n[:cut] + "…"
	}
	return n
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, "/!"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// ScanArchiveFile scans the archive at path as ScanDir does with
// WalkOptions.Archives set: fn gets each scanned entry in archive order
// (Path "path!entry"), onSkip (if set) each skipped one with its reason.
// ok is false, and nothing is scanned, when the file is not an archive.
// maxEntry bounds an entry as text (<= 0: DefaultMaxFileSize).
func (s *Scanner) ScanArchiveFile(ctx context.Context, path string, maxEntry int64, o *ArchiveOptions, includeBinary bool,
	fn func(FileResult) error, onSkip func(path, reason string)) (stats WalkStats, ok bool, err error) {
	stats = WalkStats{Skipped: map[string]int{}}
	if maxEntry <= 0 {
		maxEntry = DefaultMaxFileSize
	}
	f, err := os.Open(path)
	if err != nil {
		return stats, false, errcode.Wrap(CodeReadFailed, "cannot open file", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return stats, false, errcode.Wrap(CodeReadFailed, "cannot read file", err)
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	if !IsArchive(head[:n]) {
		return stats, false, nil
	}
	out := s.scanArchiveFile(ctx, walkOut{rel: filepath.ToSlash(path)}, f, st.Size(), o.withDefaults(maxEntry), includeBinary)
	switch {
	case out.err != nil:
		return stats, true, out.err
	case out.skip != "":
		stats.Skipped[out.skip]++
		if onSkip != nil {
			onSkip(filepath.ToSlash(path), out.skip)
		}
		return stats, true, nil
	}
	for _, e := range out.sub {
		if e.skip != "" {
			stats.Skipped[e.skip]++
			if onSkip != nil {
				onSkip(e.path, e.skip)
			}
			continue
		}
		stats.Files++
		stats.Bytes += e.bytes
		if err := fn(FileResult{Path: e.path, Result: e.res}); err != nil {
			return stats, true, err
		}
	}
	return stats, true, nil
}
