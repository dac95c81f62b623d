//go:build !postgres

package cli

import (
	"context"
	"errors"
)

// postgresBuilt: this build has the PostgreSQL store (build tag postgres).
// The driver and its dependencies are a sixth of the binary and serve only
// deployments of several replicas, so they are built in on request.
const postgresBuilt = false

// errNoPostgres answers a postgres:// store.dsn in a build without the store.
var errNoPostgres = errors.New("store.dsn: this warden was built without the PostgreSQL store; rebuild it with -tags postgres (docs/operations-storage.md)")

// openPostgres refuses: this build has no PostgreSQL store.
func openPostgres(context.Context, Config) (limitsStore, func(), error) {
	return nil, nil, errNoPostgres
}
