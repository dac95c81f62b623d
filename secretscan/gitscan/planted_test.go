package gitscan

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/secretscan"
	"github.com/warden-mcp/warden/secretscan/gitscan/internal/histgen"
)

func plantedRepo(tb testing.TB, o histgen.Options) (string, []histgen.Planted, []string) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git is not installed")
	}
	tb.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	tb.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := tb.TempDir()
	planted, err := histgen.Generate(dir, o)
	if err != nil {
		tb.Fatal(err)
	}
	out, err := exec.Command("git", "-C", dir, "rev-list", "--reverse", "main").Output()
	if err != nil {
		tb.Fatal(err)
	}
	return dir, planted, strings.Fields(string(out))
}

// Every secret planted in a generated history is found once, at the
// commit that added it, with the right count, whether a later commit
// removed it or added it again.
func TestPlantedHistory(t *testing.T) {
	dir, planted, commits := plantedRepo(t, histgen.Options{Commits: 400, Secrets: 60, Seed: 3})
	s := secretscan.New(&secretscan.Options{FingerprintKey: []byte("k")})
	res, err := Scan(context.Background(), s, &Options{Repo: dir})
	if err != nil {
		t.Fatal(err)
	}
	byFP := map[string]Finding{}
	for _, f := range res.Findings {
		byFP[f.Fingerprint] = f
	}
	for i, p := range planted {
		f, ok := byFP[s.Fingerprint(p.Value)]
		if !ok {
			t.Errorf("planted %d (%s, commit %d) not found", i, p.Kind, p.Commit)
			continue
		}
		want := 1
		if p.Twice {
			want = 2
		}
		if f.Commit != commits[p.Commit-1] || f.Count != want {
			t.Errorf("planted %d (%s): commit %s count %d, want %s and %d", i, p.Kind, f.Commit, f.Count, commits[p.Commit-1], want)
		}
	}
	if len(res.Findings) != len(planted) {
		t.Errorf("%d findings for %d planted secrets", len(res.Findings), len(planted))
	}
	if res.Commits != 400 {
		t.Errorf("%d commits read", res.Commits)
	}
}

// BenchmarkScanHistory scans a generated history of 2,000 commits.
func BenchmarkScanHistory(b *testing.B) {
	dir, planted, _ := plantedRepo(b, histgen.Options{Commits: 2000, Secrets: 100, Seed: 1})
	s := secretscan.New(nil)
	b.ResetTimer()
	for b.Loop() {
		res, err := Scan(context.Background(), s, &Options{Repo: dir})
		if err != nil || len(res.Findings) != len(planted) {
			b.Fatalf("%v: %d findings, %d planted", err, len(res.Findings), len(planted))
		}
	}
}
