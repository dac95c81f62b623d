package secretscan

import (
	"strings"
	"testing"
)

func TestGitignorePatterns(t *testing.T) {
	f := parseIgnore("", strings.NewReader("# comment\n\n*.tmp\n/only-root\ndocs/**/*.md\n!docs/keep/README.md\ncache/\na?c\n[Tt]est[0-9]\n\\#hash\n"))
	for _, tc := range []struct {
		path   string
		dir    bool
		ignore bool
	}{
		{"x.tmp", false, true},
		{"deep/dir/x.tmp", false, true},
		{"only-root", false, true},
		{"sub/only-root", false, false},
		{"docs/a/b/c.md", false, true},
		{"docs/c.md", false, true},
		{"docs/keep/README.md", false, false},
		{"cache", true, true},
		{"cache", false, false},
		{"abc", false, true},
		{"abbc", false, false},
		{"Test7", false, true},
		{"test", false, false},
		{"#hash", false, true},
	} {
		if got := (ignoreStack{f}).ignored(tc.path, tc.dir); got != tc.ignore {
			t.Errorf("%s (dir=%v): ignored=%v want %v", tc.path, tc.dir, got, tc.ignore)
		}
	}
}
