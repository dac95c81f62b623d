package cli

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/warden-mcp/warden/redact"
)

// newLogger returns a text logger on w at the named level. No credential
// reaches it: the message and every text attribute (an error's cause
// among them, which may quote a tool's arguments) pass through the
// credential pass first (redact.NewLogHandler), whatever the privacy mode.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	switch strings.ToLower(level) {
	case "debug":
		l = slog.LevelDebug
	case "info", "":
		l = slog.LevelInfo
	case "warn", "warning":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		return nil, fmt.Errorf("unknown log level %q (want debug, info, warn or error)", level)
	}
	return slog.New(redact.NewLogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}), nil)), nil
}
