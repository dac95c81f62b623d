package asstore_test

import (
	"testing"

	"github.com/warden-mcp/warden/auth/asstore"
	"github.com/warden-mcp/warden/auth/asstore/asstoretest"
)

func TestMemory(t *testing.T) { asstoretest.Run(t, &asstore.Memory{}) }
