package secretscan

import (
	"strings"

	"github.com/warden-mcp/warden/errcode"
)

// SkipExcluded is the skip reason of a path that WalkOptions.Exclude
// matches.
const SkipExcluded = "excluded"

// PathFilter excludes paths by glob, with the syntax of a .gitignore line
// ("*.min.js", "vendor/", "/build", "docs/**/*.pem", "!keep.txt"), over
// slash-separated paths relative to the scanned root. A nil *PathFilter
// excludes nothing.
type PathFilter struct {
	f *ignoreFile
}

// NewPathFilter compiles globs. An empty glob, or one git would not read,
// fails with CodeInvalidArgument.
func NewPathFilter(globs ...string) (*PathFilter, error) {
	for _, g := range globs {
		t := strings.TrimSpace(g)
		if t == "" || t == "!" || strings.ContainsAny(g, "\n\r") {
			return nil, errcode.New(CodeInvalidArgument, "empty or malformed exclude pattern")
		}
		one := parseIgnore("", strings.NewReader(g))
		if len(one.rules) != 1 {
			return nil, errcode.New(CodeInvalidArgument, "malformed exclude pattern: "+g)
		}
	}
	if len(globs) == 0 {
		return nil, nil
	}
	return &PathFilter{f: parseIgnore("", strings.NewReader(strings.Join(globs, "\n")))}, nil
}

// Excluded reports whether rel (a file, or a directory when isDir) is
// excluded, itself or through one of its parent directories.
func (p *PathFilter) Excluded(rel string, isDir bool) bool {
	if p == nil {
		return false
	}
	rel = strings.Trim(rel, "/")
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' {
			if _, ex := p.f.match(rel[:i], true); ex {
				return true
			}
		}
	}
	_, ex := p.f.match(rel, isDir)
	return ex
}
