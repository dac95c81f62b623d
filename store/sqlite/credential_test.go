package sqlite

import (
	"testing"

	"github.com/warden-mcp/warden/credential"
	"github.com/warden-mcp/warden/credential/credentialtest"
)

func TestCredentials(t *testing.T) {
	credentialtest.Run(t, func(t *testing.T) credentialtest.Opener {
		dir := t.TempDir()
		return func(t *testing.T) credential.Store {
			s, err := Open(t.Context(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	})
}
