package secretscan

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/warden-mcp/warden/errcode"
)

// Skip reasons reported by ScanDir.
const (
	SkipIgnored    = "ignored"    // matched a .gitignore pattern
	SkipBinary     = "binary"     // NUL byte in the first 8 KiB (UTF-16 text with a byte order mark is decoded, not skipped)
	SkipTooLarge   = "too_large"  // larger than WalkOptions.MaxFileSize
	SkipUnreadable = "unreadable" // could not be opened or read
	SkipSymlink    = "symlink"    // symbolic links are never followed
	SkipSpecial    = "special"    // devices, pipes, sockets
)

// WalkOptions configures ScanDir. The zero value (or nil) is safe.
type WalkOptions struct {
	// MaxFileSize skips larger files. Zero: DefaultMaxFileSize (4 MiB).
	MaxFileSize int64
	// IncludeIgnored scans paths that .gitignore files ignore. Zero:
	// they are skipped. ".git" directories are always skipped.
	IncludeIgnored bool
	// IncludeBinary scans files that look binary. Zero: files with a NUL
	// byte in their first 8 KiB are skipped.
	IncludeBinary bool
	// Workers is the number of files scanned at once. Zero: GOMAXPROCS.
	Workers int
	// Exclude skips the files and directories it matches (reason
	// SkipExcluded), even with IncludeIgnored. Nil: none.
	Exclude *PathFilter
	// OnSkip, if set, is called (from the ScanDir goroutine) for each
	// skipped file or directory, with a Skip* reason.
	OnSkip func(path, reason string)
	// Archives, when set, opens zip (and jar), tar, tar.gz and gzip files
	// and scans their entries, reported as "archive.zip!dir/entry", within
	// its bounds. Nil: archives are files like any other (binary, so
	// skipped unless IncludeBinary).
	Archives *ArchiveOptions
}

// WalkStats counts what ScanDir did.
type WalkStats struct {
	Files   int            `json:"files"`
	Bytes   int64          `json:"bytes"`
	Skipped map[string]int `json:"skipped"`
}

const sniffLen = 8 << 10

type walkJob struct {
	seq  int
	path string // OS path
	rel  string // slash-separated, relative to root
}

type walkOut struct {
	seq   int
	rel   string
	res   Result
	bytes int64
	skip  string
	err   error
	// sub holds an archive's entries, when the file was one.
	sub []archiveEntry
}

// .gitignore matching is our own small implementation (gitignore.go)
// rather than a dependency: the subset scanning needs is about 150 lines.

// ScanDir walks root in lexical order and scans each regular file,
// calling fn with the results in that order (from the calling goroutine).
// Files are read one per worker into bounded buffers, so memory stays
// proportional to Workers × MaxFileSize. A non-nil error from fn stops
// the walk and is returned. Cancelling ctx stops it with CodeCanceled.
func (s *Scanner) ScanDir(ctx context.Context, root string, opts *WalkOptions, fn func(FileResult) error) (WalkStats, error) {
	if opts == nil {
		opts = &WalkOptions{}
	}
	maxSize := opts.MaxFileSize
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	stats := WalkStats{Skipped: map[string]int{}}
	st, err := os.Stat(root)
	if err != nil || !st.IsDir() {
		return stats, errcode.Wrap(CodeInvalidArgument, "root is not a readable directory", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	jobs := make(chan walkJob, workers)
	outs := make(chan walkOut, workers)
	window := make(chan struct{}, workers*4) // bounds results held out of order

	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				outs <- s.scanOne(ctx, j, maxSize, opts.IncludeBinary, opts.Archives)
			}
		}()
	}
	var walkErr error
	go func() {
		defer close(jobs)
		seq := 0
		emit := func(j walkJob) bool {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return false
			}
			j.seq = seq
			seq++
			select {
			case jobs <- j:
				return true
			case <-ctx.Done():
				return false
			}
		}
		skip := func(rel, reason string) bool {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return false
			}
			o := walkOut{seq: seq, rel: rel, skip: reason}
			seq++
			select {
			case outs <- o:
				return true
			case <-ctx.Done():
				return false
			}
		}
		walkErr = walkDir(ctx, root, "", nil, opts.IncludeIgnored, opts.Exclude, emit, skip)
	}()

	pending := map[int]walkOut{}
	next := 0
	var fnErr error
	done := make(chan struct{})
	go func() {
		// The producer closes jobs before the workers finish, so once they
		// are done nothing more is sent on outs.
		wg.Wait()
		close(done)
	}()
	deliver := func(o walkOut) {
		<-window
		if fnErr != nil {
			return
		}
		switch {
		case o.skip != "":
			stats.Skipped[o.skip]++
			if opts.OnSkip != nil {
				opts.OnSkip(o.rel, o.skip)
			}
		case o.err != nil:
			fnErr = o.err
			cancel()
		case o.sub != nil:
			for _, e := range o.sub {
				if e.skip != "" {
					stats.Skipped[e.skip]++
					if opts.OnSkip != nil {
						opts.OnSkip(e.path, e.skip)
					}
					continue
				}
				stats.Files++
				stats.Bytes += e.bytes
				if err := fn(FileResult{Path: e.path, Result: e.res}); err != nil {
					fnErr = err
					cancel()
					return
				}
			}
		default:
			stats.Files++
			stats.Bytes += o.bytes
			if err := fn(FileResult{Path: o.rel, Result: o.res}); err != nil {
				fnErr = err
				cancel()
			}
		}
	}
	flush := func() {
		for {
			p, ok := pending[next]
			if !ok {
				return
			}
			delete(pending, next)
			next++
			deliver(p)
		}
	}
loop:
	for {
		select {
		case o := <-outs:
			pending[o.seq] = o
			flush()
		case <-done:
			for {
				select {
				case o := <-outs:
					pending[o.seq] = o
					continue
				default:
				}
				break
			}
			flush()
			break loop
		}
	}
	if fnErr != nil {
		return stats, fnErr
	}
	if walkErr != nil || ctx.Err() != nil {
		return stats, errcode.Wrap(CodeCanceled, "walk canceled", context.Cause(ctx))
	}
	return stats, nil
}

// walkDir visits dir (rel is its slash path from the root) in lexical order.
func walkDir(ctx context.Context, dir, rel string, ign ignoreStack, includeIgnored bool, exclude *PathFilter,
	emit func(walkJob) bool, skip func(rel, reason string) bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !skip(rel, SkipUnreadable) {
			return ctx.Err()
		}
		return nil
	}
	if !includeIgnored {
		for _, e := range entries {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				if f, err := os.Open(filepath.Join(dir, ".gitignore")); err == nil {
					ign = append(ign[:len(ign):len(ign)], parseIgnore(rel, io.LimitReader(f, 1<<20)))
					f.Close()
				}
			}
		}
	}
	for _, e := range entries {
		name := e.Name()
		childRel := path.Join(rel, name)
		full := filepath.Join(dir, name)
		t := e.Type()
		if exclude.Excluded(childRel, e.IsDir()) {
			if !skip(childRel, SkipExcluded) {
				return ctx.Err()
			}
			continue
		}
		switch {
		case t&fs.ModeSymlink != 0:
			if !skip(childRel, SkipSymlink) {
				return ctx.Err()
			}
		case e.IsDir():
			if name == ".git" {
				continue
			}
			if !includeIgnored && ign.ignored(childRel, true) {
				if !skip(childRel, SkipIgnored) {
					return ctx.Err()
				}
				continue
			}
			if err := walkDir(ctx, full, childRel, ign, includeIgnored, exclude, emit, skip); err != nil {
				return err
			}
		case t.IsRegular():
			if !includeIgnored && ign.ignored(childRel, false) {
				if !skip(childRel, SkipIgnored) {
					return ctx.Err()
				}
				continue
			}
			if !emit(walkJob{path: full, rel: childRel}) {
				return ctx.Err()
			}
		default:
			if !skip(childRel, SkipSpecial) {
				return ctx.Err()
			}
		}
	}
	return nil
}

// scanOne reads and scans one file.
func (s *Scanner) scanOne(ctx context.Context, j walkJob, maxSize int64, includeBinary bool, archives *ArchiveOptions) walkOut {
	o := walkOut{seq: j.seq, rel: j.rel}
	f, err := os.Open(j.path)
	if err != nil {
		o.skip = SkipUnreadable
		return o
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		o.skip = SkipUnreadable
		return o
	}
	if archives != nil {
		head := make([]byte, 512)
		n, _ := io.ReadFull(f, head)
		if IsArchive(head[:n]) {
			return s.scanArchiveFile(ctx, o, f, st.Size(), archives.withDefaults(maxSize), includeBinary)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			o.skip = SkipUnreadable
			return o
		}
	}
	if st.Size() > maxSize {
		o.skip = SkipTooLarge
		return o
	}
	// Read straight into a strings.Builder: its String() does not copy,
	// so each file is held once.
	var sb strings.Builder
	sb.Grow(int(st.Size()) + 1)
	n, err := io.Copy(&sb, io.LimitReader(f, maxSize+1))
	if err != nil {
		o.skip = SkipUnreadable
		return o
	}
	if n > maxSize {
		o.skip = SkipTooLarge
		return o
	}
	text := sb.String()
	if IsUTF16([]byte(text[:min(len(text), 2)])) {
		text = decodeText(text) // text, though its NUL bytes look binary
	} else if !includeBinary && strings.IndexByte(text[:min(len(text), sniffLen)], 0) >= 0 {
		o.skip = SkipBinary
		return o
	}
	res, err := s.Scan(ctx, text)
	if err != nil {
		o.err = err
		return o
	}
	o.res, o.bytes = res, n
	return o
}

// scanArchiveFile scans the archive open in f (its first bytes already
// read) and returns its entries in o.sub.
func (s *Scanner) scanArchiveFile(ctx context.Context, o walkOut, f *os.File, size int64, ao ArchiveOptions, includeBinary bool) walkOut {
	if size > ao.MaxArchiveSize {
		o.skip = SkipTooLarge
		return o
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		o.skip = SkipUnreadable
		return o
	}
	data, err := io.ReadAll(io.LimitReader(f, ao.MaxArchiveSize+1))
	if err != nil || int64(len(data)) > ao.MaxArchiveSize {
		o.skip = SkipUnreadable
		return o
	}
	entries, err := s.scanArchive(ctx, o.rel, data, ao, includeBinary)
	if err != nil {
		o.err = err
		return o
	}
	if entries == nil {
		entries = []archiveEntry{} // an empty archive: nothing to report, but not a file
	}
	o.sub = entries
	return o
}
