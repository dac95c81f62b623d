package cli

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --archives scans inside archives, in a directory or named on the
// command line, and names an entry by its path inside.
func TestScanSecretsArchives(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("config/app.env")
	w.Write([]byte("TOKEN=" + ghToken + "\n"))
	zw.Close()
	os.WriteFile(filepath.Join(dir, "release.zip"), b.Bytes(), 0o644)
	state := t.TempDir()

	out, _, code := run(t, "", "scan", "secrets", "--state-dir", state, dir)
	if code != 0 || strings.Contains(out, "release.zip") {
		t.Fatalf("without --archives: exit %d %s", code, out)
	}
	for _, arg := range []string{dir, filepath.Join(dir, "release.zip")} {
		out, errOut, code := run(t, "", "scan", "secrets", "--archives", "--state-dir", state, arg)
		if code != ExitFindings || !strings.Contains(out, "release.zip!config/app.env:1:7") {
			t.Errorf("--archives %s: exit %d\n%s%s", arg, code, out, errOut)
		}
	}
}
