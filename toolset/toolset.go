// Package toolset binds Warden's engines to tool definitions: one file per
// family (keysweep_, microdefend_). It is an adapter: the engines
// know nothing of MCP, and the wiring in internal/cli decides which
// families a server offers.
package toolset

import (
	"log/slog"

	"github.com/warden-mcp/warden/safehttp"

	"github.com/warden-mcp/warden/tool"
)

// Deps are the shared things a family may need.
type Deps struct {
	// Logger receives causes that never reach a client. Nil discards.
	Logger *slog.Logger
	// FingerprintKey keys the fingerprints of found secrets. Nil: a key
	// for this process only, so fingerprints do not match across runs.
	FingerprintKey []byte
	// SafeHTTP configures the fetcher of the website scans. Nil is the
	// production policy. Tests set it to reach their own loopback
	// fixtures, and warden scan site to honour --allow-private and
	// --allow-port; no server wiring, configuration file or tool
	// argument reaches it (internal/cli's TestWidenedFetchIsCommandLineOnly).
	SafeHTTP *safehttp.Options
}

// Selection says which tools to register.
type Selection struct {
	// Edition is the build's edition; tools outside it are skipped.
	Edition tool.Edition
	// Enable turns on tools that are disabled by default, by name.
	Enable map[string]bool
}

func (s Selection) wants(t *tool.Tool) bool {
	if !t.InEdition(s.Edition) {
		return false
	}
	return !t.Catalog.DisabledByDefault || s.Enable[t.Name]
}

// family is one family's constructor: it builds its tools.
type family struct {
	prefix string
	build  func(Deps) ([]*tool.Tool, error)
}

// families lists every built-in family, in registration order.
var families = []family{
	{"keysweep_", keysweepTools},
	{"microdefend_", microdefendTools},
}

// Register claims every built-in family's prefix in reg and registers the
// selected tools.
func Register(reg *tool.Registry, deps Deps, sel Selection) error {
	for _, f := range families {
		fam, err := reg.Family(f.prefix)
		if err != nil {
			return err
		}
		tools, err := f.build(deps)
		if err != nil {
			return err
		}
		for _, t := range tools {
			if !sel.wants(t) {
				continue
			}
			if err := fam.Register(t); err != nil {
				return err
			}
		}
	}
	return nil
}
