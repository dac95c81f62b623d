package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo builds a repository with the git command line: a token added,
// then removed, then added again elsewhere, and one staged.
func gitRepo(t *testing.T) (dir, first string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir = t.TempDir()
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Grace", "-c", "user.email=grace@example.org"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, s string) { os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644) }
	git("init", "-q", "-b", "main")
	write("app.env", "A=1\nTOKEN="+ghToken+"\n")
	git("add", "-A")
	git("commit", "-q", "-m", "add")
	first = git("rev-parse", "HEAD")
	write("app.env", "A=1\n")
	git("commit", "-q", "-am", "remove")
	write("b.env", "GH="+ghToken+"\n")
	git("add", "-A")
	git("commit", "-q", "-m", "again")
	return dir, first
}

func TestScanSecretsGit(t *testing.T) {
	dir, first := gitRepo(t)
	state := t.TempDir()
	out, errs, code := run(t, "", "scan", "secrets", "--state-dir", state, "--git", dir)
	if code != ExitFindings || !strings.Contains(out, "app.env:2:7") || !strings.Contains(out, first[:12]) || !strings.Contains(out, "Grace") ||
		!strings.Contains(errs, "scanned 3 commits") || !strings.Contains(errs, "1 findings") {
		t.Errorf("text: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out, ghToken[4:16]) {
		t.Error("the secret was printed")
	}

	out, _, code = run(t, "", "scan", "secrets", "--state-dir", state, "--json", "--git", dir)
	var rep struct {
		Findings []struct {
			Path, Commit, Author, Date, Fingerprint string
			Line, Count                             int
		} `json:"findings"`
		Summary struct{ Total int }   `json:"summary"`
		Stats   struct{ Commits int } `json:"stats"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != ExitFindings {
		t.Fatalf("json: %v %d\n%s", err, code, out)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Commit != first || rep.Findings[0].Count != 2 || rep.Findings[0].Line != 2 ||
		rep.Findings[0].Path != "app.env" || rep.Findings[0].Date == "" || rep.Summary.Total != 1 || rep.Stats.Commits != 3 {
		t.Errorf("json: %+v", rep)
	}

	out, _, _ = run(t, "", "scan", "secrets", "--state-dir", state, "--sarif", "--git", dir)
	var sarif struct {
		Runs []struct {
			Results []struct {
				PartialFingerprints map[string]string `json:"partialFingerprints"`
				Properties          struct {
					Commit string `json:"commit"`
					Count  int    `json:"count"`
				} `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &sarif); err != nil || len(sarif.Runs[0].Results) != 1 {
		t.Fatalf("sarif: %v\n%s", err, out)
	}
	r := sarif.Runs[0].Results[0]
	if r.Properties.Commit != first || r.Properties.Count != 2 || r.PartialFingerprints["keysweep/v1"] != rep.Findings[0].Fingerprint {
		t.Errorf("sarif result: %+v", r)
	}

	// --fail-on above the finding's severity: exit 0.
	if _, _, code = run(t, "", "scan", "secrets", "--state-dir", state, "--fail-on", "critical", "--git", dir); code != ExitOK {
		t.Errorf("--fail-on critical: exit %d", code)
	}
	// A baseline written from history silences it.
	base := filepath.Join(t.TempDir(), "b.json")
	run(t, "", "scan", "secrets", "--state-dir", state, "--write-baseline", base, "--git", dir)
	if _, _, code = run(t, "", "scan", "secrets", "--state-dir", state, "--baseline", base, "--git", dir); code != ExitOK {
		t.Errorf("with baseline: exit %d", code)
	}
	// The last commit only: the token again, first seen there.
	out, _, _ = run(t, "", "scan", "secrets", "--state-dir", state, "--max-commits", "1", "--git", dir)
	if !strings.Contains(out, "b.env:1:4") || strings.Contains(out, "app.env") {
		t.Errorf("--max-commits 1:\n%s", out)
	}
}

func TestScanSecretsStaged(t *testing.T) {
	dir, _ := gitRepo(t)
	state := t.TempDir()
	t.Chdir(dir)
	if _, errs, code := run(t, "", "scan", "secrets", "--state-dir", state, "--staged"); code != ExitOK {
		t.Errorf("nothing staged: exit %d %s", code, errs)
	}
	os.WriteFile("new.env", []byte("X=1\nKEY="+ghToken+"\n"), 0o644)
	if out, _ := exec.Command("git", "add", "new.env").CombinedOutput(); len(out) > 0 {
		t.Log(string(out))
	}
	out, errs, code := run(t, "", "scan", "secrets", "--state-dir", state, "--staged")
	if code != ExitFindings || !strings.Contains(out, "new.env:2:5") || !strings.Contains(out, "(staged)") || !strings.Contains(errs, "the staged changes") {
		t.Errorf("staged: exit %d\n%s%s", code, out, errs)
	}
}

func TestScanSecretsGitErrors(t *testing.T) {
	dir, _ := gitRepo(t)
	state := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--git", t.TempDir()}, "not_a_git_repository"},
		{[]string{"--git", "--range", "nope..main", dir}, "git_failed"},
		{[]string{"--git", "--range", "--output=x", dir}, "invalid_argument"},
		{[]string{"--since", "2024-01-01", dir}, "need --git"},
		{[]string{"--git", dir, dir}, "one repository"},
		{[]string{"--staged", "--max-commits", "2", dir}, "--staged"},
	} {
		_, errs, code := run(t, "", append([]string{"scan", "secrets", "--state-dir", state}, tc.args...)...)
		if code != ExitError || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}

// A history scan reads no files from the tree, so a state directory inside
// the repository is created and the key kept (a file scan would not).
func TestScanSecretsGitKeepsStateInRepo(t *testing.T) {
	dir, _ := gitRepo(t)
	state := filepath.Join(dir, "state")
	run(t, "", "scan", "secrets", "--state-dir", state, "--git", dir)
	if _, err := os.Stat(filepath.Join(state, "fingerprint.key")); err != nil {
		t.Errorf("no key kept: %v", err)
	}
}
