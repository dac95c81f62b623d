package secretscan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestScanDir(t *testing.T) {
	secret := "TOKEN=" + validGitHub + "\n"
	root := writeTree(t, map[string]string{
		".gitignore":       "*.log\n/build/\nsecrets/*\n!secrets/keep.txt\n",
		"a.txt":            secret,
		"app.log":          secret,
		"build/out.txt":    secret,
		"src/build/ok.txt": secret, // "/build/" is anchored to the root
		"secrets/drop.txt": secret,
		"secrets/keep.txt": secret,
		"sub/.gitignore":   "local.env\n",
		"sub/local.env":    secret,
		"sub/other.env":    secret,
		"bin.dat":          "\x00\x01" + secret,
		"big.txt":          strings.Repeat("x", 2000) + secret,
		".git/config":      secret,
		"z/clean.txt":      "nothing here\n",
	})
	if err := os.Symlink(filepath.Join(root, "a.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	s := New(&Options{FingerprintKey: []byte("k")})
	var got []string
	skipped := map[string]string{}
	stats, err := s.ScanDir(context.Background(), root, &WalkOptions{MaxFileSize: 1000, Workers: 3,
		OnSkip: func(p, why string) { skipped[p] = why }}, func(fr FileResult) error {
		got = append(got, fr.Path+":"+strconv.Itoa(len(fr.Result.Detections)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore:0", "a.txt:1", "secrets/keep.txt:1", "src/build/ok.txt:1", "sub/.gitignore:0", "sub/other.env:1", "z/clean.txt:0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scanned files (-want +got):\n%s", diff)
	}
	wantSkip := map[string]string{"app.log": SkipIgnored, "build": SkipIgnored, "secrets/drop.txt": SkipIgnored,
		"sub/local.env": SkipIgnored, "bin.dat": SkipBinary, "big.txt": SkipTooLarge, "link.txt": SkipSymlink}
	if diff := cmp.Diff(wantSkip, skipped); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	if stats.Files != len(want) || stats.Skipped[SkipIgnored] != 4 {
		t.Errorf("stats %+v", stats)
	}

	// With everything included, the ignored, binary and large files are scanned.
	n := 0
	_, err = s.ScanDir(context.Background(), root, &WalkOptions{IncludeIgnored: true, IncludeBinary: true}, func(fr FileResult) error {
		n += len(fr.Result.Detections)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 10 {
		t.Errorf("with everything included: %d detections, want 10", n)
	}
}

func TestScanDirStopsOnCallbackError(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 50; i++ {
		files[filepath.Join("d", string(rune('a'+i%26))+strconv.Itoa(i%10)+".txt")] = "x\n"
	}
	root := writeTree(t, files)
	stop := errors.New("stop")
	calls := 0
	_, err := New(nil).ScanDir(context.Background(), root, &WalkOptions{Workers: 2}, func(FileResult) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 {
		t.Errorf("err %v calls %d", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(nil).ScanDir(ctx, root, nil, func(FileResult) error { return nil }); !errors.Is(err, ErrCanceled) {
		t.Errorf("canceled walk: %v", err)
	}
	if _, err := New(nil).ScanDir(context.Background(), filepath.Join(root, "missing"), nil, func(FileResult) error { return nil }); err == nil {
		t.Error("missing root accepted")
	}
}

func TestScanReaderCap(t *testing.T) {
	s := New(nil)
	if _, err := s.ScanReader(context.Background(), strings.NewReader(strings.Repeat("a", 11)), 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err %v", err)
	}
	res, err := s.ScanReader(context.Background(), strings.NewReader("t="+validGitHub), 100)
	if err != nil || len(res.Detections) != 1 {
		t.Errorf("res %v err %v", res, err)
	}
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte(strings.Repeat("b", 50)), 0o644)
	if _, err := s.ScanFile(context.Background(), p, 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ScanFile err %v", err)
	}
	if _, err := s.ScanFile(context.Background(), p+"-missing", 10); err == nil || strings.Contains(err.Error(), "bbbb") {
		t.Errorf("ScanFile missing: %v", err)
	}
}

// --exclude globs skip files and whole directories, with .gitignore
// syntax, even when ignored files are included.
func TestScanDirExclude(t *testing.T) {
	secret := "TOKEN=" + validGitHub + "\n"
	root := writeTree(t, map[string]string{
		"a.txt":              secret,
		"dist/app.min.js":    secret,
		"src/app.min.js":     secret,
		"vendor/x/y.go":      secret,
		"src/vendor/z.go":    secret,
		"build/out.txt":      secret,
		"src/build/keep.txt": secret,
	})
	ex, err := NewPathFilter("*.min.js", "vendor/", "/build")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var skipped []string
	st, err := New(nil).ScanDir(context.Background(), root, &WalkOptions{Exclude: ex, IncludeIgnored: true,
		OnSkip: func(p, r string) { skipped = append(skipped, p+":"+r) }}, func(fr FileResult) error {
		got = append(got, fr.Path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.txt", "src/build/keep.txt"}, got); diff != "" {
		t.Errorf("scanned (-want +got):\n%s", diff)
	}
	if st.Skipped[SkipExcluded] != 5 {
		t.Errorf("skipped %v: %v", st.Skipped, skipped)
	}
	for _, bad := range []string{"", "  ", "!", "a\nb"} {
		if _, err := NewPathFilter(bad); err == nil {
			t.Errorf("pattern %q accepted", bad)
		}
	}
	if !ex.Excluded("deep/vendor/lib/file.go", false) || ex.Excluded("src/vendored.go", false) {
		t.Error("Excluded on paths")
	}
}
