package redact

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/internal/repotest"
	"github.com/warden-mcp/warden/secretscan"
)

// corpusStrings returns test strings built from the shared example sets
// (../shared/data/*.jsonl, positives and negatives): each example as it
// is, each of its lines, and each line without quotes and backslashes (so
// that the joint scan's plain "name":"value" lines are exercised as much as
// its bare ones).
func corpusStrings(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join(repotest.Root(t), "..", "shared", "data")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		t.Skipf("shared test data not found in %s", dir)
	}
	sort.Strings(files)
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			var e struct{ Text string }
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			add(e.Text)
			for l := range strings.SplitSeq(e.Text, "\n") {
				add(l)
				add(strings.NewReplacer(`"`, "", `\`, "").Replace(l))
			}
		}
		fh.Close()
	}
	return out
}

// memberNames are the names the documents give their members: neutral
// ones, and ones KeySweep reads as credential names.
var memberNames = []string{"value", "detail", "evidence", "password", "token", "note", "api_key", "body", "x", "secret"}

// corpusDocs arranges strings into JSON documents of the shapes tools
// return: arrays of objects, objects keyed by the strings themselves,
// bare arrays, and nesting, in documents of about per strings each.
func corpusDocs(strs []string, per int) [][]byte {
	var docs [][]byte
	for start := 0; start < len(strs); start += per {
		chunk := strs[start:min(start+per, len(strs))]
		var objs []map[string]any
		keyed := map[string]any{}
		for i, s := range chunk {
			if i%8 == 0 {
				objs = append(objs, map[string]any{})
			}
			objs[len(objs)-1][fmt.Sprintf("%02d_%s", i%8, memberNames[(start+i)%len(memberNames)])] = s
			keyed[s] = i
		}
		for _, v := range []any{
			objs,
			keyed,
			chunk,
			map[string]any{"outer": map[string]any{"list": []any{chunk, objs}}},
		} {
			b, err := json.Marshal(v)
			if err != nil {
				panic(err)
			}
			docs = append(docs, b)
		}
	}
	return docs
}

// jointCuts runs the Result pass's scan over doc and returns the cuts of
// each string (in document order).
func jointCuts(t testing.TB, r *Redactor, doc []byte) (map[int32][]cut, int) {
	t.Helper()
	sc := &scratch{}
	var rep Report
	if _, _, err := r.redactJSON(sc, doc, &rep); err != nil {
		t.Fatal(err)
	}
	out := map[int32][]cut{}
	for _, c := range sc.cuts {
		out[c.tok] = append(out[c.tok], c)
	}
	return out, len(sc.tz.toks)
}

// uncovered returns how many bytes of [s, e) the cuts leave, and whether
// those all lie at the edges of the range.
func uncovered(cuts []cut, s, e int) (n int, edges bool) {
	cuts = slices.Clone(cuts)
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].start < cuts[j].start })
	pos, inner := s, false
	for _, c := range cuts {
		cs, ce := max(int(c.start), s), min(int(c.end), e)
		if cs >= ce || ce <= pos {
			continue
		}
		if cs > pos {
			if pos > s {
				inner = true // a hole between two cuts
			}
			n += cs - pos
		}
		pos = ce
	}
	if pos < e {
		n += e - pos
		if pos == s && n < e-s {
			inner = true
		}
	}
	return n, !inner
}

// removed counts the bytes of a string that cuts remove.
func removed(cuts []cut) int {
	cuts = slices.Clone(cuts)
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].start < cuts[j].start })
	n, pos := 0, 0
	for _, c := range cuts {
		cs := max(int(c.start), pos)
		if int(c.end) > cs {
			n += int(c.end) - cs
			pos = int(c.end)
		}
	}
	return n
}

// jointStats sums what compareJoint saw.
type jointStats struct {
	spans    int // spans found scanning each string alone
	narrowed int // of which the joint scan left a few edge bytes to a better-ranked finding
	wider    int // strings the joint scan removed more of (context)
}

// compareJoint checks that the joint scan of doc removes everything that
// scanning each of its strings alone removes. One difference is allowed
// and counted: a rule reading a neighbouring string (KeySweep's
// multi-line AWS key pair, say) may win over a weaker finding alone with a
// tighter span, leaving at most 8 bytes at the edges of the weaker span
// ("key:" of "secret key:<40 characters>").
func compareJoint(t *testing.T, r *Redactor, doc []byte) (st jointStats) {
	t.Helper()
	naive, err := naiveResult(r, doc)
	if err != nil {
		t.Fatal(err)
	}
	joint, n := jointCuts(t, r, doc)
	if n != len(naive) {
		t.Fatalf("the tokenizer saw %d strings, encoding/json %d", n, len(naive))
	}
	strs, _ := jsonStrings(doc)
	for k, ss := range naive {
		alone := 0
		for _, s := range ss {
			st.spans++
			alone += s.End - s.Start
			left, edges := uncovered(joint[int32(k)], s.Start, s.End)
			switch {
			case left == 0:
			case left <= 8 && edges && left < s.End-s.Start:
				st.narrowed++
			default:
				t.Errorf("string %d: the joint scan misses %s at [%d,%d) of %q (joint cuts %v)", k, s.Type, s.Start, s.End, strs[k], joint[int32(k)])
			}
		}
		if removed(joint[int32(k)]) > alone {
			st.wider++
		}
	}
	return st
}

// TestJointScanFindsWhatEachStringAloneFinds is the proof the batching
// shortcut owes: over every string of the shared example sets, arranged
// in documents of the shapes tools return, the joint scan removes at least
// what scanning each string alone removes.
func TestJointScanFindsWhatEachStringAloneFinds(t *testing.T) {
	strs := corpusStrings(t)
	for _, mode := range []Mode{Balanced, Strict} {
		r := newTest(t, mode)
		var sum jointStats
		docs := 0
		for _, per := range []int{64, 1 << 20} { // small documents, and one with everything
			for _, doc := range corpusDocs(strs, per) {
				st := compareJoint(t, r, doc)
				sum.spans += st.spans
				sum.narrowed += st.narrowed
				sum.wider += st.wider
				docs++
			}
		}
		if sum.spans < 1000 {
			t.Errorf("%s: only %d spans found alone: the corpus is not exercising the scan", mode, sum.spans)
		}
		if sum.narrowed*100 > sum.spans {
			t.Errorf("%s: %d of %d spans narrowed", mode, sum.narrowed, sum.spans)
		}
		t.Logf("%s: %d strings in %d documents: %d spans found alone, all removed jointly (%d narrowed by a better-ranked finding); %d strings lost more to context", mode, len(strs), docs, sum.spans, sum.narrowed, sum.wider)
	}
}

// The decode budget: a document of many strings, each hiding a credential
// under base64 or percent-encoding, loses none of them in the joint scan
// (KeySweep decodes at most 256 spans per scan).
func TestJointScanDecodeBudget(t *testing.T) {
	r := newTest(t, Balanced)
	var strs []string
	for i := range 700 {
		inner := fmt.Sprintf("export GITHUB_TOKEN=%s # %d\n", ghToken, i)
		switch i % 3 {
		case 0:
			strs = append(strs, base64.StdEncoding.EncodeToString([]byte(inner)))
		case 1:
			strs = append(strs, "q="+url.QueryEscape(inner)+"&x=%41%42")
		default:
			strs = append(strs, fmt.Sprintf("plain %d %s", i, ghToken))
		}
	}
	doc, _ := json.Marshal(map[string]any{"items": strs})
	if st := compareJoint(t, r, doc); st.spans != len(strs) {
		t.Errorf("%d spans alone for %d strings", st.spans, len(strs))
	}
}

// When KeySweep stops early (Truncated), the batch is split and scanned
// again; a single string it gives up on fails the pass.
func TestJointScanTruncation(t *testing.T) {
	r, err := New(&Options{Scanner: secretscan.New(&secretscan.Options{IgnoreAllowComments: true, MaxDetections: 3})})
	if err != nil {
		t.Fatal(err)
	}
	var strs []string
	for i := range 40 {
		strs = append(strs, fmt.Sprintf("%d %s %s", i, ghToken, awsKeyID))
	}
	doc, _ := json.Marshal(strs)
	if st := compareJoint(t, r, doc); st.spans != 80 {
		t.Errorf("%d spans, want 80", st.spans)
	}
	doc, _ = json.Marshal([]string{strings.Repeat(ghToken+" ", 4)})
	if _, _, err := r.redactJSON(&scratch{}, doc, &Report{}); err == nil {
		t.Error("a string the scanner gave up on passed")
	}
}

// potential must bound KeySweep's decoded spans from above: checked on the
// corpus against a count of what the decoders can start on.
func TestPotentialCountsRuns(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"short", 0},
		{strings.Repeat("a", 19), 0},
		{strings.Repeat("a", 20), 1},
		{strings.Repeat("a", 20) + " " + strings.Repeat("b", 40), 2},
		{"x%41%42%43", 1},
		{`"a\nb" "c"`, 4},
		{"a=3Db=\nc", 2},
		{strings.Repeat("ab", 15) + "\n" + strings.Repeat("cd", 15), 2},
	} {
		if got := potential(c.in); got != c.want {
			t.Errorf("potential(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
