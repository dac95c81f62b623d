package secretscan

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type acHit struct{ kw, start int }

// naiveFind lists every (keyword, start) occurrence, ASCII case-insensitively.
func naiveFind(kws []string, text string) []acHit {
	b := []byte(text)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	lt := string(b)
	var out []acHit
	for i := range lt {
		for k, w := range kws {
			if w != "" && strings.HasPrefix(lt[i:], strings.ToLower(w)) {
				out = append(out, acHit{k, i})
			}
		}
	}
	return out
}

func acFind(a *automaton, text string) []acHit {
	var out []acHit
	a.scan(text, func(kw, start int) bool { out = append(out, acHit{kw, start}); return true })
	return out
}

func sortHits(h []acHit) {
	sort.Slice(h, func(i, j int) bool {
		if h[i].start != h[j].start {
			return h[i].start < h[j].start
		}
		return h[i].kw < h[j].kw
	})
}

func TestAutomaton(t *testing.T) {
	kws := []string{"key", "api_key", "pass", "password", "ghp_", "-----BEGIN", "://", "eyJ", "sk_live_", "a", ""}
	for _, text := range []string{
		"",
		"API_KEY=ghp_x password:// eyJhbGc",
		"PaSsWoRd PASS pass",
		"-----begin -----BEGIN RSA",
		"aaaa",
		"sk_live_sk_live_key",
		"\x00\xff é ключ key",
	} {
		got, want := acFind(newAutomaton(kws), text), naiveFind(kws, text)
		sortHits(got)
		sortHits(want)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(acHit{})); diff != "" {
			t.Errorf("%q (-want +got):\n%s", text, diff)
		}
	}
}

func TestAutomatonStops(t *testing.T) {
	a := newAutomaton([]string{"ab"})
	n := 0
	a.scan("ab ab ab", func(int, int) bool { n++; return false })
	if n != 1 {
		t.Errorf("callback called %d times after asking to stop", n)
	}
}

func FuzzAutomaton(f *testing.F) {
	addSeeds(f)
	kws := []string{"key", "token", "pass", "password", "ghp_", "eyj", "://", "xoxb-", "aa"}
	a := newAutomaton(kws)
	f.Fuzz(func(t *testing.T, text string) {
		got, want := acFind(a, text), naiveFind(kws, text)
		sortHits(got)
		sortHits(want)
		if len(got) != len(want) {
			t.Fatalf("got %d hits, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("hit %d: %v want %v", i, got[i], want[i])
			}
		}
	})
}
