package cli

import (
	"github.com/spf13/pflag"
)

// gateFlags are the catalog switches that serve, stdio and tools share.
type gateFlags struct {
	unsafe    bool
	privacy   string
	approvals string
}

func (g *gateFlags) add(fl *pflag.FlagSet) {
	fl.BoolVar(&g.unsafe, "unsafe", false, "let tools marked unsafe run (they send traffic or change state); off by default")
	fl.StringVar(&g.privacy, "privacy", "", "what may leave in a result: strict, balanced (default) or off")
	fl.StringVar(&g.approvals, "approvals", "", "who asks before a confirm tool runs: elicit (default, through the client) or client (a client or gateway in front)")
}

// apply layers the flags that were given over the configuration.
func (g *gateFlags) apply(fl *pflag.FlagSet, cfg *Config) {
	if fl.Changed("unsafe") {
		cfg.Tools.Unsafe = g.unsafe
	}
	if g.privacy != "" {
		cfg.Privacy = g.privacy
	}
	if g.approvals != "" {
		cfg.Approvals = g.approvals
	}
}
