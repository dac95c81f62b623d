package secretscan

import (
	"bufio"
	"io"
	"regexp"
	"strings"
)

// ignoreRule is one pattern of a .gitignore file, compiled to a regexp
// over slash-separated paths relative to the file's directory.
type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
}

// ignoreFile is the compiled content of one .gitignore. It implements the
// subset of gitignore(5) that matters for scanning: comments, blank lines,
// "!" negation, trailing "/" (directories only), leading or inner "/"
// (anchored to the file's directory), "*", "?", "[...]" and "**".
type ignoreFile struct {
	dir   string // slash-separated, relative to the walk root ("" at the root)
	rules []ignoreRule
}

// maxIgnoreLines bounds the patterns read from one .gitignore.
const maxIgnoreLines = 10_000

func parseIgnore(dir string, r io.Reader) *ignoreFile {
	f := &ignoreFile{dir: dir}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for n := 0; sc.Scan() && n < maxIgnoreLines; n++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var rule ignoreRule
		if strings.HasPrefix(line, "!") {
			rule.negate = true
			line = line[1:]
		}
		line = strings.TrimPrefix(line, `\`)
		if strings.HasSuffix(line, "/") {
			rule.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		expr := globToRegexp(line)
		if anchored {
			expr = "^" + expr + "$"
		} else {
			expr = "(?:^|/)" + expr + "$"
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			continue // a pattern git would not understand either
		}
		rule.re = re
		f.rules = append(f.rules, rule)
	}
	return f
}

// globToRegexp translates a gitignore glob to a regexp body.
func globToRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case c == '*' && strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// match reports (matched, ignored) for rel, a slash-separated path
// relative to the walk root.
func (f *ignoreFile) match(rel string, isDir bool) (bool, bool) {
	p := rel
	if f.dir != "" {
		if !strings.HasPrefix(rel, f.dir+"/") {
			return false, false
		}
		p = rel[len(f.dir)+1:]
	}
	matched, ignored := false, false
	for _, r := range f.rules {
		if r.dirOnly && !isDir {
			continue
		}
		if r.re.MatchString(p) {
			matched, ignored = true, !r.negate
		}
	}
	return matched, ignored
}

// ignoreStack holds the .gitignore files that apply to a directory, outermost first.
type ignoreStack []*ignoreFile

// ignored reports whether rel is ignored; deeper files override outer ones.
func (s ignoreStack) ignored(rel string, isDir bool) bool {
	res := false
	for _, f := range s {
		if m, ig := f.match(rel, isDir); m {
			res = ig
		}
	}
	return res
}
