package secretscan

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/warden-mcp/warden/internal/repotest"
)

var update = flag.Bool("update", false, "rewrite docs/keysweep-detection.md from the detection floors test")

// sharedData returns the path of the shared test data directory, which CI
// places beside the repository.
func sharedData(t testing.TB) string {
	p := filepath.Join(repotest.Root(t), "..", "shared", "data")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared test data not found at %s", p)
	}
	return p
}

type example struct {
	Source   string `json:"source"`
	RuleID   string `json:"rule_id"`
	RuleName string `json:"rule_name"`
	Kind     string `json:"kind"`
	Text     string `json:"text"`
}

func loadExamples(t testing.TB) []example {
	dir := sharedData(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	sort.Strings(files)
	var out []example
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			var e example
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, e)
		}
		fh.Close()
	}
	if len(out) == 0 {
		t.Skip("no examples")
	}
	return out
}

type tally struct{ found, total int }

func (c tally) pct() float64 {
	if c.total == 0 {
		return 0
	}
	return 100 * float64(c.found) / float64(c.total)
}

// The floors are the minimum rates, raised to what the engine reaches
// (rounded down) so that a regression fails the build.
//
// floorsDefault apply to the default options, which the keysweep_scan_text
// tool uses; the issue asks for 90 % of the Nosey Parker positives and
// 75 % of the Kingfisher ones. floorsSkip apply with
// Options.SkipIdentifiers, which leaves out the identifier rules (ARNs,
// bucket names, account IDs, usernames): about 28 Nosey Parker positives
// are such identifiers.
var (
	floorsDefault = map[string]float64{"noseyparker": 94, "kingfisher": 81}
	floorsSkip    = map[string]float64{"noseyparker": 87, "kingfisher": 81}
)

// negFloor is the share of negatives that must stay silent with the
// default options, and negFloorSkip with Options.SkipIdentifiers. The
// issue's target is 95 %, which is not met: the negatives that still fire
// hold a real credential of another format than the one the example's
// rule looks for (an Auth0 or Azure client secret, a GitHub OAuth client
// secret, a New Relic license key, a legacy npm token, a Twitch stream
// key), or a hard-coded password. docs/keysweep.md reviews each.
const (
	negFloor     = 93.0
	negFloorSkip = 94.0
)

// TestDetectionFloors checks recall on the positive examples and silence
// on the negative examples of the shared data sets, with the default
// options and with Options.SkipIdentifiers.
//
// A Nosey Parker or Kingfisher negative example says that one rule must
// not match a text; it may still hold a credential that another rule
// finds. Two kinds of negatives are counted apart, because the data set
// itself labels what they hold as a secret to be found:
//   - the same text is a positive example of a sibling rule;
//   - a value the scanner reports in it is also reported in a positive
//     example of the same data set (the same credential, such as
//     "postgresql://user:secret@..." over IPv6, or "super$ecret" unquoted).
//
// The rate over all negatives, these included, is reported beside.
func TestDetectionFloors(t *testing.T) {
	exs := loadExamples(t)
	def := New(&Options{FingerprintKey: []byte("floors")})
	skip := New(&Options{FingerprintKey: []byte("floors"), SkipIdentifiers: true})
	type counts struct{ pos, neg map[string]*tally }
	cfgs := []struct {
		name   string
		s      *Scanner
		floors map[string]float64
		neg    float64
		c      counts
		apart  tally // negatives counted apart: total, and silent among them
	}{
		{"default options", def, floorsDefault, negFloor, counts{map[string]*tally{}, map[string]*tally{}}, tally{}},
		{"Options.SkipIdentifiers", skip, floorsSkip, negFloorSkip, counts{map[string]*tally{}, map[string]*tally{}}, tally{}},
	}
	fam := map[string]int{}
	var missed, noisy, apart []string
	positiveText := map[string]bool{}
	positiveValue := map[string]string{} // source + fingerprint -> example rule
	for _, e := range exs {
		if e.Kind != "positive" {
			continue
		}
		positiveText[e.Source+"\x00"+e.Text] = true
		res, err := def.Scan(context.Background(), e.Text)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range res.Detections {
			positiveValue[e.Source+"\x00"+d.Fingerprint] = e.RuleID
		}
	}
	for _, e := range exs {
		for ci := range cfgs {
			cfg := &cfgs[ci]
			res, err := cfg.s.Scan(context.Background(), e.Text)
			if err != nil {
				t.Fatal(err)
			}
			hit := len(res.Detections) > 0
			if e.Kind == "negative" {
				why := ""
				if positiveText[e.Source+"\x00"+e.Text] {
					why = "same text is a positive"
				}
				for _, d := range res.Detections {
					if r, ok := positiveValue[e.Source+"\x00"+d.Fingerprint]; ok && why == "" {
						why = "value is reported in a positive of " + r
					}
				}
				if why != "" {
					cfg.apart.total++
					if !hit {
						cfg.apart.found++
					}
					if ci == 0 {
						apart = append(apart, fmt.Sprintf("%s (%s)", e.RuleID, why))
					}
					continue
				}
			}
			m := cfg.c.pos
			if e.Kind == "negative" {
				m = cfg.c.neg
			}
			if m[e.Source] == nil {
				m[e.Source] = &tally{}
			}
			m[e.Source].total++
			switch {
			case e.Kind == "positive" && hit:
				m[e.Source].found++
				if ci == 0 {
					fam[res.Detections[0].Family]++
				}
			case e.Kind == "positive":
				if ci == 0 {
					missed = append(missed, e.RuleID+" "+trunc(e.Text))
				}
			case !hit:
				m[e.Source].found++
			default:
				noisy = append(noisy, fmt.Sprintf("%s -> %s (%s)", e.RuleID, res.Detections[0].RuleID, cfg.name))
			}
		}
	}
	var b strings.Builder
	b.WriteString("# KeySweep detection on the shared example sets\n\n")
	b.WriteString("Generated by `go test ./secretscan -run TestDetectionFloors -update`; do not edit by hand.\n\n")
	b.WriteString("A positive counts as found when the scan of its text yields at least one detection; a negative\n")
	b.WriteString("counts as silent when it yields none, whatever the type of the detection. The default options\n")
	b.WriteString("are those of the `keysweep_scan_text` tool and report identifiers (ARNs, bucket names, account\n")
	b.WriteString("IDs, usernames, age recipients) as severity low; `Options.SkipIdentifiers` leaves them out.\n")
	b.WriteString("Negatives whose text, or a value reported in it, the same data set labels positive elsewhere\n")
	b.WriteString("are counted apart (listed below). docs/keysweep.md discusses the remaining misses and noisy\n")
	b.WriteString("negatives.\n\n")
	srcs := slices.Sorted(maps.Keys(cfgs[0].c.pos))
	for _, cfg := range cfgs {
		fmt.Fprintf(&b, "## %s\n\n", cfg.name)
		b.WriteString("| source | positives found | rate | floor | negatives silent | rate |\n|---|---|---|---|---|---|\n")
		totalNeg := tally{}
		for _, src := range srcs {
			p, n := cfg.c.pos[src], cfg.c.neg[src]
			if n == nil {
				n = &tally{}
			}
			totalNeg.found += n.found
			totalNeg.total += n.total
			fmt.Fprintf(&b, "| %s | %d / %d | %.1f %% | %.0f %% | %d / %d | %.1f %% |\n", src, p.found, p.total, p.pct(), cfg.floors[src], n.found, n.total, n.pct())
			t.Logf("%s: %s: positives %d/%d (%.1f%%), negatives silent %d/%d (%.1f%%)", cfg.name, src, p.found, p.total, p.pct(), n.found, n.total, n.pct())
			if f, ok := cfg.floors[src]; ok && p.pct() < f {
				t.Errorf("%s: %s: %.1f%% of positives found, floor %.0f%%", cfg.name, src, p.pct(), f)
			}
		}
		all := tally{found: totalNeg.found + cfg.apart.found, total: totalNeg.total + cfg.apart.total}
		fmt.Fprintf(&b, "\nNegatives: %d / %d silent (%.1f %%; target 95 %%, CI floor %.0f %%). Counted apart: %d, silent among\n"+
			"them %d; over all %d negatives, %d are silent (%.1f %%).\n\n",
			totalNeg.found, totalNeg.total, totalNeg.pct(), cfg.neg, cfg.apart.total, cfg.apart.found, all.total, all.found, all.pct())
		t.Logf("%s: negatives silent: %d/%d (%.1f%%); over all %d: %d (%.1f%%)", cfg.name, totalNeg.found, totalNeg.total, totalNeg.pct(), all.total, all.found, all.pct())
		if totalNeg.pct() < cfg.neg {
			t.Errorf("%s: only %.1f%% of negatives silent, floor %.0f%%", cfg.name, totalNeg.pct(), cfg.neg)
		}
	}
	b.WriteString("## Found positives by rule family of the first detection (default options)\n\n| family | positives |\n|---|---|\n")
	for _, f := range slices.Sorted(maps.Keys(fam)) {
		fmt.Fprintf(&b, "| %s | %d |\n", f, fam[f])
		t.Logf("family %-14s %d", f, fam[f])
	}
	b.WriteString("\n## Negatives counted apart (default options)\n\n")
	for _, m := range apart {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	b.WriteString("\n## Negatives that still produce a finding\n\nAs example rule -> our first detection (texts are in the data sets).\n\n")
	for _, m := range noisy {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	b.WriteString("\n## Positives missed with the default options\n\nAs example rule and the start of the text.\n\n")
	for _, m := range missed {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	if testing.Verbose() {
		for _, m := range missed {
			t.Logf("missed: %s", m)
		}
		for _, m := range noisy {
			t.Logf("noisy: %s", m)
		}
	}
	if *update {
		p := filepath.Join(repotest.Root(t), "docs", "keysweep-detection.md")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// trunc cuts an example to 110 bytes for the page, at a character's start
// so that the page stays UTF-8.
func trunc(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) > 110 {
		n := 110
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n]
	}
	return s
}

// The generated page stays UTF-8 however an example's characters fall.
func TestTruncKeepsUTF8(t *testing.T) {
	for _, s := range []string{strings.Repeat("─", 60), "a" + strings.Repeat("─", 60), strings.Repeat("ab", 80)} {
		got := trunc(s)
		if !utf8.ValidString(got) || len(got) > 110 || len(got) < 107 {
			t.Errorf("trunc cut %d bytes of %q into %d bytes, valid %v", len(s), s[:6], len(got), utf8.ValidString(got))
		}
	}
	doc, err := os.ReadFile(filepath.Join(repotest.Root(t), "docs", "keysweep-detection.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(doc) {
		t.Error("docs/keysweep-detection.md is not UTF-8")
	}
}
