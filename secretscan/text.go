package secretscan

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// Byte order marks of the text encodings the scanner decodes.
var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// IsUTF16 reports whether data starts with a UTF-16 byte order mark.
// Such a file is text (Windows tools write .reg, .ps1 and .config files
// this way), though its NUL bytes make it look binary.
func IsUTF16(data []byte) bool {
	return bytes.HasPrefix(data, bomUTF16LE) || bytes.HasPrefix(data, bomUTF16BE)
}

// decodeText returns data as UTF-8 text: a UTF-16 file (with its byte
// order mark) is decoded, a UTF-8 byte order mark dropped, anything else
// returned as it is.
func decodeText(data string) string {
	switch {
	case IsUTF16([]byte(data[:min(len(data), 2)])):
		var sb strings16
		sb.decode([]byte(data[2:]), data[0] == 0xFE)
		return sb.String()
	case len(data) >= 3 && data[:3] == string(bomUTF8):
		return data[3:]
	}
	return data
}

// strings16 decodes UTF-16 code units into UTF-8, carrying a high
// surrogate across calls (a stream is decoded block by block).
type strings16 struct {
	buf []byte
	hi  rune // pending high surrogate, or 0
}

func (d *strings16) decode(b []byte, bigEndian bool) {
	for i := 0; i+1 < len(b); i += 2 {
		var u rune
		if bigEndian {
			u = rune(b[i])<<8 | rune(b[i+1])
		} else {
			u = rune(b[i+1])<<8 | rune(b[i])
		}
		if d.hi != 0 {
			r := utf16.DecodeRune(d.hi, u)
			d.hi = 0
			if r != utf8.RuneError {
				d.buf = utf8.AppendRune(d.buf, r)
				continue
			}
			d.buf = utf8.AppendRune(d.buf, utf8.RuneError)
		}
		if utf16.IsSurrogate(u) && u < 0xDC00 {
			d.hi = u
			continue
		}
		if utf16.IsSurrogate(u) {
			u = utf8.RuneError
		}
		d.buf = utf8.AppendRune(d.buf, u)
	}
	if len(b)%2 == 1 {
		d.buf = utf8.AppendRune(d.buf, utf8.RuneError)
	}
}

func (d *strings16) String() string { return string(d.buf) }

// utf16Reader decodes a UTF-16 stream (its byte order mark already read)
// into UTF-8.
type utf16Reader struct {
	r         io.Reader
	bigEndian bool
	in        []byte
	dec       strings16
	out       []byte
	err       error
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 && u.err == nil {
		if u.in == nil {
			u.in = make([]byte, 32<<10)
		}
		n, err := io.ReadFull(u.r, u.in)
		u.dec.buf = u.dec.buf[:0]
		u.dec.decode(u.in[:n&^1], u.bigEndian)
		if n%2 == 1 {
			u.dec.buf = utf8.AppendRune(u.dec.buf, utf8.RuneError)
		}
		if err != nil {
			if u.dec.hi != 0 {
				u.dec.buf = utf8.AppendRune(u.dec.buf, utf8.RuneError)
			}
			u.err = io.EOF
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				u.err = err
			}
		}
		u.out = u.dec.buf
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	if n > 0 {
		return n, nil
	}
	return 0, u.err
}

// textReader returns r as UTF-8 text: a UTF-16 stream (with its byte
// order mark) is decoded as it is read, a UTF-8 byte order mark dropped.
func textReader(r io.Reader) io.Reader {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(3)
	switch {
	case bytes.HasPrefix(head, bomUTF16LE), bytes.HasPrefix(head, bomUTF16BE):
		_, _ = br.Discard(2)
		return &utf16Reader{r: br, bigEndian: head[0] == 0xFE}
	case bytes.HasPrefix(head, bomUTF8):
		_, _ = br.Discard(3)
	}
	return br
}
