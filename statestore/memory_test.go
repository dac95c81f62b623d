package statestore_test

import (
	"testing"

	"github.com/warden-mcp/warden/statestore"
	"github.com/warden-mcp/warden/statestore/statestoretest"
)

func TestMemory(t *testing.T) {
	statestoretest.Run(t, func(t *testing.T) statestoretest.Opener {
		m := statestore.NewMemory()
		return func(*testing.T) statestore.Store { return m }
	})
}
