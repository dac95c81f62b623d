package disasm

import (
	"os"
	"testing"

	"github.com/warden-mcp/warden/binview/internal/bintest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	bintest.Cleanup()
	os.Exit(code)
}
