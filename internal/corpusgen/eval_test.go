package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/internal/corpusgen/gen"
	"github.com/warden-mcp/warden/secretscan"
)

var evalSize = flag.String("eval.size", "4MB", "corpus size for TestEvaluateKeySweep (e.g. 100MB)")

// TestEvaluateKeySweep generates a corpus, scans it with the engine and
// reports recall and false findings; go test ./internal/corpusgen -run
// Evaluate -v -eval.size 100MB runs it at full size.
func TestEvaluateKeySweep(t *testing.T) {
	size, err := parseSize(*evalSize)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var truth []gen.Truth
	err = gen.Generate(gen.Options{Seed: 7, Size: size}, func(name string) (io.WriteCloser, error) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		return os.Create(p)
	}, func(tr gen.Truth) error { truth = append(truth, tr); return nil })
	if err != nil {
		t.Fatal(err)
	}
	var findings []finding
	s := secretscan.New(nil)
	_, err = s.ScanDir(context.Background(), dir, nil, func(fr secretscan.FileResult) error {
		for _, d := range fr.Result.Detections {
			findings = append(findings, finding{fr.Path, d.Line, d.RuleID})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := evaluate(truth, findings)
	var b strings.Builder
	rep.write(&b, "keysweep")
	t.Log("\n" + b.String())
	if rep.Secrets < 50 || rep.Decoys < 50 {
		t.Fatalf("corpus too small: %d secrets, %d decoys", rep.Secrets, rep.Decoys)
	}
	if rep.Recall() < 0.95 {
		t.Errorf("recall %.3f < 0.95; missed e.g. %v", rep.Recall(), rep.MissedExamples)
	}
	if rep.Flagged*100 > rep.Decoys {
		t.Errorf("%d of %d decoys flagged", rep.Flagged, rep.Decoys)
	}
	if rep.Unplanted*200 > rep.Findings {
		t.Errorf("%d findings on unplanted lines", rep.Unplanted)
	}
}

func TestEvaluateCounts(t *testing.T) {
	truth := []gen.Truth{
		{File: "a.go", Line: 3, Type: "x"},
		{File: "a.go", Line: 9, Type: "y"},
		{File: "b.env", Line: 1, Type: "decoy", IsDecoy: true, Kind: "uuid"},
	}
	rep := evaluate(truth, []finding{{"a.go", 3, "r"}, {"b.env", 1, "r"}, {"b.env", 7, "r"}})
	got := [5]int{rep.Secrets, rep.Found, rep.Decoys, rep.Flagged, rep.Unplanted}
	if diff := cmp.Diff([5]int{2, 1, 1, 1, 1}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReadFindings(t *testing.T) {
	dir := t.TempDir()
	ks := filepath.Join(dir, "ks.jsonl")
	os.WriteFile(ks, []byte(`{"file":"d000/f00001.go","line":12,"rule_id":"github-ghp"}`+"\n"), 0o644)
	gl := filepath.Join(dir, "gl.json")
	os.WriteFile(gl, []byte(`[{"File":"/tmp/c/d000/f00001.go","StartLine":12,"RuleID":"github-pat"}]`), 0o644)
	a, err := readFindings(ks, "keysweep", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := readFindings(gl, "gitleaks", "/tmp/c")
	if err != nil {
		t.Fatal(err)
	}
	if a[0].File != b[0].File || a[0].Line != b[0].Line {
		t.Errorf("%v vs %v", a, b)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"100MB": 100e6, "4KiB": 4096, "1.5GB": 1.5e9, "123": 123} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("%s: %d %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "MB", "-1MB", "x"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRunWritesCorpus(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-out", dir, "-size", "300KB", "-seed", "3"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	truth, err := readTruth(dir + ".truth.jsonl")
	if err != nil || len(truth) == 0 {
		t.Fatalf("truth %d %v", len(truth), err)
	}
	// Deterministic: the same seed gives the same bytes.
	dir2 := filepath.Join(t.TempDir(), "c")
	run(context.Background(), []string{"-out", dir2, "-size", "300KB", "-seed", "3"}, io.Discard, io.Discard)
	a, _ := os.ReadFile(filepath.Join(dir, "d000", "f00000.go"))
	b, _ := os.ReadFile(filepath.Join(dir2, "d000", "f00000.go"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("corpus not deterministic")
	}
}
