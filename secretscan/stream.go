package secretscan

import (
	"bytes"
	"context"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/warden-mcp/warden/errcode"
)

// Stream windows. Each window is scanned whole but reports only the
// detections that start before its last streamHold bytes; those are
// reported by the next window, which begins streamBack bytes (rounded to
// a line start) before them so that keywords ahead of a value are seen.
// A secret longer than streamHold (no rule matches one) could be cut.
const (
	streamBlock = 1 << 20
	streamHold  = 128 << 10
	streamBack  = 8 << 10
)

// ScanStream scans everything r yields, of any size, in windows of about
// 1 MiB: memory stays bounded whatever the input's length. Detections
// carry their line, column and byte offset in the whole stream, as Scan
// would give them for the text at once. A UTF-16 stream with a byte order
// mark is decoded first (offsets then count the decoded UTF-8 text). It
// returns the combined result and the number of bytes read from r. The
// only errors are a failed read (CodeReadFailed) and cancellation.
func (s *Scanner) ScanStream(ctx context.Context, r io.Reader) (Result, int64, error) {
	return s.scanStream(ctx, r, streamBlock, streamHold, streamBack)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (s *Scanner) scanStream(ctx context.Context, r io.Reader, block, hold, back int) (Result, int64, error) {
	cr := &countingReader{r: r}
	tr := textReader(cr)
	var (
		out     Result
		buf     = make([]byte, 0, block+hold)
		base    int64 // stream offset of buf[0]
		lines   int   // newlines before buf[0]
		colBase int   // characters between the last newline and buf[0]
		from    int   // report detections starting at buf[from:] or later
		eof     bool
	)
	for !eof {
		for len(buf) < block+hold && !eof {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := tr.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if errors.Is(err, io.EOF) {
				eof = true
			} else if err != nil {
				return Result{}, cr.n, errcode.Wrap(CodeReadFailed, "cannot read input", err)
			}
		}
		to := len(buf)
		if !eof {
			to = runeStart(buf, len(buf)-hold)
		}
		text := string(buf)
		res, err := s.scanRange(ctx, text, from, to)
		if err != nil {
			return Result{}, cr.n, err
		}
		out.TextLength += runeCount(text[from:to])
		out.Suppressed += res.Suppressed
		out.Truncated = out.Truncated || res.Truncated
		for _, d := range res.Detections {
			if len(out.Detections) >= s.maxDet {
				out.Truncated = true
				break
			}
			out.Detections = append(out.Detections, shiftDetection(d, base, lines, colBase))
		}
		for _, rj := range res.Rejected {
			if rj.Offset >= from && rj.Offset < to {
				if rj.Line == 1 {
					rj.Column += colBase
				}
				rj.Line += lines
				rj.Offset += int(base)
				rj.End += int(base)
				out.Rejected = append(out.Rejected, rj)
			}
		}
		if eof {
			break
		}
		// Keep what the next window needs: from a line start shortly
		// before the first unreported byte.
		cut := runeStart(buf, max(0, to-back))
		if k := bytes.LastIndexByte(buf[max(0, cut-back):cut], '\n'); k >= 0 {
			cut = max(0, cut-back) + k + 1
		}
		head := buf[:cut]
		if nl := bytes.Count(head, []byte{'\n'}); nl > 0 {
			lines += nl
			colBase = utf8.RuneCount(head[bytes.LastIndexByte(head, '\n')+1:])
		} else {
			colBase += utf8.RuneCount(head)
		}
		base += int64(cut)
		from = to - cut
		buf = buf[:copy(buf, buf[cut:])]
	}
	return out, cr.n, nil
}

// shiftDetection moves d from a window's coordinates to the stream's.
func shiftDetection(d Detection, base int64, lines, colBase int) Detection {
	if d.Line == 1 {
		d.Column += colBase
	}
	d.Line += lines
	d.Offset += int(base)
	d.End += int(base)
	for i := range d.Parts {
		if d.Parts[i].Line == 1 {
			d.Parts[i].Column += colBase
		}
		d.Parts[i].Line += lines
		d.Parts[i].Offset += int(base)
		d.Parts[i].End += int(base)
	}
	return d
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in.
func runeStart(b []byte, i int) int {
	for j := 0; j < utf8.UTFMax && i > 0 && i < len(b) && !utf8.RuneStart(b[i]); j++ {
		i--
	}
	return i
}
