package postgres

import (
	"testing"

	"github.com/warden-mcp/warden/statestore"
	"github.com/warden-mcp/warden/statestore/statestoretest"
)

func TestProtocolState(t *testing.T) {
	testDSN(t)
	statestoretest.Run(t, func(t *testing.T) statestoretest.Opener {
		b := newBackend(t)
		return func(t *testing.T) statestore.Store { return b.Instance(t).(*Store) }
	})
}
