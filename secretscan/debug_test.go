package secretscan

import (
	"context"
	"os"
	"testing"
)

func TestDebugText(t *testing.T) {
	text := os.Getenv("KS_TEXT")
	if text == "" {
		t.Skip()
	}
	s := New(&Options{Identifiers: true})
	res, _ := s.Scan(context.Background(), text)
	for _, d := range res.Detections {
		t.Logf("%v %q", d, d.secret.v)
	}
}

func TestDebugAssign(t *testing.T) {
	text := os.Getenv("KS_TEXT")
	if text == "" {
		t.Skip()
	}
	for i := 0; i+4 <= len(text); i++ {
		for _, kw := range []string{"password", "secret", "token", "key", "pass"} {
			if i+len(kw) <= len(text) && text[i:i+len(kw)] == kw {
				a, ok := extractAssignment(text, i, i+len(kw))
				t.Logf("kw %s at %d: ok=%v %+v name=%q", kw, i, ok, a, text[a.nameStart:a.nameEnd])
				if ok {
					named, strong := classifyName(text[a.nameStart:a.nameEnd], assignPassword)
					h, vok := genericValueOK(a, text, assignPassword, strong)
					t.Logf("  named=%v strong=%v value=%q ok=%v h=%.2f", named, strong, text[a.valStart:a.valEnd], vok, h)
				}
			}
		}
	}
}
