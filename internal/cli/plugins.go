package cli

import (
	"context"
	"log/slog"
	"time"

	"github.com/warden-mcp/warden/plugin"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/toolset"
)

// loadPlugins loads the configured plugins and registers their tools
// beside the built-ins, each plugin under a family of its own prefix (so
// no later tool can pass itself off as one of its tools) whose view
// resolver is the binary views': a view-scoped plugin tool acts on the
// same views as the bininspect_ tools. A plugin that cannot load is
// refused, with the file and the rule it broke, and the rest start.
func loadPlugins(o wireOptions, reg *tool.Registry, binary *toolset.BinaryViews) ([]*plugin.Plugin, []error) {
	c := o.cfg.Plugins
	if len(c.Dirs) == 0 {
		return nil, nil
	}
	opts := &plugin.Options{
		Limits: plugin.Limits{
			Timeout:     time.Duration(c.PluginTimeout),
			MemoryBytes: c.MemoryBytes,
			OutputBytes: c.OutputBytes,
		},
		Grants:   c.Grants,
		Services: toolset.PluginServices(reg),
		Builtin:  toolset.Prefixes,
		Logger:   o.logger,
	}
	ctx := context.Background()
	loaded, errs := plugin.LoadDirs(ctx, c.Dirs, opts)
	var kept []*plugin.Plugin
	for _, p := range loaded {
		if err := registerPlugin(reg, p, binary); err != nil {
			_ = p.Close(ctx)
			errs = append(errs, err)
			continue
		}
		kept = append(kept, p)
		o.logger.Info("plugin loaded", slog.String("plugin", p.Manifest.Name), slog.String("version", p.Manifest.Version),
			slog.String("runtime", p.Manifest.Runtime), slog.Int("tools", len(p.Tools())))
	}
	for _, err := range errs {
		o.logger.Error("plugin refused", slog.String("error", err.Error()))
	}
	return kept, errs
}

func registerPlugin(reg *tool.Registry, p *plugin.Plugin, binary *toolset.BinaryViews) error {
	fam, err := reg.Family(p.Manifest.Name + "_")
	if err != nil {
		return &plugin.ManifestError{File: p.Dir, Rule: "name: " + err.Error()}
	}
	if binary != nil {
		fam.ResolveViews(binary.Resolve)
	}
	var done []string
	for _, t := range p.Tools() {
		if err := fam.Register(t); err != nil {
			for _, n := range done {
				reg.Remove(n)
			}
			return &plugin.ManifestError{File: p.Dir, Rule: err.Error()}
		}
		done = append(done, t.Name)
	}
	return nil
}

// closePlugins releases the plugins' runtimes.
func (w *wired) closePlugins() {
	for _, p := range w.plugins {
		_ = p.Close(context.Background())
	}
}
