package secretscan

import (
	"math/rand/v2"
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

// oneLane lists the hits of the plain one-lane walk, in its order.
func oneLane(a *automaton, text string) []acHit {
	var out []acHit
	a.scanFrom(text, 0, 0, func(kw, start int) bool { out = append(out, acHit{kw, start}); return true })
	return out
}

// TestAutomatonLanes checks that the four-lane walk of long texts reports
// exactly the hits of the one-lane walk, in the same order, for lengths
// around the lane and block cuts and keywords planted across the cuts.
func TestAutomatonLanes(t *testing.T) {
	_, a, _, err := builtin()
	if err != nil {
		t.Fatal(err)
	}
	kws := []string{"password", "-----BEGIN OPENSSH PRIVATE KEY-----", "api_key", "ghp_", "://", "AKIA", "token"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{laneMin - 1, laneMin, laneMin + 1, 10007, laneBlock - 1, laneBlock, laneBlock + laneMin - 1,
		laneBlock + laneMin, 2*laneBlock + 3, 700001} {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcdefgh ijkl=:_-/\n"[rng.IntN(19)]
		}
		// Plant keywords at random places and straddling every cut a
		// block or lane could make.
		plant := func(at int) {
			k := kws[rng.IntN(len(kws))]
			if at >= 0 && at+len(k) <= n {
				copy(b[at:], k)
			}
		}
		for i := 0; i < n/200; i++ {
			plant(rng.IntN(n))
		}
		for lo := 0; lo < n; lo += laneBlock {
			hi := min(lo+laneBlock, n)
			for k := 0; k <= 4; k++ {
				cut := lo + k*(hi-lo)/4
				for d := -40; d <= 2; d += 7 {
					plant(cut + d)
				}
			}
		}
		text := string(b)
		got, want := acFind(a, text), oneLane(a, text)
		if len(want) == 0 {
			t.Fatalf("n=%d: no hits planted", n)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(acHit{})); diff != "" {
			t.Errorf("n=%d: lanes differ from one lane (-want +got):\n%s", n, diff)
		}
		// Stopping after the m-th hit yields exactly the first m.
		m := len(want) / 2
		var part []acHit
		a.scan(text, func(kw, start int) bool { part = append(part, acHit{kw, start}); return len(part) < m })
		if diff := cmp.Diff(want[:m], part, cmp.AllowUnexported(acHit{})); m > 0 && diff != "" {
			t.Errorf("n=%d: stopped early (-want +got):\n%s", n, diff)
		}
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
		// The same text repeated past laneMin takes the four-lane walk,
		// which must agree with the one-lane walk hit for hit.
		if text != "" && len(text) < laneMin {
			long := strings.Repeat(text, laneMin/len(text)+2)
			if diff := cmp.Diff(oneLane(a, long), acFind(a, long), cmp.AllowUnexported(acHit{})); diff != "" {
				t.Fatalf("lanes differ (-one +four):\n%s", diff)
			}
		}
	})
}

// BenchmarkKeywordScan measures the keyword automaton alone over the
// corpus chunk: the one pass that every byte of a scan goes through.
func BenchmarkKeywordScan(b *testing.B) {
	text := corpusChunk()
	_, ac, _, err := builtin()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		ac.scan(text, func(int, int) bool { n++; return true })
	}
	if n == 0 {
		b.Fatal("no keyword hits")
	}
}
