package redact

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// Hide finds a credential glued to the word before it, which Text's rules
// do not, in every mode (Off reads as Balanced through NewLogHandler).
func TestHide(t *testing.T) {
	r := newTest(t, Balanced)
	for in, want := range map[string]string{
		"tok_" + ghToken:            "tok_[REDACTED:github_personal_access_token]",
		"/tmp/x" + ghToken + ".bin": "/tmp/x[REDACTED:github_personal_access_token].bin",
		ghToken + "_key":            "[REDACTED:github_personal_access_token]_key",
		"plain words, no secret":    "plain words, no secret",
	} {
		if got := r.Hide(in); got != want {
			t.Errorf("Hide(%q) = %q; want %q", in, got, want)
		}
	}
	if r.Credential("get_"+ghToken) != "github_personal_access_token" || r.Credential("sub_401000") != "" {
		t.Error("Credential")
	}
}

// A log line keeps no credential: in the message, a string, an error, a
// group, or attributes added with With.
func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewLogHandler(slog.NewTextHandler(&buf, nil), newTest(t, Off)))
	log.With("arg", "path=/x/"+ghToken).Warn("failed "+ghToken, "cause", errors.New("open tok_"+ghToken+": no such file"),
		slog.Group("g", "v", ghToken), "n", 3, "list", []string{ghToken})
	out := buf.String()
	if strings.Contains(out, ghToken[4:12]) || strings.Count(out, "[REDACTED:github_personal_access_token]") != 5 || !strings.Contains(out, "n=3") {
		t.Errorf("log: %s", out)
	}
}

// BenchmarkLogLine is the cost the log handler adds to an HTTP request's
// log line (message, correlation id, method, path, MCP method).
func BenchmarkLogLine(b *testing.B) {
	log := slog.New(NewLogHandler(slog.NewTextHandler(io.Discard, nil), nil))
	b.ReportAllocs()
	for b.Loop() {
		log.LogAttrs(context.Background(), slog.LevelInfo, "http request", slog.String("correlation_id", "c-7f3a9b2e41d05c88"),
			slog.String("method", "POST"), slog.String("path", "/mcp"), slog.Int("status", 200), slog.String("mcp_method", "tools/call"))
	}
}

// BenchmarkLogLinePlain is the same line without the handler.
func BenchmarkLogLinePlain(b *testing.B) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b.ReportAllocs()
	for b.Loop() {
		log.LogAttrs(context.Background(), slog.LevelInfo, "http request", slog.String("correlation_id", "c-7f3a9b2e41d05c88"),
			slog.String("method", "POST"), slog.String("path", "/mcp"), slog.Int("status", 200), slog.String("mcp_method", "tools/call"))
	}
}
