package sqlite

import (
	"testing"

	"github.com/warden-mcp/warden/statestore"
	"github.com/warden-mcp/warden/statestore/statestoretest"
)

func TestProtocolState(t *testing.T) {
	statestoretest.Run(t, func(t *testing.T) statestoretest.Opener {
		dir := t.TempDir()
		return func(t *testing.T) statestore.Store {
			s, err := Open(t.Context(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	})
}
