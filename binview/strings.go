package binview

import (
	"sort"
	"strings"
	"unicode/utf16"
)

// String is a run of printable characters found in the file's loaded,
// non-executable data (everything, for a raw load).
type String struct {
	Addr   uint64 `json:"addr"`
	Offset int64  `json:"offset"`
	// Length is the length in bytes (twice the characters for UTF-16).
	Length int `json:"length"`
	// Encoding is "ascii" or "utf16le".
	Encoding string `json:"encoding"`
	Section  string `json:"section,omitempty"`
}

// Chars is the length in characters.
func (s String) Chars() int {
	if s.Encoding == "utf16le" {
		return s.Length / 2
	}
	return s.Length
}

var printTab = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	t['\t'], t['\n'], t['\r'] = true, true, true
	return t
}()

// Strings returns the strings of the file sorted by address, and
// whether the list was cut at Options.MaxStrings. The scan runs once,
// on first use.
func (v *View) Strings() ([]String, bool) {
	v.strOnce.Do(v.scanStrings)
	return v.strs, v.strsTrunc
}

type strRange struct {
	addr uint64
	off  int64
	n    int64
	sec  string
}

func (v *View) stringRanges() []strRange {
	var rs []strRange
	raw := v.a.Format == FormatRaw
	for _, s := range v.a.Sections {
		if !s.Mapped || s.FileSize <= 0 || s.Perm&PermX != 0 && !raw {
			continue
		}
		rs = append(rs, strRange{s.Addr, s.Offset, s.FileSize, s.Name})
	}
	if len(rs) == 0 {
		for _, s := range v.a.Segments {
			if s.FileSize > 0 && (s.Perm&PermX == 0 || raw) {
				rs = append(rs, strRange{s.Addr, s.Offset, s.FileSize, s.Name})
			}
		}
	}
	// Scan each byte of the file once: drop ranges whose file bytes an
	// earlier range covered (crafted files overlap them at will).
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].off < rs[j].off })
	out := rs[:0]
	var end int64
	for _, r := range rs {
		if r.off < end {
			cut := end - r.off
			if cut >= r.n {
				continue
			}
			r.off, r.addr, r.n = r.off+cut, r.addr+uint64(cut), r.n-cut
		}
		out = append(out, r)
		end = r.off + r.n
	}
	return out
}

func (v *View) scanStrings() {
	min := v.o.MinStringLen
	max := v.o.MaxStrings
	var out []String
	full := func() bool {
		if len(out) >= max {
			v.strsTrunc = true
			return true
		}
		return false
	}
	for _, r := range v.stringRanges() {
		b := v.data[r.off : r.off+r.n]
		// ASCII.
		for i := 0; i < len(b); {
			for i < len(b) && !printTab[b[i]] {
				i++
			}
			start := i
			for i < len(b) && printTab[b[i]] {
				i++
			}
			if i-start >= min {
				if full() {
					break
				}
				out = append(out, String{Addr: r.addr + uint64(start), Offset: r.off + int64(start), Length: i - start, Encoding: "ascii", Section: r.sec})
			}
		}
		// UTF-16LE of ASCII characters.
		for i := 0; i+1 < len(b); {
			if b[i+1] != 0 || !printTab[b[i]] {
				i++
				continue
			}
			j := i
			for j+1 < len(b) && b[j+1] == 0 && printTab[b[j]] {
				j += 2
			}
			if (j-i)/2 >= min {
				if full() {
					break
				}
				out = append(out, String{Addr: r.addr + uint64(i), Offset: r.off + int64(i), Length: j - i, Encoding: "utf16le", Section: r.sec})
			}
			i = j + 1
		}
		if v.strsTrunc {
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	if out == nil {
		out = []String{}
	}
	v.strs = out
	v.strDone.Store(true)
}

// StringText decodes s, cut to at most maxBytes bytes of the file (0:
// no cut), and reports whether it was cut.
func (v *View) StringText(s String, maxBytes int) (string, bool) {
	n := s.Length
	cut := false
	if maxBytes > 0 && n > maxBytes {
		n, cut = maxBytes, true
	}
	if s.Offset < 0 || s.Offset+int64(n) > int64(len(v.data)) {
		return "", false
	}
	b := v.data[s.Offset : s.Offset+int64(n)]
	if s.Encoding != "utf16le" {
		return string(b), cut
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), cut
}

// Notable string kinds.
const (
	NotableURL      = "url"
	NotableIP       = "ip"
	NotableEmail    = "email"
	NotableRegistry = "registry"
	NotablePath     = "path"
	NotableCommand  = "command"
	NotableCrypto   = "crypto"
)

// Notable is a string worth a reader's first look.
type Notable struct {
	String
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// NotableStrings returns up to max strings that look like URLs, IP
// addresses, e-mail addresses, registry keys, system paths, shell
// commands or key material markers, each cut to 200 bytes.
func (v *View) NotableStrings(max int) []Notable {
	strs, _ := v.Strings()
	var out []Notable
	seen := map[string]bool{}
	for _, s := range strs {
		if len(out) >= max {
			break
		}
		if s.Length > 4096 {
			continue
		}
		text, _ := v.StringText(s, 200)
		kind := classify(text)
		if kind == "" || seen[text] {
			continue
		}
		seen[text] = true
		out = append(out, Notable{String: s, Kind: kind, Text: text})
	}
	return out
}

func classify(t string) string {
	l := strings.ToLower(t)
	switch {
	case strings.Contains(l, "http://") || strings.Contains(l, "https://") || strings.Contains(l, "ftp://"):
		return NotableURL
	case strings.Contains(l, "-----begin ") || strings.Contains(l, "ssh-rsa "):
		return NotableCrypto
	case strings.HasPrefix(l, "hkey_") || strings.Contains(l, "\\currentversion\\") || strings.HasPrefix(l, "software\\"):
		return NotableRegistry
	case strings.Contains(l, "cmd.exe") || strings.Contains(l, "powershell") || strings.HasPrefix(l, "/bin/sh") || strings.Contains(l, "/bin/bash"):
		return NotableCommand
	case looksIPv4(t):
		return NotableIP
	case looksEmail(t):
		return NotableEmail
	case strings.HasPrefix(l, "/etc/") || strings.HasPrefix(l, "/tmp/") || strings.HasPrefix(l, "/proc/") || strings.HasPrefix(l, "/dev/") ||
		strings.HasPrefix(l, "c:\\") || strings.Contains(l, "%appdata%") || strings.Contains(l, "\\system32\\"):
		return NotablePath
	}
	return ""
}

// looksIPv4 reports a dotted quad somewhere in t.
func looksIPv4(t string) bool {
	for i := 0; i < len(t); i++ {
		if i > 0 && (t[i-1] >= '0' && t[i-1] <= '9' || t[i-1] == '.') {
			continue
		}
		j, parts := i, 0
		for parts < 4 {
			k := j
			for k < len(t) && k-j < 3 && t[k] >= '0' && t[k] <= '9' {
				k++
			}
			if k == j {
				break
			}
			n := 0
			for _, c := range t[j:k] {
				n = n*10 + int(c-'0')
			}
			if n > 255 {
				break
			}
			parts++
			j = k
			if parts < 4 {
				if j >= len(t) || t[j] != '.' {
					break
				}
				j++
			}
		}
		if parts == 4 && (j >= len(t) || !(t[j] >= '0' && t[j] <= '9' || t[j] == '.')) {
			return true
		}
	}
	return false
}

func looksEmail(t string) bool {
	at := strings.IndexByte(t, '@')
	if at <= 0 || at == len(t)-1 || strings.ContainsAny(t, " \t<>%") {
		return false
	}
	dom := t[at+1:]
	dot := strings.LastIndexByte(dom, '.')
	return dot > 0 && len(dom)-dot-1 >= 2
}

// stringsReady reports whether the strings were extracted already, so
// that a cheap lookup need not trigger the scan.
func (v *View) stringsReady() bool { return v.strDone.Load() }

// StringAt returns the extracted string that holds addr.
func (v *View) StringAt(addr uint64) (String, bool) {
	strs, _ := v.Strings()
	i := sort.Search(len(strs), func(i int) bool { return strs[i].Addr > addr })
	for j := i - 1; j >= 0 && j >= i-2; j-- {
		if s := strs[j]; addr-s.Addr < uint64(s.Length) {
			return s, true
		}
	}
	return String{}, false
}
