package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/internal/repotest"
)

// The examples of README.md and docs/*.md run here, against this build of
// warden, so that what the docs show is what a reader gets.
//
// An example is a fenced block whose info string is sh, console, shell or
// bash, or an unlabelled block that starts with "$ ". Every example runs
// unless an HTML comment on the line before its fence says
//
//	<!-- doctest: skip: why -->
//
// (a whole file: <!-- doctest: skip-file: why --> anywhere in it). A block
// of commands without "$ " runs as one bash script under set -e and must
// succeed. A transcript, whose commands start with "$ " (a line ending in
// a backslash continues the command), runs command by command in one bash,
// and what each prints (stdout and stderr) must match the lines shown
// under it: "…" inside a line stands for any text, a line of "..." for any
// lines, and trailing blanks do not count.
//
// <!-- doctest: only linux/amd64: why --> runs an example on that system
// only (its output shows that system's files).
//
// A block preceded by <!-- doctest: file NAME --> is not run: it is
// written to NAME in the working directory the file's later examples run
// in, so a page can show a program and then build it.
//
// The examples run in a sandbox: HOME is a temporary directory (so the
// state directory is ~/.local/state/warden inside it), warden on PATH is
// this test binary, and one `warden serve` listens on a free loopback
// port, which replaces 127.0.0.1:8787 and localhost:8787 (and the token
// file of port 8787, dev-token-8787) in every command and expected line. WARDEN_LISTEN names that port, so `warden token`
// mints tokens the server accepts. PATH holds warden and a short list of
// programs (allowed), nothing that could change the machine; a command
// whose program is one of those but not installed (gcc, curl, go) skips
// its example, saying which.

// asWarden makes the test binary act as warden: examples run it through
// a link named warden, and the server's analysis worker through
// os.Executable.
const asWarden = "WARDEN_DOCTEST_AS_WARDEN"

func TestMain(m *testing.M) {
	if os.Getenv(asWarden) == "1" || (len(os.Args) > 1 && os.Args[1] == "analyze-worker") {
		main()
		return
	}
	os.Exit(m.Run())
}

type example struct {
	file, lang string
	line       int      // of the opening fence
	body       []string // de-indented
	skip       string   // the reason given, if marked
	writeTo    string   // a file block: the path to write it to
	only       string   // runs on this GOOS/GOARCH only: "linux/amd64: why"
}

var (
	fenceRE  = regexp.MustCompile("^([ \t]*)(```+)[ \t]*([^` \t]*)[^`]*$")
	markerRE = regexp.MustCompile(`^\s*<!--\s*doctest:\s*(skip-file|skip|file|only)\s*:?\s*(.*?)\s*-->\s*$`)
)

// parse returns the fenced blocks of a Markdown file that the test runs
// or writes, and the reason the file is skipped, if it is.
func parse(t *testing.T, name string, src []byte) ([]example, string) {
	t.Helper()
	var out []example
	skipFile := ""
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		if m := markerRE.FindStringSubmatch(lines[i]); m != nil && m[1] == "skip-file" {
			if m[2] == "" {
				t.Errorf("%s:%d: a doctest skip-file marker must give a reason", name, i+1)
			}
			skipFile = m[2]
		}
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, fence := m[1], m[2]
		ex := example{file: name, lang: m[3], line: i + 1}
		for j := i - 1; j >= 0 && j >= i-2; j-- { // the marker may have one blank line after it
			if mm := markerRE.FindStringSubmatch(lines[j]); mm != nil {
				switch mm[1] {
				case "skip":
					ex.skip = mm[2]
					if ex.skip == "" {
						t.Errorf("%s:%d: a doctest skip marker must give a reason", name, j+1)
					}
				case "file":
					ex.writeTo = mm[2]
				case "only":
					ex.only = mm[2]
				}
				break
			}
			if strings.TrimSpace(lines[j]) != "" {
				break
			}
		}
		j := i + 1
		for ; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == fence || (strings.HasPrefix(strings.TrimSpace(lines[j]), fence) && strings.TrimSpace(strings.Trim(strings.TrimSpace(lines[j]), "`")) == "") {
				break
			}
			ex.body = append(ex.body, strings.TrimPrefix(lines[j], indent))
		}
		i = j
		switch {
		case ex.writeTo != "":
		case ex.lang == "sh" || ex.lang == "console" || ex.lang == "shell" || ex.lang == "bash":
		case ex.lang == "" && len(ex.body) > 0 && strings.HasPrefix(strings.TrimSpace(firstLine(ex.body)), "$ "):
		default:
			continue
		}
		out = append(out, ex)
	}
	return out, skipFile
}

func firstLine(body []string) string {
	for _, l := range body {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// step is one command of a transcript and the lines it must print.
type step struct {
	cmd  string
	want []string
}

// transcript splits a block into commands and their output; ok is false
// for a block of plain commands.
func transcript(body []string) (steps []step, ok bool) {
	for i := 0; i < len(body); i++ {
		l := body[i]
		if rest, isCmd := strings.CutPrefix(l, "$ "); isCmd {
			cmd := rest
			for strings.HasSuffix(strings.TrimRight(cmd, " "), "\\") && i+1 < len(body) {
				i++
				cmd += "\n" + body[i]
			}
			steps = append(steps, step{cmd: cmd})
			continue
		}
		if len(steps) == 0 {
			if strings.TrimSpace(l) == "" {
				continue
			}
			return nil, false
		}
		steps[len(steps)-1].want = append(steps[len(steps)-1].want, l)
	}
	return steps, len(steps) > 0
}

// match reports whether got matches the expected lines, with "…" for any
// text within a line and a line of "..." for any lines.
func match(want, got []string) bool {
	want, got = trimLines(want), trimLines(got)
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "..." {
		for k := 0; k <= len(got); k++ {
			if match(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 || !lineRE(want[0]).MatchString(got[0]) {
		return false
	}
	return match(want[1:], got[1:])
}

func lineRE(w string) *regexp.Regexp {
	parts := strings.Split(strings.TrimRight(w, " \t"), "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// trimLines drops trailing blanks of each line and blank lines at the end.
func trimLines(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimRight(l, " \t\r")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// sandbox is where the examples run.
type sandbox struct {
	home, bin, addr string
	env             []string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	s := &sandbox{home: filepath.Join(root, "home"), bin: filepath.Join(root, "bin")}
	for _, d := range []string{s.home, s.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(exe, filepath.Join(s.bin, "warden")); err != nil {
		t.Fatal(err)
	}
	for _, p := range allowed {
		if full, err := exec.LookPath(p); err == nil {
			if err := os.Symlink(full, filepath.Join(s.bin, p)); err != nil {
				t.Fatal(err)
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	ln.Close()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "WARDEN_") || k == "HOME" || k == "XDG_STATE_HOME" || k == "PATH" || k == "XDG_CONFIG_HOME" {
			continue
		}
		s.env = append(s.env, kv)
	}
	// The go command keeps its caches under HOME unless told: point it at
	// the real ones, so that an example's build reuses them.
	if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output(); err == nil {
		if v := strings.Split(strings.TrimSpace(string(out)), "\n"); len(v) == 3 {
			s.env = append(s.env, "GOCACHE="+v[0], "GOMODCACHE="+v[1], "GOPATH="+v[2])
		}
	}
	s.env = append(s.env, "HOME="+s.home, "PATH="+s.bin,
		"WARDEN_LISTEN="+s.addr, asWarden+"=1")
	return s
}

// serve starts `warden serve` and waits until it listens.
func (s *sandbox) serve(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "warden"), "serve", "--log-level", "warn")
	cmd.Env = s.env
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		found := false
		for sc.Scan() {
			if !found && strings.Contains(sc.Text(), "listening on http://"+s.addr) {
				found = true
				ready <- true
			}
		}
		if !found {
			ready <- false
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("warden serve did not start: %s", stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("warden serve did not start within a minute: %s", stderr.String())
	}
}

// rewrite points a command or an expected line at the sandbox's server.
func (s *sandbox) rewrite(l string) string {
	_, port, _ := net.SplitHostPort(s.addr)
	return strings.NewReplacer("127.0.0.1:8787", s.addr, "localhost:8787", "localhost:"+port,
		"dev-token-8787", "dev-token-"+port).Replace(l)
}

// run runs a script in dir under bash and returns what it printed.
func (s *sandbox) run(dir, script string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script)
	cmd.Dir = dir
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("still running after 2 minutes: %w", err)
	}
	return string(out), err
}

// allowed are the programs the examples may run besides warden and bash's
// builtins: PATH holds nothing else, so an example that would change the
// machine (create a database role, install a package) cannot, and fails
// until it is marked skipped or its program is added here.
var allowed = []string{
	"bash", "sh", "cat", "grep", "sed", "head", "tail", "cut", "tr", "wc", "sort", "ls", "mkdir", "cp",
	"env", "sleep", "sha256sum", "base64", "od",
	"curl", "gcc", "cc", "as", "ld", "go", // optional: an example that needs one that is missing skips
}

// optional are the allowed programs a machine may lack.
var optional = regexp.MustCompile(`(?m)(?:^|[|;&(]\s*|\$\(\s*)(curl|gcc|go)\b`)

func missingProgram(script string) string {
	for _, m := range optional.FindAllStringSubmatch(script, -1) {
		if _, err := exec.LookPath(m[1]); err != nil {
			return m[1]
		}
	}
	return ""
}

func TestDocumentedExamples(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	root := repotest.Root(t)
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	s := newSandbox(t)
	s.serve(t)
	examples := 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		exs, skipFile := parse(t, rel, src)
		work := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(path), ".md"))
		if err := os.MkdirAll(work, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, ex := range exs {
			if ex.writeTo != "" {
				p := filepath.Join(work, filepath.FromSlash(ex.writeTo))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(strings.Join(ex.body, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			examples++
			t.Run(fmt.Sprintf("%s:%d", filepath.Base(rel), ex.line), func(t *testing.T) {
				switch {
				case skipFile != "":
					t.Skipf("the file is marked: %s", skipFile)
				case ex.skip != "":
					t.Skipf("marked: %s", ex.skip)
				case ex.only != "":
					target, why, _ := strings.Cut(ex.only, ":")
					if target != runtime.GOOS+"/"+runtime.GOARCH {
						t.Skipf("runs on %s only:%s", target, why)
					}
				}
				s.check(t, work, ex)
			})
		}
	}
	if examples < 10 {
		t.Fatalf("found only %d examples in the docs", examples)
	}
}

// check runs one example and compares what it printed with the doc.
func (s *sandbox) check(t *testing.T, dir string, ex example) {
	t.Helper()
	steps, isTranscript := transcript(ex.body)
	if !isTranscript {
		script := s.rewrite(strings.Join(ex.body, "\n"))
		if p := missingProgram(script); p != "" {
			t.Skipf("needs %s, which is not installed", p)
		}
		if out, err := s.run(dir, "set -eo pipefail\nexec 2>&1\n"+script); err != nil {
			t.Fatalf("%v; the commands printed:\n%s%s", err, out, hint(out))
		}
		return
	}
	var script strings.Builder
	script.WriteString("exec 2>&1\n")
	for i, st := range steps {
		cmd := s.rewrite(st.cmd)
		if p := missingProgram(cmd); p != "" {
			t.Skipf("needs %s, which is not installed", p)
		}
		fmt.Fprintf(&script, "printf '\\n@@doctest %d@@\\n'\n%s\n", i, cmd)
	}
	out, _ := s.run(dir, script.String())
	parts := regexp.MustCompile(`(?m)^@@doctest (\d+)@@$`).Split(out, -1)
	if len(parts) != len(steps)+1 {
		t.Fatalf("the transcript's commands did not all run; they printed:\n%s", out)
	}
	for i, st := range steps {
		got := strings.Split(strings.TrimPrefix(parts[i+1], "\n"), "\n")
		want := make([]string, len(st.want))
		for k, w := range st.want {
			want[k] = s.rewrite(w)
		}
		if !match(want, got) {
			t.Errorf("$ %s\nprinted:\n%s\nthe doc shows:\n%s%s", st.cmd, strings.Join(trimLines(got), "\n"), strings.Join(trimLines(want), "\n"), hint(parts[i+1]))
		}
	}
}

// hint explains a command the sandbox does not have.
func hint(out string) string {
	if !strings.Contains(out, "command not found") {
		return ""
	}
	return "\n(the examples run with only warden and " + strings.Join(allowed, ", ") +
		" on PATH: mark an example that needs more <!-- doctest: skip: why --> or add its program to allowed in cmd/warden/docs_test.go)"
}

func TestDoctestRules(t *testing.T) {
	md := "Intro\n\n<!-- doctest: skip: needs X -->\n```sh\nx --go\n```\n\n" +
		"<!-- doctest: file a/b.txt -->\n```\nhello\n```\n\n" +
		"```\n$ echo hi \\\n  there\nhi there\n$ true\n```\n\n" +
		"```json\n{}\n```\n\n```\nnot a transcript\n```\n\n" +
		"  <!-- doctest: only linux/arm64: why -->\n  ```console\n  $ uname -m\n  aarch64\n  ```\n"
	exs, skipFile := parse(t, "x.md", []byte(md))
	if skipFile != "" || len(exs) != 4 {
		t.Fatalf("%d examples (%+v), skip-file %q", len(exs), exs, skipFile)
	}
	if exs[0].skip != "needs X" || exs[1].writeTo != "a/b.txt" || exs[3].only != "linux/arm64: why" || exs[3].body[0] != "$ uname -m" {
		t.Errorf("markers: %+v", exs)
	}
	steps, ok := transcript(exs[2].body)
	if !ok || len(steps) != 2 || steps[0].cmd != "echo hi \\\n  there" || len(steps[0].want) != 1 || steps[1].cmd != "true" {
		t.Errorf("transcript: %+v", steps)
	}
	if _, ok := transcript([]string{"x --go"}); ok {
		t.Error("a block of commands read as a transcript")
	}
	for _, c := range []struct {
		want, got []string
		ok        bool
	}{
		{[]string{"a", "b"}, []string{"a", "b  ", ""}, true},
		{[]string{"a", "b"}, []string{"a"}, false},
		{[]string{"id …, size …"}, []string{"id 42, size 7"}, true},
		{[]string{"id …, size 8"}, []string{"id 42, size 7"}, false},
		{[]string{"a", "...", "z"}, []string{"a", "b", "c", "z"}, true},
		{[]string{"a", "...", "z"}, []string{"a", "z"}, true},
		{[]string{"a", "...", "z"}, []string{"a", "b"}, false},
		{[]string{"a.b"}, []string{"axb"}, false},
	} {
		if got := match(c.want, c.got); got != c.ok {
			t.Errorf("match(%q, %q) = %v", c.want, c.got, got)
		}
	}
	if _, skip := parse(t, "p.md", []byte("# P\n\n<!-- doctest: skip-file: slow -->\n")); skip != "slow" {
		t.Errorf("skip-file: %q", skip)
	}
}
