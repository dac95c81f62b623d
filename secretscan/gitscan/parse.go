package gitscan

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/warden-mcp/warden/secretscan"
)

// flushBytes is the most added text of one file change scanned at once;
// a larger change is scanned in parts cut at line ends.
const flushBytes = 1 << 20

// parser turns the output of git log -p -U0 (or git diff --cached) into
// chunks: the lines each commit added to each file, with their line
// numbers in the new file.
type parser struct {
	ctx     context.Context
	out     chan<- *chunk
	maxLine int
	staged  bool
	exclude *secretscan.PathFilter

	commits   int
	truncated bool

	seq      int
	cur      *commitInfo
	path     string
	inHunk   bool
	header   bool // between "diff --git" and the first hunk
	nextLine int32
	text     []byte
	lines    []int32
}

func (p *parser) parse(r io.Reader) error {
	if p.maxLine <= 0 {
		p.maxLine = 1 << 20
	}
	if p.staged {
		p.cur = &commitInfo{}
	}
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: keep up to maxLine of it.
			if len(long) < p.maxLine {
				long = append(long, line[:min(len(line), p.maxLine-len(long))]...)
			} else {
				p.truncated = true
			}
			continue
		}
		if len(line) > p.maxLine+1 { // +1: the newline
			line = line[:p.maxLine]
			p.truncated = true
		}
		if long != nil {
			if len(long)+len(line) > p.maxLine {
				line = line[:max(0, p.maxLine-len(long))]
				p.truncated = true
			}
			line = append(long, line...)
			long = nil
		}
		if len(line) > 0 {
			if err := p.handle(bytes.TrimSuffix(line, []byte{'\n'})); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return p.flush()
		}
		if err != nil {
			return err
		}
	}
}

func (p *parser) handle(line []byte) error {
	switch {
	case bytes.HasPrefix(line, []byte(commitMark)):
		if err := p.flush(); err != nil {
			return err
		}
		f := strings.SplitN(string(line[len(commitMark):]), "\x00", 4)
		for len(f) < 4 {
			f = append(f, "")
		}
		p.cur = &commitInfo{hash: f[0], author: f[1], email: f[2], date: f[3]}
		p.commits++
		p.path, p.inHunk = "", false
	case p.inHunk && len(line) > 0 && line[0] == '+':
		p.text = append(p.text, line[1:]...)
		p.text = append(p.text, '\n')
		p.lines = append(p.lines, p.nextLine)
		p.nextLine++
		if len(p.text) >= flushBytes {
			return p.flush()
		}
	case p.inHunk && len(line) > 0 && (line[0] == '-' || line[0] == '\\'):
		// a removed line, or "\ No newline at end of file"
	case bytes.HasPrefix(line, []byte("@@ ")):
		p.inHunk, p.header = false, false
		if i := bytes.Index(line, []byte(" +")); i > 0 && p.path != "" {
			rest := line[i+2:]
			j := 0
			for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				j++
			}
			if n, err := strconv.ParseInt(string(rest[:j]), 10, 32); err == nil {
				p.nextLine, p.inHunk = int32(n), true
			}
		}
	case bytes.HasPrefix(line, []byte("diff --git ")):
		if err := p.flush(); err != nil {
			return err
		}
		p.path, p.inHunk, p.header = "", false, true
	case p.header && bytes.HasPrefix(line, []byte("+++ ")):
		p.path, p.inHunk = newPath(string(line[4:])), false
		if p.exclude.Excluded(p.path, false) {
			p.path = "" // its hunks are passed over
		}
	default:
		p.inHunk = false
	}
	return nil
}

// newPath reads the file name of a "+++ " line: "b/dir/file", a quoted
// "\"b/t\\tab\"", or "/dev/null" for a deleted file (no added lines).
func newPath(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
	}
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(s, "b/")
}

// flush hands the text gathered for the current file change to the
// scanners.
func (p *parser) flush() error {
	if len(p.text) == 0 || p.cur == nil {
		p.text, p.lines = p.text[:0], p.lines[:0]
		return nil
	}
	c := &chunk{seq: p.seq, commit: p.cur, path: p.path, text: p.text, lines: p.lines}
	p.seq++
	p.text, p.lines = nil, nil
	select {
	case p.out <- c:
		return nil
	case <-p.ctx.Done():
		return p.ctx.Err()
	}
}
