// Package gitscan finds secrets in a git repository's history: every line
// that a commit added, on every ref, or the lines staged in the index (a
// pre-commit hook). It streams the output of the git command line
// (git log -p) through a secretscan.Scanner, so memory stays bounded by
// the largest file change, never by the repository's size.
//
// The git CLI rather than a Go implementation of git: it is what a user
// who has a repository already has; it reads every object format, pack
// and extension the user's repositories use (partial clones, commit
// graphs, SHA-256 repositories) in the version the user trusts; and it
// produces diffs at native speed in its own process, in parallel with the
// scan. docs/DEPENDENCIES.md says more.
package gitscan

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/secretscan"
)

// Error codes of the *errcode.Error values this package returns.
const (
	// CodeGitNotFound: no git executable on PATH.
	CodeGitNotFound = "git_not_found"
	// CodeNotARepository: the directory is not inside a git work tree or
	// repository.
	CodeNotARepository = "not_a_git_repository"
	// CodeGitFailed: git exited with an error (a bad --since date or
	// range, a damaged repository).
	CodeGitFailed = "git_failed"
	// CodeInvalidArgument: an option is malformed.
	CodeInvalidArgument = "invalid_argument"
)

// Options selects what to scan. The zero value scans every commit
// reachable from any ref of the repository in the working directory.
type Options struct {
	// Repo is a directory in the repository. Empty: the working directory.
	Repo string
	// Since keeps commits more recent than this date, in any form git
	// log --since reads ("2024-01-31", "2 weeks ago"). Empty: all.
	Since string
	// Range is a revision range, "A..B" (commits reachable from B and
	// not from A) or "A...B". Empty: all refs (git log --all).
	Range string
	// Staged scans the changes staged in the index instead of history:
	// what the next commit would add. Since, Range and MaxCommits must
	// then be empty.
	Staged bool
	// MaxCommits keeps the most recent N commits. Zero: all.
	MaxCommits int
	// MaxLineBytes cuts longer added lines (minified files); the rest of
	// such a line is not scanned. Zero: 1 MiB.
	MaxLineBytes int
	// Workers is the number of file changes scanned at once. Zero:
	// GOMAXPROCS.
	Workers int
	// Exclude skips the file changes whose path it matches. Nil: none.
	Exclude *secretscan.PathFilter
	// Git is the git executable. Empty: "git" from PATH.
	Git string
}

// Finding is one secret, as it was first added to the history, with the
// number of times it was added in all (the same value added again in a
// later commit, or at several places, is the same finding).
type Finding struct {
	secretscan.Detection
	// Path is the file's slash-separated path in the repository.
	Path string `json:"path"`
	// Commit is the full hash of the commit that first added the value
	// (the oldest in git log's order); empty for staged changes.
	Commit string `json:"commit,omitempty"`
	// Author and Email name the commit's author; Date is its author
	// date (RFC 3339).
	Author string `json:"author,omitempty"`
	Email  string `json:"email,omitempty"`
	Date   string `json:"date,omitempty"`
	// Count is how many times the value was added: in how many commits
	// and places.
	Count int `json:"count"`
}

// Result is the outcome of a history scan.
type Result struct {
	// Findings in the order of their first commit, oldest first; then by
	// path and line.
	Findings []Finding
	// Commits is the number of commits read (0 for staged changes).
	Commits int
	// Files is the number of file changes with added lines scanned.
	Files int
	// Bytes is the size of the added lines scanned.
	Bytes int64
	// Suppressed counts detections hidden by an allow comment or the
	// baseline.
	Suppressed int
	// Truncated is set when a line was cut at MaxLineBytes or a scan hit
	// its detection cap.
	Truncated bool
}

// chunk is the text a commit added to one file, ready to scan.
type chunk struct {
	seq    int
	commit *commitInfo
	path   string
	text   []byte
	lines  []int32 // file line of each line of text
}

type commitInfo struct {
	hash, author, email, date string
}

type scanned struct {
	c          *chunk
	detections []secretscan.Detection
	suppressed int
	truncated  bool
}

// commitMark starts each commit's header in the log output; a diff line
// never starts with the record separator.
const commitMark = "\x1ewarden-commit\x00"

// Scan runs git and scans what it reports. Cancelling ctx kills git.
func Scan(ctx context.Context, s *secretscan.Scanner, opts *Options) (Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	args, err := gitArgs(opts)
	if err != nil {
		return Result{}, err
	}
	gitBin := opts.Git
	if gitBin == "" {
		gitBin = "git"
	}
	if _, err := exec.LookPath(gitBin); err != nil {
		return Result{}, errcode.Wrap(CodeGitNotFound, "git is not installed (or not on PATH)", err)
	}
	repo := opts.Repo
	if repo == "" {
		repo = "."
	}
	check := exec.CommandContext(ctx, gitBin, "-C", repo, "rev-parse", "--git-dir")
	if out, err := check.CombinedOutput(); err != nil {
		return Result{}, errcode.Wrap(CodeNotARepository, "not a git repository", errors.New(strings.TrimSpace(string(out))))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, gitBin, append([]string{"-C", repo}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 4 << 10}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Result{}, errcode.Wrap(CodeGitFailed, "cannot run git", err)
	}
	if err := cmd.Start(); err != nil {
		return Result{}, errcode.Wrap(CodeGitFailed, "cannot run git", err)
	}

	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunks := make(chan *chunk, workers*2)
	outs := make(chan scanned, workers*2)
	var wg sync.WaitGroup
	var scanErr error
	var errOnce sync.Once
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range chunks {
				res, err := s.Scan(ctx, string(c.text))
				if err != nil {
					errOnce.Do(func() { scanErr = err; cancel() })
					continue
				}
				outs <- scanned{c: c, detections: res.Detections, suppressed: res.Suppressed, truncated: res.Truncated}
			}
		}()
	}
	var res Result
	var parseErr error
	var parsedCommits int
	var parseTruncated bool
	go func() {
		p := parser{out: chunks, maxLine: opts.MaxLineBytes, staged: opts.Staged, exclude: opts.Exclude, ctx: ctx}
		parseErr = p.parse(stdout)
		parsedCommits, parseTruncated = p.commits, p.truncated // read after outs is closed
		close(chunks)
		_, _ = io.Copy(io.Discard, stdout) // let git finish if parsing stopped early
		wg.Wait()
		close(outs)
	}()

	type agg struct {
		f    Finding
		seq  int // of the chunk f comes from
		line int // f's offset in that chunk
	}
	found := map[string]*agg{} // by fingerprint
	for o := range outs {
		res.Files++
		res.Bytes += int64(len(o.c.text))
		res.Suppressed += o.suppressed
		res.Truncated = res.Truncated || o.truncated
		for _, d := range o.detections {
			d = mapLines(d, o.c.lines)
			a := found[d.Fingerprint]
			if a == nil {
				a = &agg{seq: -1}
				found[d.Fingerprint] = a
			}
			a.f.Count++
			// git log lists newer commits first: the latest chunk in the
			// stream is the oldest commit, the one that added the value.
			if o.c.seq > a.seq || o.c.seq == a.seq && d.Offset < a.line {
				cm := o.c.commit
				a.f = Finding{Detection: d, Path: o.c.path, Commit: cm.hash, Author: cm.author,
					Email: cm.email, Date: cm.date, Count: a.f.Count}
				a.seq, a.line = o.c.seq, d.Offset
			}
		}
	}
	res.Commits = parsedCommits
	res.Truncated = res.Truncated || parseTruncated
	waitErr := cmd.Wait()
	if scanErr != nil {
		return Result{}, scanErr
	}
	if err := ctx.Err(); err != nil {
		return Result{}, errcode.Wrap(secretscan.CodeCanceled, "scan canceled", err)
	}
	if parseErr != nil {
		return Result{}, errcode.Wrap(CodeGitFailed, "cannot read git's output", parseErr)
	}
	if waitErr != nil {
		return Result{}, errcode.Wrap(CodeGitFailed, "git failed", errors.New(strings.TrimSpace(stderr.String())))
	}
	seqs := map[string]int{}
	for fp, a := range found {
		res.Findings = append(res.Findings, a.f)
		seqs[fp] = a.seq
	}
	slices.SortFunc(res.Findings, func(a, b Finding) int {
		if sa, sb := seqs[a.Fingerprint], seqs[b.Fingerprint]; sa != sb {
			return sb - sa // oldest first
		}
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Fingerprint, b.Fingerprint)
	})
	return res, nil
}

// gitArgs builds git's arguments, refusing options that git would read
// as something else.
func gitArgs(o *Options) ([]string, error) {
	// Fixed settings over whatever the repository's configuration says:
	// unquoted paths, the a/ b/ prefixes, no signature checks (they run
	// gpg), no file-system monitor (a configured one is a program), no
	// pager.
	common := []string{"--no-pager", "-c", "core.quotePath=false", "-c", "diff.noprefix=false",
		"-c", "log.showSignature=false", "-c", "core.fsmonitor=false"}
	diff := []string{"-p", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", "-M", "--src-prefix=a/", "--dst-prefix=b/"}
	if o.Staged {
		if o.Since != "" || o.Range != "" || o.MaxCommits != 0 {
			return nil, errcode.New(CodeInvalidArgument, "--staged scans the index: --since, --range and --max-commits do not apply")
		}
		return slices.Concat(common, []string{"diff", "--cached"}, diff[1:], []string{"--end-of-options", "--"}), nil
	}
	if o.MaxCommits < 0 {
		return nil, errcode.New(CodeInvalidArgument, "--max-commits must be positive")
	}
	args := slices.Concat(common, []string{"log", "--format=" + "%x1ewarden-commit%x00%H%x00%an%x00%ae%x00%aI"}, diff)
	if o.Since != "" {
		if strings.HasPrefix(o.Since, "-") || strings.ContainsAny(o.Since, "\x00\n") {
			return nil, errcode.New(CodeInvalidArgument, "--since: not a date")
		}
		args = append(args, "--since="+o.Since)
	}
	if o.MaxCommits > 0 {
		args = append(args, "--max-count="+strconv.Itoa(o.MaxCommits))
	}
	if o.Range != "" {
		if strings.HasPrefix(o.Range, "-") || !strings.Contains(o.Range, "..") || strings.ContainsAny(o.Range, " \t\x00\n") {
			return nil, errcode.New(CodeInvalidArgument, "--range: want A..B (or A...B)")
		}
		return append(args, "--end-of-options", o.Range, "--"), nil
	}
	return append(args, "--all", "--end-of-options", "--"), nil
}

// mapLines turns a detection's line in the chunk's text into the file's.
func mapLines(d secretscan.Detection, lines []int32) secretscan.Detection {
	at := func(l int) int {
		if l >= 1 && l <= len(lines) {
			return int(lines[l-1])
		}
		return l
	}
	d.Line = at(d.Line)
	if d.Parts != nil {
		d.Parts = slices.Clone(d.Parts)
		for i := range d.Parts {
			d.Parts[i].Line = at(d.Parts[i].Line)
		}
	}
	return d
}

// limitedBuffer keeps the first max bytes written to it: git's error
// message, not a flood.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
