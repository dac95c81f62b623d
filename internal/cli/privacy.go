package cli

import (
	"log/slog"

	"github.com/warden-mcp/warden/redact"
)

// newPrivacy builds the privacy stage the configuration asks for: the
// server's mode, and a mode per tenant where the tenants block sets one.
// key keys strict mode's pseudonyms; nil makes one for this process only.
func newPrivacy(cfg Config, key []byte, logger *slog.Logger) (*redact.Stage, error) {
	mode, err := redact.ParseMode(cfg.Privacy)
	if err != nil {
		return nil, err
	}
	tenants := map[string]redact.Mode{}
	for tenant, tc := range cfg.Tenants {
		if tc.Privacy == "" {
			continue
		}
		if tenants[tenant], err = redact.ParseMode(tc.Privacy); err != nil {
			return nil, err
		}
	}
	return redact.NewStage(&redact.StageOptions{Mode: mode, Tenants: tenants, PseudonymKey: key, Logger: logger})
}
