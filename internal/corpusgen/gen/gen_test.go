package gen

import (
	"strings"
	"testing"
)

// TestChunkTruthLines checks that every truth line of a chunk holds what
// was planted: secrets carry their format's marker, decoys are non-empty.
func TestChunkTruthLines(t *testing.T) {
	text, truth := Chunk(5, 600_000)
	lines := strings.Split(text, "\n")
	if len(truth) < 10 {
		t.Fatalf("only %d plants", len(truth))
	}
	markers := map[string]string{"github_personal_access_token": "ghp_", "rsa_private_key": "-----BEGIN RSA PRIVATE KEY-----",
		"postgresql_connection_url": "postgres://", "slack_bot_token": "xoxb-", "openai_api_key": "T3BlbkFJ"}
	for _, tr := range truth {
		if tr.Line < 1 || tr.Line > len(lines) {
			t.Fatalf("line %d out of range", tr.Line)
		}
		l := lines[tr.Line-1]
		if strings.TrimSpace(l) == "" {
			t.Errorf("truth %+v points at an empty line", tr)
		}
		if m, ok := markers[tr.Type]; ok && !strings.Contains(l, m) {
			t.Errorf("truth %+v: line %q lacks %q", tr, l, m)
		}
	}
	again, _ := Chunk(5, 600_000)
	if again != text {
		t.Error("Chunk is not deterministic")
	}
}
