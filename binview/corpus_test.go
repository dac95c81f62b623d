package binview

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/binview/internal/bintest"
)

// envDiscoveryCorpus moves the corpus scripts/discovery-corpus.sh builds.
const envDiscoveryCorpus = "WARDEN_DISCOVERY_CORPUS"

// corpusBuild is one build of a real project in the discovery corpus:
// the unstripped file (the truth), the stripped one (the C runtime's
// start-up objects still carry a few FDEs) and the one without any
// unwind tables.
type corpusBuild struct {
	project, name     string
	full, strip, noeh string
}

// discoveryCorpus reads the corpus manifest, or skips the test saying
// how to build it.
func discoveryCorpus(t *testing.T) []corpusBuild {
	t.Helper()
	dir := os.Getenv(envDiscoveryCorpus)
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skip("no discovery corpus: no cache directory")
		}
		dir = filepath.Join(cache, "warden-discovery-corpus")
	}
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		t.Skip("no discovery corpus: build it with scripts/discovery-corpus.sh (gcc, binutils, optionally clang, and Debian's source packages of lua5.4 and zlib)")
	}
	defer f.Close()
	var out []corpusBuild
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) != 5 {
			t.Fatalf("manifest line %q: want 5 fields", sc.Text())
		}
		out = append(out, corpusBuild{p[0], p[1], p[2], p[3], p[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Skip("the discovery corpus is empty")
	}
	return out
}

// corpusFloors are the F1 floors the corpus holds, per variant: every
// build of every project must reach them. The target is 0.95;
// the held-out zlib at -Os (gcc and clang) is at 0.927 (docs/bininspect.md).
var corpusFloors = map[string]float64{"strip": 0.92, "noeh": 0.92}

// TestDiscoveryCorpus measures function discovery on real C projects
// built without unwind tables (scripts/discovery-corpus.sh): precision,
// recall and F1 of the starts found in each stripped build against the
// unstripped twin's symbols, with a floor per variant. Lua is the
// project discovery was tuned on; zlib is held out.
func TestDiscoveryCorpus(t *testing.T) {
	builds := discoveryCorpus(t)
	type row struct {
		name string
		s    bintest.Score
	}
	var rows []row
	worst := map[string]float64{}
	for _, b := range builds {
		for _, variant := range []string{"strip", "noeh"} {
			path := b.strip
			if variant == "noeh" {
				path = b.noeh
			}
			name := b.project + "/" + b.name + "." + variant
			t.Run(name, func(t *testing.T) {
				truth := bintest.Truth(t, b.full)
				v, st := codeFunctions(t, path)
				fns := v.Functions(st, nil)
				s := bintest.Compare(starts(fns, nil), truth, nil)
				if main, ok := openFile(t, b.full, nil).SymbolByName("main"); ok {
					i := sort.Search(len(fns), func(i int) bool { return fns[i].Addr >= main.Addr })
					if i == len(fns) || fns[i].Addr != main.Addr || fns[i].Name != "main" || !slices.Contains(fns[i].Sources, "start_call") {
						t.Errorf("main at %#x is not named from the start-up call", main.Addr)
					}
				}
				rows = append(rows, row{name, s})
				key := b.project + "." + variant
				if w, ok := worst[key]; !ok || s.F1 < w {
					worst[key] = s.F1
				}
				if s.F1 < corpusFloors[variant] {
					t.Errorf("%s: F1 below the floor %.3f", s, corpusFloors[variant])
				}
			})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "\n%-36s %s", r.name, r.s)
	}
	t.Logf("discovery corpus:%s\nworst F1 per project and variant: %v", b.String(), worst)
}
