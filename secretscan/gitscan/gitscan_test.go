package gitscan

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/secretscan"
)

const (
	tokenA = "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"
	tokenB = "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"
	awsID  = "AKIARASZ7FPJWAYR6KNT"
	awsKey = "KY8bOSYPSy6MHG46vxxMBwJf1W7aaJSAcmpzh3D5"
)

// testRepo is a real repository built with the git command line, with
// fixed identities and dates and no user or system configuration.
type testRepo struct {
	t   *testing.T
	dir string
	n   int
}

func newRepo(t *testing.T) *testRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	r := &testRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir, "-c", "user.name=Ada Lovelace", "-c", "user.email=ada@example.org"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2024-01-0"+string(rune('1'+r.n%9))+"T10:00:00Z", "GIT_COMMITTER_DATE=2024-01-0"+string(rune('1'+r.n%9))+"T10:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *testRepo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commit stages everything and commits; it returns the commit's hash.
func (r *testRepo) commit(msg string) string {
	r.t.Helper()
	r.n++
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func scanRepo(t *testing.T, o Options) Result {
	t.Helper()
	res, err := Scan(context.Background(), secretscan.New(&secretscan.Options{FingerprintKey: []byte("k")}), &o)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return res
}

func byType(res Result) map[string][]Finding {
	m := map[string][]Finding{}
	for _, f := range res.Findings {
		m[f.Type] = append(m[f.Type], f)
	}
	return m
}

func TestHistory(t *testing.T) {
	r := newRepo(t)
	r.write("README", "hello\n")
	c1 := r.commit("first")
	r.write("config/app.env", "A=1\nB=2\nTOKEN="+tokenA+"\n")
	r.write("aws/credentials", "[default]\naws_access_key_id = "+awsID+"\naws_secret_access_key = "+awsKey+"\n")
	c2 := r.commit("add config")
	r.write("config/app.env", "A=1\nB=2\nTOKEN=${TOKEN}\n")
	c3 := r.commit("remove the token") // the token is gone from the tree
	r.write("other.env", "x\ny\nz\nw\nGH="+tokenA+"\n")
	c4 := r.commit("the same token again")
	r.git("checkout", "-q", "-b", "side", c1)
	r.write("side.txt", "SIDE_TOKEN="+tokenB+"\n")
	c5 := r.commit("on a side branch")
	r.git("checkout", "-q", "main")

	res := scanRepo(t, Options{Repo: r.dir})
	if res.Commits != 5 {
		t.Errorf("read %d commits, want 5", res.Commits)
	}
	got := byType(res)
	gh := got["github_personal_access_token"]
	if len(gh) != 2 {
		t.Fatalf("github findings: %+v", res.Findings)
	}
	a, b := gh[0], gh[1]
	if a.Commit != c2 || a.Path != "config/app.env" || a.Line != 3 || a.Column != 7 || a.Count != 2 ||
		a.Author != "Ada Lovelace" || a.Email != "ada@example.org" || !strings.HasPrefix(a.Date, "2024-01-") {
		t.Errorf("removed token, added twice: %+v (commit %s)", a, c2)
	}
	if b.Commit != c5 || b.Path != "side.txt" || b.Line != 1 || b.Count != 1 {
		t.Errorf("side branch token: %+v", b)
	}
	pair := got["aws_credential_pair"]
	if len(pair) != 1 || len(got["aws_access_key_id"]) != 0 || pair[0].Line != 3 || len(pair[0].Parts) != 2 || pair[0].Parts[0].Line != 2 {
		t.Errorf("aws pair: %+v", res.Findings)
	}
	_ = c3

	// A range: only what c4 added (the token again, now first seen there).
	res = scanRepo(t, Options{Repo: r.dir, Range: c3 + ".." + c4})
	if len(res.Findings) != 1 || res.Findings[0].Commit != c4 || res.Findings[0].Path != "other.env" || res.Findings[0].Line != 5 || res.Commits != 1 {
		t.Errorf("range: %+v", res)
	}
	// The most recent commit only (the side branch's, by date).
	res = scanRepo(t, Options{Repo: r.dir, MaxCommits: 1})
	if res.Commits != 1 || len(res.Findings) != 1 || res.Findings[0].Commit != c5 {
		t.Errorf("max-commits 1: %+v", res)
	}
	// Nothing after a date in the future.
	res = scanRepo(t, Options{Repo: r.dir, Since: "2030-01-01"})
	if res.Commits != 0 || len(res.Findings) != 0 {
		t.Errorf("since 2030: %+v", res)
	}
	res = scanRepo(t, Options{Repo: r.dir, Since: "2024-01-04T00:00:00Z"})
	if res.Commits != 3 {
		t.Errorf("since 2024-01-04: %d commits, want 3", res.Commits)
	}
}

// Modified lines are located in the new file, not in the diff.
func TestHistoryLineNumbers(t *testing.T) {
	r := newRepo(t)
	r.write("f.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n")
	r.commit("base")
	r.write("f.txt", "1\n2\n3\n4\nTOKEN="+tokenA+"\n6\n7\n8\n9\nX="+tokenB+"\n")
	c := r.commit("edit")
	res := scanRepo(t, Options{Repo: r.dir})
	if len(res.Findings) != 2 || res.Findings[0].Line != 5 || res.Findings[1].Line != 10 || res.Findings[0].Commit != c {
		t.Errorf("%+v", res.Findings)
	}
}

func TestStaged(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "nothing\n")
	r.commit("base")
	r.write("b.env", "TOKEN="+tokenA+"\n")
	r.git("add", "b.env")
	r.write("c.env", "TOKEN="+tokenB+"\n") // not staged
	res := scanRepo(t, Options{Repo: r.dir, Staged: true})
	if len(res.Findings) != 1 || res.Findings[0].Path != "b.env" || res.Findings[0].Commit != "" || res.Findings[0].Line != 1 {
		t.Errorf("staged: %+v", res.Findings)
	}
	if _, err := Scan(context.Background(), secretscan.New(nil), &Options{Repo: r.dir, Staged: true, MaxCommits: 3}); err == nil {
		t.Error("--staged with --max-commits accepted")
	}
}

func TestErrors(t *testing.T) {
	r := newRepo(t)
	r.write("a", "a\n")
	r.commit("a")
	s := secretscan.New(nil)
	for name, tc := range map[string]struct {
		o    Options
		code string
	}{
		"not a repository": {Options{Repo: t.TempDir()}, CodeNotARepository},
		"option as range":  {Options{Repo: r.dir, Range: "--output=out.txt"}, CodeInvalidArgument},
		"range without ..": {Options{Repo: r.dir, Range: "main"}, CodeInvalidArgument},
		"unknown revision": {Options{Repo: r.dir, Range: "nope..main"}, CodeGitFailed},
		"since option":     {Options{Repo: r.dir, Since: "-p"}, CodeInvalidArgument},
		"negative count":   {Options{Repo: r.dir, MaxCommits: -1}, CodeInvalidArgument},
		"no git":           {Options{Repo: r.dir, Git: "warden-no-such-git"}, CodeGitNotFound},
	} {
		_, err := Scan(context.Background(), s, &tc.o)
		if e, ok := errcode.As(err); !ok || e.Code != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Scan(ctx, s, &Options{Repo: r.dir}); err == nil {
		t.Error("cancelled scan succeeded")
	}
}

// Excluded paths are passed over in history too; an added line that
// looks like a diff header does not change the file being read.
func TestHistoryExclude(t *testing.T) {
	r := newRepo(t)
	r.write("vendor/lib.go", "++ not a header\nTOKEN="+tokenA+"\n")
	r.write("app.env", "TOKEN="+tokenB+"\n")
	r.write("fixtures/keys.min.js", "k='"+tokenB+"'\n")
	r.commit("add")
	ex, err := secretscan.NewPathFilter("vendor/", "*.min.js")
	if err != nil {
		t.Fatal(err)
	}
	res := scanRepo(t, Options{Repo: r.dir, Exclude: ex})
	if len(res.Findings) != 1 || res.Findings[0].Path != "app.env" || res.Findings[0].Count != 1 {
		t.Errorf("%+v", res.Findings)
	}
}

// A repository's configuration cannot make the scan run a program: git
// diff --cached runs a configured file-system monitor unless told not to.
func TestRepositoryConfigRunsNothing(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commit("a")
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "monitor.sh")
	os.WriteFile(script, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755)
	r.git("config", "core.fsmonitor", script)
	r.write("b.env", "TOKEN="+tokenA+"\n")
	r.git("-c", "core.fsmonitor=false", "add", "b.env")
	os.Remove(marker)
	res := scanRepo(t, Options{Repo: r.dir, Staged: true})
	if len(res.Findings) != 1 {
		t.Errorf("staged: %+v", res.Findings)
	}
	scanRepo(t, Options{Repo: r.dir})
	if _, err := os.Stat(marker); err == nil {
		t.Error("the repository's fsmonitor program ran")
	}
}
