package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/plugin"
)

// The scaffold of each language builds and passes its own check, and a
// plugin that breaks its contract fails it.
func TestPluginNewBuildCheck(t *testing.T) {
	for _, c := range []struct {
		lang string
		need string
	}{
		{"python", "python3"},
		{"go", "go"},
		{"c", "clang"},
		{"rust", "rustc"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			if _, err := exec.LookPath(c.need); err != nil {
				t.Skipf("%s is not installed", c.need)
			}
			if c.lang == "c" || c.lang == "rust" {
				if err := plugin.CanBuild(c.lang); err != nil {
					t.Skipf("cannot build %s plugins here: %v", c.lang, err)
				}
			}
			if c.lang == "go" {
				// Build against this checkout and the module cache only.
				t.Setenv("GOFLAGS", "-mod=mod")
				t.Setenv("GOPROXY", "off")
			}
			dir := filepath.Join(t.TempDir(), "demo")
			repo, _ := filepath.Abs(filepath.Join("..", ".."))
			if out, errOut, code := run(t, "", "plugin", "new", "demo", "--lang", c.lang, "--dir", dir, "--warden-src", repo); code != ExitOK {
				t.Fatalf("new: %d %s %s", code, out, errOut)
			}
			if out, errOut, code := run(t, "", "plugin", "build", dir); code != ExitOK {
				t.Fatalf("build: %d %s %s", code, out, errOut)
			}
			out, errOut, code := run(t, "", "plugin", "check", "--json", dir)
			if code != ExitOK || !strings.Contains(out, `"ok":true`) {
				t.Fatalf("check: %d %s %s", code, out, errOut)
			}
			out, _, code = run(t, "", "tools", "--plugins", dir)
			if code != ExitOK || !strings.Contains(out, "demo_echo") || !strings.Contains(out, "plugin:demo") {
				t.Fatalf("tools --plugins: %s", out)
			}
			if c.lang == "python" {
				// A tool that fails its call fails the check.
				src := filepath.Join(dir, "plugin.py")
				b, _ := os.ReadFile(src)
				broken := strings.Replace(string(b), "return EchoResult(text=args.text)", "raise RuntimeError('broken')", 1)
				if err := os.WriteFile(src, []byte(broken), 0o644); err != nil {
					t.Fatal(err)
				}
				if out, _, code := run(t, "", "plugin", "check", dir); code == ExitOK || !strings.Contains(out, "plugin_failed") {
					t.Fatalf("a broken plugin passed the check: %d %s", code, out)
				}
			}
		})
	}
}
