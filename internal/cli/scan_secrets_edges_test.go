package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// stdin is streamed, not capped: a secret after 6 MiB of text is found and
// every byte is counted in both summaries (it used to fail past 4 MiB and
// report 0 B).
func TestScanSecretsStdinStreamed(t *testing.T) {
	filler := strings.Repeat(strings.Repeat("a", 99)+"\n", 6<<20/100)
	in := filler + "TOKEN=" + ghToken + "\n"
	out, errs, code := run(t, in, "scan", "secrets", "--state-dir", t.TempDir(), "-")
	if code != ExitFindings || !strings.Contains(out, "-:62915:7") || !strings.Contains(errs, "(6.0 MiB)") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	out, _, _ = run(t, in, "scan", "secrets", "--json", "--state-dir", t.TempDir(), "-")
	var rep secretsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Stats.Bytes != int64(len(in)) || rep.Summary.Total != 1 {
		t.Errorf("json: %v bytes %d (want %d) total %d", err, rep.Stats.Bytes, len(in), rep.Summary.Total)
	}
}

// --verbose names each skipped file with its reason and the flag that
// changes it; --fail-on-skip fails the run when a file could not be
// scanned.
func TestScanSecretsVerboseAndFailOnSkip(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("x", 2000)), 0o644)
	os.WriteFile(filepath.Join(dir, "blob.bin"), []byte{0, 1, 2}, 0o644)
	os.WriteFile(filepath.Join(dir, "ok.txt"), []byte("nothing\n"), 0o644)
	state := t.TempDir()

	_, errs, code := run(t, "", "scan", "secrets", "--state-dir", state, "--max-file-size", "1KiB", "--verbose", dir)
	want := filepath.ToSlash(filepath.Join(dir, "big.txt")) + ": too_large (over --max-file-size 1.0 KiB)"
	if code != ExitOK || !strings.Contains(errs, "skipped "+want) || !strings.Contains(errs, "blob.bin: binary") {
		t.Errorf("--verbose: exit %d\n%s", code, errs)
	}
	_, errs, _ = run(t, "", "scan", "secrets", "--state-dir", state, "--max-file-size", "1KiB", dir)
	if strings.Contains(errs, "skipped "+filepath.ToSlash(dir)) {
		t.Errorf("skips named without --verbose:\n%s", errs)
	}
	_, errs, code = run(t, "", "scan", "secrets", "--state-dir", state, "--max-file-size", "1KiB", "--fail-on-skip", dir)
	if code != ExitError || !strings.Contains(errs, "1 files could not be scanned") {
		t.Errorf("--fail-on-skip: exit %d\n%s", code, errs)
	}
	// A binary file is skipped by design, not a failure.
	_, _, code = run(t, "", "scan", "secrets", "--state-dir", state, "--fail-on-skip", dir)
	if code != ExitOK {
		t.Errorf("--fail-on-skip with only a binary skipped: exit %d", code)
	}
	// A file named on the command line over the cap names the flag.
	_, errs, code = run(t, "", "scan", "secrets", "--state-dir", state, "--max-file-size", "1KiB", filepath.Join(dir, "big.txt"))
	if code != ExitError || !strings.Contains(errs, "larger than --max-file-size (1.0 KiB)") {
		t.Errorf("big file: exit %d %q", code, errs)
	}
}

// A UTF-16 file with a byte order mark is scanned, not skipped as binary.
func TestScanSecretsUTF16(t *testing.T) {
	dir := t.TempDir()
	u := utf16.Encode([]rune("$env:TOKEN = \"" + ghToken + "\"\r\n"))
	b := []byte{0xFF, 0xFE}
	for _, c := range u {
		b = append(b, byte(c), byte(c>>8))
	}
	os.WriteFile(filepath.Join(dir, "setup.ps1"), b, 0o644)
	out, errs, code := run(t, "", "scan", "secrets", "--state-dir", t.TempDir(), dir)
	if code != ExitFindings || !strings.Contains(out, "setup.ps1:1:15") || strings.Contains(errs, "binary") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}

// With HOME unset (and no state variables) nothing is written into the
// scanned tree: the key is for this run only. The fallback state
// directory used to be created in the working directory and then scanned.
func TestScanSecretsNoHomeWritesNoState(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "app.env"), []byte("TOKEN="+ghToken+"\n"), 0o644)
	t.Setenv("HOME", "")
	t.Setenv("WARDEN_STATE_DIR", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Chdir(dir)
	_, errs, code := run(t, "", "scan", "secrets", ".")
	if code != ExitFindings || !strings.Contains(errs, "fingerprints hold for this run only") {
		t.Errorf("exit %d\n%s", code, errs)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("the scan wrote into the scanned tree: %v", ents)
	}
	// An explicit state directory that does not exist yet inside the
	// scanned tree is not created either.
	_, _, _ = run(t, "", "scan", "secrets", "--state-dir", filepath.Join(dir, "st"), dir)
	if _, err := os.Stat(filepath.Join(dir, "st")); err == nil {
		t.Error("state directory created inside the scanned tree")
	}
}

// The JSON report carries both places of an AWS key pair, reported once.
func TestScanSecretsAWSPair(t *testing.T) {
	in := "aws_access_key_id = AKIARASZ7FPJWAYR6KNT\naws_secret_access_key = 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\n"
	out, _, _ := run(t, in, "scan", "secrets", "--json", "--state-dir", t.TempDir(), "-")
	var rep secretsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Summary.Total != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	d := rep.Files[0].Detections[0]
	if d.Type != "aws_credential_pair" || len(d.Parts) != 2 || d.Parts[0].Line != 1 || d.Parts[1].Line != 2 {
		t.Errorf("pair: %+v", d)
	}
	out, _, _ = run(t, in, "scan", "secrets", "--state-dir", t.TempDir(), "-")
	if !strings.Contains(out, "-:2:25 (key id at 1:21)") || strings.Contains(out, "aws_access_key_id") {
		t.Errorf("text:\n%s", out)
	}
}

// --exclude is repeatable and applies to walks, named files and history.
func TestScanSecretsExclude(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "testdata"), 0o755)
	os.WriteFile(filepath.Join(dir, "testdata", "fixture.env"), []byte("TOKEN="+ghToken+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "app.min.js"), []byte("t='"+ghToken+"'\n"), 0o644)
	state := t.TempDir()
	_, errs, code := run(t, "", "scan", "secrets", "--state-dir", state, "--exclude", "testdata/", "--exclude", "*.min.js", "--verbose", dir)
	if code != ExitOK || !strings.Contains(errs, "excluded by --exclude") || !strings.Contains(errs, "skipped 2 excluded") {
		t.Errorf("exit %d\n%s", code, errs)
	}
	_, _, code = run(t, "", "scan", "secrets", "--state-dir", state, "--exclude", "*.min.js", filepath.Join(dir, "app.min.js"))
	if code != ExitOK {
		t.Errorf("named excluded file: exit %d", code)
	}
	_, errs, code = run(t, "", "scan", "secrets", "--state-dir", state, "--exclude", "", dir)
	if code != ExitError || !strings.Contains(errs, "--exclude") {
		t.Errorf("empty glob: exit %d %q", code, errs)
	}
}
