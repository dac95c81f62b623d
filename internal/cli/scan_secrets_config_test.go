package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const acmeConfig = `exclude:
  - fixtures/
disable:
  - generic-password
allow:
  - regex: '^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$'
    reason: the public demo token of our docs
rules:
  - id: acme-internal-token
    description: ACME's service tokens
    keywords: [acme_tok_]
    regex: '\b(acme_tok_[A-Za-z0-9]{32})\b'
    severity: critical
    entropy: 3.5
    examples:
      match: ["ACME=acme_tok_9fK2mQ7xLp4Rz8Vn1Bc6Hd3Jw5Ts0Ya2"]
      no_match: ["acme_tok_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]
`

// A repository's .keysweep.yaml adds its own token format, excludes its
// fixtures, and allows a documented value; the JSON summary counts what
// was suppressed.
func TestScanSecretsRepositoryConfig(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, ".keysweep.yaml"), []byte(acmeConfig), 0o644)
	os.WriteFile(filepath.Join(dir, "svc.env"), []byte("ACME_TOKEN=acme_tok_Q1w2E3r4T5y6U7i8O9p0AsDfGhJkLzXc\nDEMO="+ghToken+"\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "fixtures"), 0o755)
	os.WriteFile(filepath.Join(dir, "fixtures", "x.env"), []byte("ACME_TOKEN=acme_tok_Z9x8C7v6B5n4M3l2K1j0HgFdSaPoIuYt\n"), 0o644)
	out, errOut, code := run(t, "", "scan", "secrets", "--json", "--state-dir", state, dir)
	if code != ExitFindings {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	var rep secretsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 1 || len(rep.Files[0].Detections) != 1 || rep.Files[0].Detections[0].RuleID != "acme-internal-token" ||
		rep.Files[0].Detections[0].Severity.String() != "critical" {
		t.Fatalf("findings %+v", rep.Files)
	}
	// Excluded: fixtures/ and the configuration itself.
	if rep.Summary.Suppressed != 1 || rep.Stats.Skipped["excluded"] != 2 {
		t.Errorf("suppressed %d, skipped %v", rep.Summary.Suppressed, rep.Stats.Skipped)
	}
}

func TestScanSecretsConfigErrorsNameTheFileAndRule(t *testing.T) {
	for name, cfg := range map[string]string{
		"unknown key":      "exclud: [x]\n",
		"no reason":        "allow:\n  - regex: 'x'\n",
		"bad severity":     strings.Replace(acmeConfig, "severity: critical", "severity: urgent", 1),
		"example not seen": strings.Replace(acmeConfig, `match: ["ACME=acme_tok_9fK2mQ7xLp4Rz8Vn1Bc6Hd3Jw5Ts0Ya2"]`, `match: ["nothing here"]`, 1),
		"unknown rule id":  "disable: [no-such-rule]\n",
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, ".keysweep.yaml"), []byte(cfg), 0o644)
		_, errOut, code := run(t, "", "scan", "secrets", "--state-dir", t.TempDir(), dir)
		if code != ExitError || !strings.Contains(errOut, ".keysweep.yaml") {
			t.Errorf("%s: exit %d, stderr %q", name, code, errOut)
		}
	}
}

// A baseline written with one machine's key silences the same findings
// with another's, and says how many of its entries matched.
func TestScanSecretsBaselineIsPortable(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "app.env"), []byte("TOKEN="+ghToken+"\npassword = \"Tr0ub4dor&3-horse-battery\"\n"), 0o644)
	base := filepath.Join(t.TempDir(), "baseline.json")
	if _, errOut, code := run(t, "", "scan", "secrets", "--state-dir", t.TempDir(), "--write-baseline", base, dir); code != ExitFindings {
		t.Fatalf("first scan: exit %d %s", code, errOut)
	}
	data, _ := os.ReadFile(base)
	if strings.Contains(string(data), ghToken[4:]) || strings.Contains(string(data), "Tr0ub4dor") {
		t.Fatal("the baseline holds a secret")
	}
	out, errOut, code := run(t, "", "scan", "secrets", "--json", "--state-dir", t.TempDir(), "--baseline", base, dir)
	if code != 0 {
		t.Fatalf("another machine: exit %d %s %s", code, out, errOut)
	}
	var rep secretsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Total != 0 || rep.Baseline == nil || !rep.Baseline.Portable || rep.Baseline.Matched != rep.Baseline.Entries || rep.Baseline.Entries < 2 {
		t.Errorf("summary %+v baseline %+v", rep.Summary, rep.Baseline)
	}
	// The secret removed: its entry matches nothing, and the scan says so.
	os.WriteFile(filepath.Join(dir, "app.env"), []byte("TOKEN=\n"), 0o644)
	_, errOut, _ = run(t, "", "scan", "secrets", "--state-dir", t.TempDir(), "--baseline", base, dir)
	if !strings.Contains(errOut, "baseline entries matched no finding") {
		t.Errorf("no warning for stale entries: %s", errOut)
	}
}
