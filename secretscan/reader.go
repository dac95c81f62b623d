package secretscan

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/warden-mcp/warden/errcode"
)

// DefaultMaxFileSize is the file size cap of ScanFile and ScanDir.
const DefaultMaxFileSize = 4 << 20

// ScanReader reads at most maxBytes from r and scans them. A larger input
// is not scanned: the error has code CodeTooLarge (errors.Is(err,
// ErrTooLarge)). maxBytes <= 0 means DefaultMaxFileSize. UTF-16 text with
// a byte order mark is decoded before it is scanned. ScanStream takes
// input of any size.
func (s *Scanner) ScanReader(ctx context.Context, r io.Reader, maxBytes int64) (Result, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileSize
	}
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return Result{}, errcode.Wrap(CodeReadFailed, "cannot read input", err)
	}
	if int64(len(data)) > maxBytes {
		return Result{}, errcode.New(CodeTooLarge, "input larger than the size cap")
	}
	return s.Scan(ctx, decodeText(string(data)))
}

// ScanFile scans the file at path, refusing files larger than maxBytes
// (<= 0: DefaultMaxFileSize) before reading them.
func (s *Scanner) ScanFile(ctx context.Context, path string, maxBytes int64) (Result, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileSize
	}
	f, err := os.Open(path)
	if err != nil {
		return Result{}, errcode.Wrap(CodeReadFailed, "cannot open file", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxBytes {
		return Result{}, errcode.New(CodeTooLarge, "file larger than the size cap")
	}
	res, err := s.ScanReader(ctx, f, maxBytes)
	if e, ok := errcode.As(err); ok && e.Code == CodeReadFailed {
		e.Message = "cannot read file"
	}
	return res, err
}

// ScanLimited scans text if it has at most maxChars Unicode characters
// (maxChars <= 0: MaxToolChars, the keysweep_scan_text limit) and
// otherwise fails with CodeTooLarge without scanning.
func (s *Scanner) ScanLimited(ctx context.Context, text string, maxChars int) (Result, error) {
	if maxChars <= 0 {
		maxChars = MaxToolChars
	}
	if len(text) > maxChars && runeCount(text) > maxChars {
		return Result{}, errcode.New(CodeTooLarge, fmt.Sprintf("text longer than %d characters", maxChars))
	}
	return s.Scan(ctx, text)
}
