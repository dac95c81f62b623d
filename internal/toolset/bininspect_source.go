package toolset

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/tool"
)

// Getting a file in. bininspect_open takes one of three sources: a path
// under a directory the operator allows (a root), a blob reference from
// an upload, or the bytes themselves in base64 for snippets. A path is
// checked lexically against the roots before the file system is touched,
// so a path outside them learns nothing of what exists there; inside, it
// has its symbolic links resolved, must still lie under a root, and is
// opened through os.Root, which refuses any link or ".." that leads out
// of the root (should one be swapped in meanwhile). Only a regular file
// is read. Messages never name a path.

// MaxDataBytes bounds the bytes of a data_base64 argument.
const MaxDataBytes = 1 << 20

// root is a directory bininspect_open may read by path: as configured
// (absolute) and with its symbolic links resolved.
type root struct {
	given, resolved string
}

// newRoots checks and resolves the configured directories.
func newRoots(dirs []string) ([]root, error) {
	var out []root
	for _, d := range dirs {
		if strings.TrimSpace(d) == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("bininspect root %q: %w", d, err)
		}
		res, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("bininspect root %q: %w", d, err)
		}
		fi, err := os.Stat(res)
		if err != nil {
			return nil, fmt.Errorf("bininspect root %q: %w", d, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("bininspect root %q is not a directory", d)
		}
		out = append(out, root{given: filepath.Clean(abs), resolved: res})
	}
	return out, nil
}

// within returns p relative to dir when p is dir or lies under it
// (lexically; p and dir are clean and absolute).
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

func errPathNotAllowed(why string) error {
	return errcode.New(CodePathNotAllowed, why)
}

// readPath reads the file p names: an absolute path under a root, or a
// path relative to the roots (tried in order). It returns the bytes, the
// absolute path it read (kept server-side, never shown) and the file
// name.
func (b *BinaryViews) readPath(p string) (data []byte, abs, name string, err error) {
	if len(b.roots) == 0 {
		return nil, "", "", errPathNotAllowed("this server opens no files by path; send the bytes as data_base64 (up to 1 MiB) or upload the file (warden upload) and pass its blob reference")
	}
	if p == "" || strings.ContainsRune(p, 0) || len(p) > 4096 {
		return nil, "", "", errPathNotAllowed("the path is not a valid file path")
	}
	var cands []string
	if filepath.IsAbs(p) {
		cands = []string{filepath.Clean(p)}
	} else {
		for _, r := range b.roots {
			cands = append(cands, filepath.Join(r.given, p))
		}
	}
	var notFound error
	for _, c := range cands {
		data, err := b.readUnder(c)
		switch {
		case err == nil:
			return data, c, filepath.Base(c), nil
		case errcode.CodeOf(err) != CodeFileNotFound:
			return nil, "", "", err // a refusal is final
		case notFound == nil:
			notFound = err // a missing file tries the next root
		}
	}
	return nil, "", "", notFound
}

// readUnder reads the clean absolute path c if it lies under a root.
// The check is lexical first, so that a path outside every root learns
// nothing of what exists there; then symbolic links are resolved and the
// real path must lie under a root too.
func (b *BinaryViews) readUnder(c string) ([]byte, error) {
	outside := errPathNotAllowed("the path is outside the directories this server may read; ask its operator which directories --root allows")
	inside := false
	for _, r := range b.roots {
		for _, dir := range []string{r.given, r.resolved} {
			if _, ok := within(dir, c); ok {
				inside = true
			}
		}
	}
	if !inside {
		return nil, outside
	}
	real, err := filepath.EvalSymlinks(c)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errcode.Wrap(CodeFileNotFound, "no such file under the allowed directories", err)
		}
		return nil, errcode.Wrap(CodePathNotAllowed, "the path cannot be resolved", err)
	}
	for _, r := range b.roots {
		if rel, ok := within(r.resolved, real); ok {
			return b.readIn(r.resolved, rel)
		}
	}
	return nil, errPathNotAllowed("the path leads outside the directories this server may read (through a symbolic link)")
}

// readIn opens rel inside the root directory dir and reads it, whole,
// if it is a regular file within the size limit.
func (b *BinaryViews) readIn(dir, rel string) ([]byte, error) {
	rt, err := os.OpenRoot(dir)
	if err != nil {
		return nil, errcode.Wrap(CodeFileNotFound, "the file could not be opened", err)
	}
	defer rt.Close()
	f, err := rt.OpenFile(rel, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errcode.Wrap(CodeFileNotFound, "no such file under the allowed directories", err)
		}
		return nil, errcode.Wrap(CodePathNotAllowed, "the path cannot be opened: it leads outside the allowed directories (through a symbolic link or ..) or is not readable", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, errcode.Wrap(CodePathNotAllowed, "the file cannot be read", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, errPathNotAllowed("only regular files are opened; the path names a directory, device, pipe or socket")
	}
	max := b.o.MaxFileSize
	if fi.Size() > max {
		return nil, errFileTooLarge(max)
	}
	// Read what Stat promised plus one byte, and more only if the file
	// grew meanwhile, never past the limit.
	buf := make([]byte, fi.Size()+1)
	n, err := io.ReadFull(f, buf)
	switch {
	case err == nil:
		rest, rerr := io.ReadAll(io.LimitReader(f, max+1-int64(n)))
		if rerr != nil {
			return nil, errcode.Wrap(CodePathNotAllowed, "the file cannot be read", rerr)
		}
		buf = append(buf[:n], rest...)
		if int64(len(buf)) > max {
			return nil, errFileTooLarge(max)
		}
		return buf, nil
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return buf[:n], nil
	}
	return nil, errcode.Wrap(CodePathNotAllowed, "the file cannot be read", err)
}

func errFileTooLarge(max int64) error {
	return errcode.New(binview.CodeFileTooLarge, fmt.Sprintf("the file is larger than this server's limit of %s", sizeWords(max)))
}

// sizeWords writes a byte count as people do: "64 MiB".
func sizeWords(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// decodeData decodes a data_base64 argument: standard or URL-safe
// alphabet, padded or not, white space ignored.
func decodeData(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\r', '\n':
			return -1
		}
		return r
	}, s)
	if base64.StdEncoding.DecodedLen(len(s)) > MaxDataBytes+3 {
		return nil, errcode.New(binview.CodeFileTooLarge, "data_base64 holds at most 1 MiB; open a larger file by path or upload it (warden upload) and pass its blob reference")
	}
	s = strings.TrimRight(s, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		return nil, errcode.New(tool.CodeInvalidParams, "data_base64 is not valid base64")
	}
	if len(b) > MaxDataBytes {
		return nil, errcode.New(binview.CodeFileTooLarge, "data_base64 holds at most 1 MiB; open a larger file by path or upload it (warden upload) and pass its blob reference")
	}
	if len(b) == 0 {
		return nil, errcode.New(tool.CodeInvalidParams, "data_base64 is empty")
	}
	return b, nil
}

// parseBlobRef reads "sha256:<64 hex digits>".
func parseBlobRef(s string) (string, bool) {
	h, ok := strings.CutPrefix(strings.TrimSpace(s), "sha256:")
	if !ok || len(h) != 64 {
		return "", false
	}
	h = strings.ToLower(h)
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return "", false
		}
	}
	return h, true
}

// BlobRef is the reference of an upload: "sha256:" and the hex digest.
func BlobRef(sha string) string { return "sha256:" + sha }
