package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	secret := "glpat-" + "Zr4vQm8TkL2xWp7NbY3c"
	os.WriteFile(filepath.Join(dir, "ci.yml"), []byte("x: 1\ntoken: "+secret+"\n"), 0o644)
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{dir}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), secret[8:]) {
		t.Fatal("output carries the secret")
	}
	var got struct {
		File   string `json:"file"`
		Line   int    `json:"line"`
		RuleID string `json:"rule_id"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if got.File != "ci.yml" || got.Line != 2 || got.RuleID != "gitlab-personal-access-token" {
		t.Errorf("got %+v", got)
	}
	if !strings.Contains(errb.String(), "1 files") {
		t.Errorf("summary: %s", errb.String())
	}
	if err := run(context.Background(), nil, &out, &errb); err == nil {
		t.Error("missing DIR accepted")
	}
}
