package cli

import (
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/internal/testbin"
)

// gccGraph builds a program whose checksum function has a loop, two
// conditional branches and a call on an error path.
func gccGraph(t *testing.T) string {
	t.Helper()
	return testbin.C(t, "graph", testbin.CProgram{File: "graph.c", Flags: []string{"-O2"}, Source: `#include <stdio.h>
__attribute__((noinline)) int checksum(const char *s) {
	int h = 0;
	for (; *s; s++) h = h * 31 + *s;
	if (h == 12345) { fprintf(stderr, "collision\n"); return -1; }
	return h;
}
int main(int argc, char **argv) { printf("%d\n", checksum(argv[0])); return 0; }
`})
}

func TestInspectFunctionGraph(t *testing.T) {
	p := gccGraph(t)
	dir := t.TempDir()
	svg, dot := filepath.Join(dir, "checksum.svg"), filepath.Join(dir, "checksum.dot")
	_, errOut, code := run(t, "", "inspect", p, "--function", "checksum", "--svg", svg, "--dot", dot)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "checksum at 0x") {
		t.Errorf("stderr: %q", errOut)
	}
	d, _ := os.ReadFile(dot)
	for _, want := range []string{`digraph "checksum"`, `label="taken"`, `label="not taken"`, "call fwrite@plt", "ret"} {
		if !strings.Contains(string(d), want) {
			t.Errorf("DOT lacks %q:\n%s", want, d)
		}
	}
	s, _ := os.ReadFile(svg)
	if !strings.HasPrefix(string(s), "<svg ") || !strings.Contains(string(s), "checksum:") {
		t.Fatalf("SVG:\n%.300s", s)
	}
	// DOT to standard output; a name inside the function works too.
	out, _, code := run(t, "", "inspect", p, "--function", "checksum+4", "--dot", "-")
	if code != ExitOK || out != string(d) {
		t.Errorf("--dot - from inside the function: exit %d, same %v", code, out == string(d))
	}
	for _, args := range [][]string{
		{"inspect", p, "--function", "checksum"},
		{"inspect", p, "--svg", svg},
		{"inspect", p, "--function", "no_such_function", "--svg", svg},
		{"inspect", p, "--function", "checksum", "--dot", "-", "--syntax", "pdp11"},
	} {
		if _, _, code := run(t, "", args...); code != ExitError {
			t.Errorf("%v: exit %d", args[2:], code)
		}
	}
	checkInChromium(t, svg)
}

// checkInChromium renders the SVG in headless Chromium and checks the
// picture: the blocks' boxes and both branch colours are drawn.
func checkInChromium(t *testing.T, svg string) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if _, err := os.Stat("/usr/bin/chromium"); err != nil {
			t.Skip("chromium not installed")
		}
		chromium = "/usr/bin/chromium"
	}
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1000,1000", "--screenshot="+shot, "file://"+svg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, b)
	}
	if os.Getenv("WARDEN_KEEP_SCREENSHOT") != "" {
		b, _ := os.ReadFile(shot)
		_ = os.WriteFile(os.Getenv("WARDEN_KEEP_SCREENSHOT"), b, 0o644)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// Count pixels near each colour the drawing uses.
	colours := map[string][3]int{
		"taken (green)":     {0x2e, 0x7d, 0x32},
		"not taken (red)":   {0xc6, 0x28, 0x28},
		"entry block fill":  {0xe3, 0xf2, 0xfd},
		"block border/text": {0x37, 0x47, 0x4f},
	}
	counts := map[string]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			for name, c := range colours {
				if near(img, x, y, c) {
					counts[name]++
				}
			}
		}
	}
	t.Logf("%dx%d screenshot: %v", b.Dx(), b.Dy(), counts)
	for name, min := range map[string]int{"taken (green)": 40, "not taken (red)": 40, "entry block fill": 2000, "block border/text": 200} {
		if counts[name] < min {
			t.Errorf("%s: %d pixels, want at least %d", name, counts[name], min)
		}
	}
}

func near(img image.Image, x, y int, c [3]int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	d := func(v uint32, w int) int {
		x := int(v>>8) - w
		if x < 0 {
			return -x
		}
		return x
	}
	return d(r, c[0]) < 24 && d(g, c[1]) < 24 && d(b, c[2]) < 24
}
