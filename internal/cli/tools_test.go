package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

func TestFirstSentence(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Scan text. Then more.", "Scan text"},
		{"Metadata (security.txt, robots.txt) and paths. Sends requests.", "Metadata (security.txt, robots.txt) and paths"},
		{"Version v1.2 is served.", "Version v1.2 is served"},
		{"Probe paths, e.g. /.env and /.git. More.", "Probe paths, e.g. /.env and /.git"},
		{"No period at all", "No period at all"},
		{"Line one.\nLine two.", "Line one"},
	} {
		if got := firstSentence(c.in); got != c.want {
			t.Errorf("firstSentence(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// warden tools prints each description up to the end of its first
// sentence, not up to the first period (which "security.txt" has).
func TestToolsListsWholeFirstSentence(t *testing.T) {
	if edition != "full" {
		t.Skip("needs the website scan")
	}
	var out bytes.Buffer
	if code := Run(context.Background(), []string{"tools"}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "microdefend_scan_website") {
			if !strings.Contains(line, "security.txt, robots.txt") || !strings.HasSuffix(strings.TrimSpace(line), "each confirmed by content") {
				t.Errorf("description cut short: %q", line)
			}
			return
		}
	}
	t.Fatalf("microdefend_scan_website not listed:\n%s", out.String())
}
