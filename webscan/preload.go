package webscan

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"sort"
	"strings"
	"sync"
)

// PreloadEntry is one entry of the browsers' HSTS preload list that
// applies to a host: the listed name (the host itself, or a parent whose
// entry includes subdomains) and its flag.
type PreloadEntry struct {
	// Name is the listed domain.
	Name string
	// IncludeSubDomains is true when the entry covers every subdomain.
	IncludeSubDomains bool
}

// preloadData is Chromium's HSTS preload list reduced to the force-https
// entries, one per line: the name, then " s" when subdomains are included.
// Lines starting with '#' are comments (the source, version and licence).
// The text is gzip-compressed (94,600 names: 1.7 MB, 0.57 MB compressed)
// and read on the first look-up, so only a website scan pays for it.
// scripts/refresh-hsts-preload.sh regenerates it; hstspreload/README.md
// says where it comes from.
//
//go:embed hstspreload/hsts_preload.txt.gz
var preloadData []byte

var (
	preloadOnce sync.Once
	// preloadText is the list's text, decompressed, and preloadLines the
	// offsets of its entry lines, sorted by name: a look-up is a binary
	// search, and loading costs two allocations rather than a map entry
	// per name.
	preloadText  []byte
	preloadLines []int32
	preloadMeta  string // the "# source:" comment line
)

// maxPreloadText bounds the decompressed list (1.7 MB today).
const maxPreloadText = 64 << 20

func loadPreload() {
	preloadText, preloadLines = nil, nil
	zr, err := gzip.NewReader(bytes.NewReader(preloadData))
	if err != nil {
		// The list is built into the binary; a bad copy is a build defect
		// that TestPreloadListBundled catches. The scan then says
		// not_tested rather than "not preloaded".
		return
	}
	defer zr.Close()
	text, err := io.ReadAll(io.LimitReader(zr, maxPreloadText))
	if err != nil {
		// A list read part-way would call listed hosts unlisted: keep
		// none, so that preload_listed says not_tested.
		return
	}
	var lines []int32
	for off := 0; off < len(text); {
		end := bytes.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		line := text[off : off+end]
		switch {
		case len(line) == 0:
		case line[0] == '#':
			if v, ok := bytes.CutPrefix(line, []byte("# source:")); ok && preloadMeta == "" {
				preloadMeta = string(bytes.TrimSpace(v))
			}
		default:
			lines = append(lines, int32(off))
		}
		off += end + 1
	}
	preloadText = text
	name := func(i int) []byte { return preloadName(lines[i]) }
	if !sort.SliceIsSorted(lines, func(i, j int) bool { return bytes.Compare(name(i), name(j)) < 0 }) {
		sort.Slice(lines, func(i, j int) bool { return bytes.Compare(name(i), name(j)) < 0 })
	}
	preloadLines = lines
}

// preloadName is the name on the entry line at off.
func preloadName(off int32) []byte {
	line := preloadText[off:]
	if i := bytes.IndexAny(line, " \n"); i >= 0 {
		line = line[:i]
	}
	return line
}

// preloadFind returns whether name is listed and whether its entry
// includes subdomains.
func preloadFind(name string) (listed, sub bool) {
	i := sort.Search(len(preloadLines), func(i int) bool {
		return string(preloadName(preloadLines[i])) >= name
	})
	if i == len(preloadLines) || string(preloadName(preloadLines[i])) != name {
		return false, false
	}
	n := preloadLines[i] + int32(len(name))
	return true, int(n)+1 < len(preloadText) && preloadText[n] == ' ' && preloadText[n+1] == 's'
}

// PreloadListSize returns the number of force-https entries in the bundled
// preload list, and the source line it was built from.
func PreloadListSize() (int, string) {
	preloadOnce.Do(loadPreload)
	return len(preloadLines), preloadMeta
}

// LookupPreload returns the bundled HSTS preload list's entry for host, as
// the Observatory reads it: the host itself, or the nearest listed parent
// whose entry includes subdomains. It returns nil when the host is not
// preloaded.
func LookupPreload(host string) *PreloadEntry {
	preloadOnce.Do(loadPreload)
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" {
		return nil
	}
	if listed, sub := preloadFind(host); listed {
		return &PreloadEntry{Name: host, IncludeSubDomains: sub}
	}
	for rest := host; ; {
		_, parent, ok := strings.Cut(rest, ".")
		if !ok || parent == "" {
			return nil
		}
		if listed, sub := preloadFind(parent); listed && sub {
			return &PreloadEntry{Name: parent, IncludeSubDomains: true}
		}
		rest = parent
	}
}
