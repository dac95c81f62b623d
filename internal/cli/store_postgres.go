//go:build postgres

package cli

import (
	"context"
	"fmt"

	"github.com/warden-mcp/warden/store/postgres"
)

// postgresBuilt: this build has the PostgreSQL store (build tag postgres).
const postgresBuilt = true

// openPostgres opens the PostgreSQL store of a postgres:// store.dsn.
func openPostgres(ctx context.Context, cfg Config) (limitsStore, func(), error) {
	st, err := postgres.Open(ctx, cfg.Store.DSN, &postgres.Options{Schema: cfg.Store.Schema, MaxConns: cfg.Store.MaxConns})
	if err != nil {
		return nil, nil, fmt.Errorf("store: %w", err)
	}
	return st, st.Close, nil
}
