package errcode

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"testing"
)

func TestErrorHidesCause(t *testing.T) {
	cause := fmt.Errorf("open /srv/secret/path: %w", fs.ErrNotExist)
	e := Wrap("read_failed", "the file cannot be read", cause)
	if got := e.Error(); got != "read_failed: the file cannot be read" {
		t.Fatalf("Error() = %q", got)
	}
	if !errors.Is(e, fs.ErrNotExist) {
		t.Fatal("the cause is not reachable through errors.Is")
	}
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("x", "err", e)
	if !strings.Contains(b.String(), "/srv/secret/path") {
		t.Fatalf("LogValue dropped the cause: %s", b.String())
	}
}

func TestIsMatchesCode(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", Wrap("timeout", "request timed out", errors.New("i/o")))
	if !errors.Is(err, New("timeout", "")) {
		t.Fatal("a code-only target must match")
	}
	if errors.Is(err, New("blocked_ip", "")) {
		t.Fatal("another code must not match")
	}
	if errors.Is(err, New("timeout", "another message")) {
		t.Fatal("a target with another message must not match")
	}
	if CodeOf(err) != "timeout" || CodeOf(errors.New("plain")) != "" || CodeOf(nil) != "" {
		t.Fatal("CodeOf")
	}
}

func TestWithDetailCopies(t *testing.T) {
	a := New("rate_limit_exceeded", "slow down")
	b := a.WithDetail("retryAfterSeconds", 3)
	if a.Details != nil || b.Details["retryAfterSeconds"] != 3 {
		t.Fatalf("WithDetail changed its receiver or lost the detail: %v %v", a.Details, b.Details)
	}
}

func TestFindWalksTheTree(t *testing.T) {
	inner := Wrap("blocked_ip", "target address is not allowed", errors.New("10.0.0.1"))
	outer := Wrap("site_unreachable", "the site could not be reached", inner)
	joined := errors.Join(errors.New("other"), fmt.Errorf("ctx: %w", outer))
	mine := func(c string) bool { return c == "blocked_ip" }
	if e, ok := Find(joined, mine); !ok || e != inner {
		t.Fatalf("Find = %v, %v", e, ok)
	}
	if _, ok := Find(joined, func(string) bool { return false }); ok {
		t.Fatal("found an error no code of which was owned")
	}
	if _, ok := Find(nil, mine); ok {
		t.Fatal("found an error in nil")
	}
}
