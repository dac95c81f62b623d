package gitscan

import (
	"context"
	"strings"
	"testing"
)

func parseAll(t *testing.T, in string, maxLine int) ([]*chunk, *parser) {
	t.Helper()
	ch := make(chan *chunk, 100)
	p := &parser{ctx: context.Background(), out: ch, maxLine: maxLine}
	if err := p.parse(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	close(ch)
	var out []*chunk
	for c := range ch {
		out = append(out, c)
	}
	return out, p
}

// The parser keeps added lines only, with their new line numbers; reads
// quoted paths; takes an added line that looks like a header ("++ x")
// as content; and cuts overlong lines.
func TestParse(t *testing.T) {
	in := commitMark + "abc\x00Ada\x00ada@example.org\x002024-01-01T00:00:00Z\n" +
		"\n" +
		"diff --git \"a/t\\tab\" \"b/t\\tab\"\n" +
		"--- \"a/t\\tab\"\n" +
		"+++ \"b/t\\tab\"\n" +
		"@@ -3,2 +3,3 @@ func x() {\n" +
		"-old\n" +
		"+new one\n" +
		"+++ looks like a header\n" +
		"\\ No newline at end of file\n" +
		"@@ -0,0 +10 @@\n" +
		"+" + strings.Repeat("L", 300) + "\n" +
		"diff --git a/gone b/gone\n" +
		"deleted file mode 100644\n" +
		"--- a/gone\n" +
		"+++ /dev/null\n" +
		"@@ -1 +0,0 @@\n" +
		"-bye\n" +
		"diff --git a/bin b/bin\n" +
		"Binary files a/bin and b/bin differ\n"
	cs, p := parseAll(t, in, 100)
	if p.commits != 1 || !p.truncated || len(cs) != 1 {
		t.Fatalf("commits %d truncated %v chunks %d", p.commits, p.truncated, len(cs))
	}
	c := cs[0]
	want := "new one\n++ looks like a header\n" + strings.Repeat("L", 99) + "\n"
	if c.path != "t\tab" || string(c.text) != want || len(c.lines) != 3 || c.lines[0] != 3 || c.lines[1] != 4 || c.lines[2] != 10 {
		t.Errorf("chunk: path %q text %q lines %v", c.path, c.text, c.lines)
	}
	if c.commit.hash != "abc" || c.commit.author != "Ada" || c.commit.date != "2024-01-01T00:00:00Z" {
		t.Errorf("commit: %+v", c.commit)
	}
}

// A file change larger than flushBytes is scanned in parts, each
// carrying its own line numbers.
func TestParseLargeChange(t *testing.T) {
	var b strings.Builder
	b.WriteString(commitMark + "h\x00a\x00e\x00d\ndiff --git a/f b/f\n+++ b/f\n@@ -0,0 +1,99999 @@\n")
	line := strings.Repeat("z", 63)
	n := 2*flushBytes/64 + 10
	for range n {
		b.WriteString("+" + line + "\n")
	}
	cs, _ := parseAll(t, b.String(), 0)
	total := 0
	for _, c := range cs {
		if len(c.text) > flushBytes+64 || int(c.lines[0]) != total+1 {
			t.Errorf("part of %d bytes starting at line %d (after %d lines)", len(c.text), c.lines[0], total)
		}
		total += len(c.lines)
	}
	if len(cs) != 3 || total != n {
		t.Errorf("%d parts, %d lines; want 3, %d", len(cs), total, n)
	}
}

// FuzzParse feeds the parser arbitrary log output: it never panics, and
// every chunk has one line number per line of text, increasing within a
// hunk.
func FuzzParse(f *testing.F) {
	f.Add(commitMark + "h\x00a\x00e\x00d\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n-a\n+b\n+c\n")
	f.Add("diff --git a/x b/x\n+++ \"b/q\\\"\"\n@@ -0,0 +99999999999 @@\n+x\n\\ No newline\n")
	f.Add(commitMark + "\n+++ b/y\n@@ +\n+z\n@@ -1 +2 @@\n+++ b/w\n")
	f.Fuzz(func(t *testing.T, in string) {
		ch := make(chan *chunk, 1<<16)
		p := &parser{ctx: context.Background(), out: ch, maxLine: 64, staged: len(in)%2 == 0}
		if err := p.parse(strings.NewReader(in)); err != nil {
			t.Fatal(err)
		}
		close(ch)
		for c := range ch {
			if n := strings.Count(string(c.text), "\n"); n != len(c.lines) {
				t.Fatalf("%d lines of text, %d line numbers", n, len(c.lines))
			}
		}
	})
}
