package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

const ghToken = "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"

func TestScanSecrets(t *testing.T) {
	dir := t.TempDir()
	state := t.TempDir()
	os.WriteFile(filepath.Join(dir, "app.env"), []byte("A=1\nTOKEN="+ghToken+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "allowed.env"), []byte("TOKEN="+ghToken+" # keysweep:allow\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("ignored/\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "ignored"), 0o755)
	os.WriteFile(filepath.Join(dir, "ignored", "x.env"), []byte("TOKEN="+ghToken+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "blob.bin"), append([]byte{0, 1, 2}, []byte(ghToken)...), 0o644)

	out, _, code := run(t, "", "scan", "secrets", "--state-dir", state, dir)
	if code != ExitFindings {
		t.Fatalf("exit %d, want 1; %s", code, out)
	}
	if !strings.Contains(out, "app.env:2:7") || strings.Contains(out, "allowed.env") || strings.Contains(out, "ignored/") || strings.Contains(out, "blob.bin") {
		t.Errorf("text report:\n%s", out)
	}
	if strings.Contains(out, ghToken[4:16]) {
		t.Error("the secret was printed")
	}

	out, _, code = run(t, "", "scan", "secrets", "--json", "--state-dir", state, "--include-ignored", dir)
	var rep secretsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != ExitFindings {
		t.Fatalf("json: %v %d %s", err, code, out)
	}
	if rep.Summary.Total != 2 || rep.Stats.Skipped["binary"] != 1 {
		t.Errorf("json summary %+v stats %+v", rep.Summary, rep.Stats)
	}
	if strings.Contains(out, ghToken[4:16]) {
		t.Error("the secret reached the JSON")
	}

	out, _, _ = run(t, "", "scan", "secrets", "--sarif", "--state-dir", state, dir)
	var sarif struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &sarif); err != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 1 {
		t.Errorf("sarif: %v %s", err, out)
	}

	// A baseline of accepted fingerprints silences them; exit 0.
	base := filepath.Join(t.TempDir(), "baseline.txt")
	_, _, _ = run(t, "", "scan", "secrets", "--state-dir", state, "--write-baseline", base, dir)
	out, _, code = run(t, "", "scan", "secrets", "--state-dir", state, "--baseline", base, dir)
	if code != ExitOK || strings.Contains(out, "github") {
		t.Errorf("with baseline: exit %d\n%s", code, out)
	}

	// stdin, and --fail-on above the finding's severity.
	_, _, code = run(t, "TOKEN="+ghToken+"\n", "scan", "secrets", "--state-dir", state, "--fail-on", "critical", "-")
	if code != ExitOK {
		t.Errorf("fail-on critical with a high finding: exit %d", code)
	}
	_, _, code = run(t, "nothing here\n", "scan", "secrets", "--state-dir", state, "-")
	if code != ExitOK {
		t.Errorf("clean stdin: exit %d", code)
	}
	_, errs, code := run(t, "", "scan", "secrets", "--fail-on", "bogus", dir)
	if code != ExitError || !strings.Contains(errs, "--fail-on") {
		t.Errorf("bad flag: %d %s", code, errs)
	}
}

func TestScanSiteRefusesPrivateTargets(t *testing.T) {
	_, errs, code := run(t, "", "scan", "site", "--state-dir", t.TempDir(), "http://127.0.0.1/")
	if code != ExitError || !strings.Contains(errs, "blocked_ip") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestScanSecretsIdentifiers checks that identifiers (an ARN here) are
// reported but do not trip --fail-on, and that --no-identifiers leaves
// them out.
func TestScanSecretsIdentifiers(t *testing.T) {
	state := t.TempDir()
	const text = `"Resource": "arn:aws:s3:::corp-sz09p1yf/*"` + "\n"
	out, _, code := run(t, text, "scan", "secrets", "--state-dir", state, "-")
	if code != ExitOK || !strings.Contains(out, "aws_arn") {
		t.Errorf("identifier only: exit %d, want 0 with the finding listed\n%s", code, out)
	}
	out, _, code = run(t, text+"TOKEN="+ghToken+"\n", "scan", "secrets", "--state-dir", state, "-")
	if code != ExitFindings {
		t.Errorf("identifier and a token: exit %d, want 1\n%s", code, out)
	}
	out, _, code = run(t, text, "scan", "secrets", "--state-dir", state, "--no-identifiers", "-")
	if code != ExitOK || strings.Contains(out, "aws_arn") {
		t.Errorf("--no-identifiers: exit %d\n%s", code, out)
	}
}

func TestScanSecretsExplainFilters(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "app.env"), []byte("DB_PASSWORD=\"letmein\"\nTOKEN="+ghToken+"\n"), 0o644)
	state := t.TempDir()

	out, stderr, code := run(t, "", "scan", "secrets", "--state-dir", state, "--explain-filters", dir)
	if code != ExitFindings || !strings.Contains(out, "app.env:2:7") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	want := "app.env:1:14: rejected by placeholder-word: generic-password (password, 7 characters)\n"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr:\n%s\nwant a line %q", stderr, want)
	}
	if strings.Contains(stderr+out, "letmein") || strings.Contains(stderr+out, ghToken[4:16]) {
		t.Error("a value was printed")
	}

	// Without the flag, nothing of the kind; the report is the same.
	out2, stderr, _ := run(t, "", "scan", "secrets", "--state-dir", state, dir)
	if strings.Contains(stderr, "rejected by") || out2 != out {
		t.Errorf("without --explain-filters: stderr %q, report changed:\n%s", stderr, out2)
	}
}

// TestEngineErrorCause: an engine error prints its code and public
// message, and the cause too, since the operator at the terminal may see
// it.
func TestEngineErrorCause(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "baseline.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	_, stderr, code := run(t, "", "scan", "secrets", "--state-dir", t.TempDir(), "--baseline", bad, "-")
	want := "warden: --baseline: invalid_baseline: baseline is not valid JSON (unexpected end of JSON input)\n"
	if code != ExitError || stderr != want {
		t.Errorf("exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// A mistyped subcommand under a command that only groups others fails with
// exit 2 and names the command it probably meant; it used to print the
// group's help and exit 0, so a typo in CI passed silently.
func TestUnknownSubcommandExits2(t *testing.T) {
	for _, args := range [][]string{
		{"scan", "secret", "."},
		{"scan", "bogus"},
		{"credentials", "lst"},
		{"findings", "exprt"},
		{"bogus"},
	} {
		_, errs, code := run(t, "", args...)
		if code != ExitError || !strings.Contains(errs, "unknown command") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
	_, errs, _ := run(t, "", "scan", "secret", ".")
	if !strings.Contains(errs, `"secrets"`) {
		t.Errorf("no suggestion: %q", errs)
	}
	out, _, code := run(t, "", "scan")
	if code != ExitOK || !strings.Contains(out, "secrets") {
		t.Errorf("bare group: exit %d\n%s", code, out)
	}
}
