package toolset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"github.com/warden-mcp/warden/internal/repotest"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/warden-mcp/warden/secretscan"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/tooltest"
)

func registry(t *testing.T, logs *bytes.Buffer) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry()
	deps := Deps{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), FingerprintKey: []byte("test-key-0123456789abcdef0123456")}
	if err := Register(reg, deps, Selection{Edition: EditionFull}); err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestBuiltinsPassTheAuthorHarness(t *testing.T) {
	var logs bytes.Buffer
	tooltest.Check(t, registry(t, &logs), &tooltest.Options{Samples: map[string][]string{
		"keysweep_scan_text": {`{"text":"token = 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"}`, `{"text":"nothing to see"}`},
	}})
}

func TestScanTextContract(t *testing.T) {
	var logs bytes.Buffer
	reg := registry(t, &logs)
	cases := []struct {
		args, code string
	}{
		{`{"text":""}`, "invalid_text"},
		{`{"text":5}`, "invalid_text"},
		{`{"text":null}`, "invalid_text"},
		{`{}`, "invalid_text"},
		{`{"text":"` + strings.Repeat("é", 256001) + `"}`, "text_too_large"},
	}
	for _, c := range cases {
		rep, err := tooltest.Invoke(context.Background(), reg, "keysweep_scan_text", c.args, nil)
		if err != nil || rep.Result == nil {
			t.Fatalf("%.40s: %v", c.args, err)
		}
		if got := rep.Result.ErrorCode(); got != c.code {
			t.Errorf("%.40s: code %q, want %q", c.args, got, c.code)
		}
	}
	// 256,000 Unicode characters (512,000 bytes) is within the limit.
	rep, err := tooltest.Invoke(context.Background(), reg, "keysweep_scan_text", `{"text":"`+strings.Repeat("é", 256000)+`"}`, nil)
	if err != nil || rep.Result.IsError {
		t.Fatalf("256,000 characters refused: %v %.200s", err, rep.Raw)
	}
	var out ScanTextResult
	if err := json.Unmarshal(rep.Result.StructuredContent, &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != "completed" || out.RiskLevel != "none" || out.TextLength != 256000 || out.Summary.Total != 0 || out.Detections == nil {
		t.Errorf("clean result: %+v", out)
	}

	text := "db: postgres://app:Zq8vLr2TnW4xKp7Ym3@db.prod-cluster.net:5432/app\ngh = 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\n"
	rep, err = tooltest.Invoke(context.Background(), reg, "keysweep_scan_text", mustJSON(map[string]string{"text": text}), nil)
	if err != nil || rep.Result.IsError {
		t.Fatalf("scan: %v %s", err, rep.Raw)
	}
	out = ScanTextResult{}
	if err := json.Unmarshal(rep.Result.StructuredContent, &out); err != nil {
		t.Fatal(err)
	}
	if out.Summary.Total < 2 || out.RiskLevel == "none" || out.ConfidenceScore <= 0 {
		t.Fatalf("findings: %+v", out)
	}
	for _, d := range out.Detections {
		if !strings.HasPrefix(d.Fingerprint, "ks1_") || d.ValueLength == 0 || d.Line == 0 || d.Column == 0 {
			t.Errorf("detection fields: %+v", d)
		}
	}
	if out.Detections[0].Line != 1 || out.Detections[len(out.Detections)-1].Line != 2 {
		t.Errorf("order or lines: %+v", out.Detections)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// leaks returns a window of at least 12 characters of the example that
// appears in out, ignoring windows that are plain words (rule types and
// field names are made of those).
func leaks(example string, out []byte) string {
	const w = 12
	r := []rune(example)
	for i := 0; i+w <= len(r); i++ {
		win := string(r[i : i+w])
		plain := true
		for _, c := range win {
			if !(unicode.IsLower(c) || c == '_' || c == ' ') {
				plain = false
				break
			}
		}
		if !plain && bytes.Contains(out, []byte(win)) {
			return win
		}
	}
	return ""
}

// TestNoSecretLeaves runs every positive example of the shared test data
// through the tool and checks that no piece of it appears in the
// response, the notifications or the server log.
func TestNoSecretLeaves(t *testing.T) {
	dir := filepath.Join(repotest.Root(t), "..", "shared", "data")
	files, _ := filepath.Glob(filepath.Join(dir, "secret-examples-*.jsonl"))
	if len(files) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("no shared test data in %s", dir)
		}
		t.Skip("shared test data not found beside the repository (README: Tests and their data)")
	}
	var logs bytes.Buffer
	reg := registry(t, &logs)
	n, found := 0, 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ex struct{ Kind, Text string }
			if err := json.Unmarshal(sc.Bytes(), &ex); err != nil || ex.Kind != "positive" || strings.TrimSpace(ex.Text) == "" {
				continue
			}
			n++
			logs.Reset()
			rep, err := tooltest.Invoke(context.Background(), reg, "keysweep_scan_text", mustJSON(map[string]string{"text": ex.Text}), nil)
			if err != nil {
				t.Fatal(err)
			}
			var all bytes.Buffer
			all.Write(rep.Raw)
			for _, nt := range rep.Notifications {
				all.Write(nt)
			}
			all.Write(logs.Bytes())
			// Type names are the tool's own vocabulary; an example may
			// contain one ("client_secret") without leaking anything.
			checked := all.Bytes()
			for _, r := range secretscan.Rules() {
				checked = bytes.ReplaceAll(checked, []byte(r.Type), nil)
			}
			if w := leaks(ex.Text, checked); w != "" {
				t.Errorf("%s: a piece of the example reached the output (%d chars)", filepath.Base(f), len(w))
			}
			if !rep.Result.IsError && !strings.Contains(string(rep.Result.StructuredContent), `"total":0`) {
				found++
			}
		}
		fh.Close()
	}
	if n < 1000 {
		t.Fatalf("only %d positive examples read", n)
	}
	t.Logf("%d positive examples, %d with findings, no leak", n, found)
}
