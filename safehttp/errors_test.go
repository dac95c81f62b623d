package safehttp

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/errcode"
)

func TestErrorCode(t *testing.T) {
	blocked := newError(CodeBlockedIP, &BlockedError{Addr: netip.MustParseAddr("10.0.0.1"), Reason: ReasonPrivate})
	tests := []struct {
		name string
		err  error
		want Code
	}{
		{"nil", nil, ""},
		{"own", blocked, CodeBlockedIP},
		{"wrapped by net/http", &url.Error{Op: "Get", URL: "http://10.0.0.1/", Err: blocked}, CodeBlockedIP},
		{"wrapped with %w", fmt.Errorf("scan: %w", newError(CodeTooManyRedirects, nil)), CodeTooManyRedirects},
		{"deadline", context.DeadlineExceeded, CodeTimeout},
		{"deadline through url.Error", &url.Error{Op: "Get", URL: "http://x/", Err: context.DeadlineExceeded}, CodeTimeout},
		{"unknown CA", x509.UnknownAuthorityError{}, CodeTLSFailed},
		{"foreign", errors.New("boom"), CodeScanFailed},
	}
	for _, tt := range tests {
		if got := ErrorCode(tt.err); got != tt.want {
			t.Errorf("%s: ErrorCode(%v) = %q, want %q", tt.name, tt.err, got, tt.want)
		}
	}
}

// TestErrorText: the public text is the code and a fixed message; the
// address is only in the cause, reachable with errors.As.
func TestErrorText(t *testing.T) {
	err := error(newError(CodeBlockedIP, &BlockedError{Addr: netip.MustParseAddr("::ffff:169.254.169.254"), Reason: ReasonIPv4Mapped, AtDial: true}))
	if got, want := err.Error(), "blocked_ip: target address is not allowed"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var b *BlockedError
	if !errors.As(err, &b) || b.Reason != ReasonIPv4Mapped {
		t.Fatalf("errors.As BlockedError: %v", err)
	}
	if msg := b.Error(); !strings.Contains(msg, "169.254.169.254") || !strings.Contains(msg, "dial") {
		t.Errorf("BlockedError text %q lacks the address or stage", msg)
	}
	if !errors.Is(err, errcode.New(string(CodeBlockedIP), "")) || errors.Is(err, errcode.New(string(CodeBlockedPort), "")) {
		t.Error("errors.Is does not match on the code alone")
	}
	for code := range publicMessages {
		if strings.ContainsAny(string(code), " -ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			t.Errorf("code %q is not snake_case", code)
		}
	}
}
