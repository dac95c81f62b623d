package postgres

import (
	"testing"

	"github.com/warden-mcp/warden/credential"
	"github.com/warden-mcp/warden/credential/credentialtest"
)

func TestCredentials(t *testing.T) {
	testDSN(t)
	credentialtest.Run(t, func(t *testing.T) credentialtest.Opener {
		b := newBackend(t)
		return func(t *testing.T) credential.Store { return b.Instance(t).(*Store) }
	})
}
