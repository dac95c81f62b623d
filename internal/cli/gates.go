package cli

import (
	"strings"

	"github.com/spf13/pflag"
)

// gateFlags are the catalog switches that serve, stdio and tools share.
type gateFlags struct {
	unsafe    bool
	privacy   string
	approvals string
	plugins   []string
	grants    []string
}

func (g *gateFlags) add(fl *pflag.FlagSet) {
	fl.BoolVar(&g.unsafe, "unsafe", false, "let tools marked unsafe run (they send traffic or change state); off by default")
	fl.StringVar(&g.privacy, "privacy", "", "what may leave in a result: strict, balanced (default) or off")
	fl.StringVar(&g.approvals, "approvals", "", "who asks before a confirm tool runs: elicit (default, through the client) or client (a client or gateway in front)")
	fl.StringArrayVar(&g.plugins, "plugins", nil, "load plugins from this directory (a plugin, or a directory of plugins); repeatable, adds to plugins.dirs")
	fl.StringArrayVar(&g.grants, "plugin-grant", nil, "grant a plugin capabilities beyond log and progress, as NAME=view,annotate,http; repeatable, adds to plugins.grants")
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
	cfg.Plugins.Dirs = append(cfg.Plugins.Dirs, g.plugins...)
	for _, gr := range g.grants {
		name, caps, _ := strings.Cut(gr, "=")
		if cfg.Plugins.Grants == nil {
			cfg.Plugins.Grants = map[string][]string{}
		}
		for _, c := range strings.Split(caps, ",") {
			if c = strings.TrimSpace(c); c != "" {
				cfg.Plugins.Grants[name] = append(cfg.Plugins.Grants[name], c)
			}
		}
	}
}

// unsafeOn names the unsafe tools this configuration lets run, in the
// registry's order.
func (w *wired) unsafeOn() []string {
	var on []string
	tools, _ := w.reg.Tools()
	for _, t := range tools {
		if t.Catalog.Unsafe && (w.gates == nil || w.gates.Status(t) == nil) {
			on = append(on, t.Name)
		}
	}
	return on
}

// unsafeBanner is the start banner's line about unsafe tools: which run,
// and what turned them on; "" when none does.
func unsafeBanner(on []string, cfg Config) string {
	if len(on) == 0 {
		return ""
	}
	how := "tools.allow_unsafe"
	if cfg.Tools.Unsafe {
		how = "--unsafe"
	}
	return "Unsafe tools are on (" + how + "): " + strings.Join(on, ", ") + ". They send traffic or change state."
}
