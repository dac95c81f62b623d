package webscan

import (
	"bufio"
	"bytes"
	_ "embed"
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
// scripts/refresh-hsts-preload.sh regenerates it; hstspreload/README.md
// says where it comes from.
//
//go:embed hstspreload/hsts_preload.txt
var preloadData []byte

var (
	preloadOnce sync.Once
	preloadMap  map[string]bool // name -> includeSubDomains
	preloadMeta string          // the "# source:" comment line
)

func loadPreload() {
	preloadMap = map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(preloadData))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			if v, ok := strings.CutPrefix(line, "# source:"); ok && preloadMeta == "" {
				preloadMeta = strings.TrimSpace(v)
			}
			continue
		}
		name, flag, _ := strings.Cut(line, " ")
		preloadMap[strings.ToLower(name)] = flag == "s"
	}
}

// PreloadListSize returns the number of force-https entries in the bundled
// preload list, and the source line it was built from.
func PreloadListSize() (int, string) {
	preloadOnce.Do(loadPreload)
	return len(preloadMap), preloadMeta
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
	if sub, ok := preloadMap[host]; ok {
		return &PreloadEntry{Name: host, IncludeSubDomains: sub}
	}
	for rest := host; ; {
		_, parent, ok := strings.Cut(rest, ".")
		if !ok || parent == "" {
			return nil
		}
		if sub, listed := preloadMap[parent]; listed && sub {
			return &PreloadEntry{Name: parent, IncludeSubDomains: true}
		}
		rest = parent
	}
}
