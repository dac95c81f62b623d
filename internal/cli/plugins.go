package cli

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/warden-mcp/warden/internal/toolset"
	"github.com/warden-mcp/warden/plugin"
	"github.com/warden-mcp/warden/tool"
)

// pluginSet is the plugins a server serves: loaded at start from the
// configured directories, and loaded again when one changes (reload),
// each plugin's tools registered beside the built-ins under a family of
// its own prefix, whose view resolver is the binary views': a
// view-scoped plugin tool acts on the same views as the bininspect_
// tools. The registry tells clients of every change (tools/list_changed
// on legacy sessions).
type pluginSet struct {
	reg    *tool.Registry
	binary *toolset.BinaryViews
	opts   *plugin.Options
	dirs   []string
	logger *slog.Logger

	mu     sync.Mutex
	loaded map[string]*loadedPlugin // by plugin directory
	fams   map[string]*tool.Family  // by plugin name, claimed once
	owner  map[string]string        // plugin name -> its directory
}

type loadedPlugin struct {
	p     *plugin.Plugin
	stamp string
	names []string
}

func newPluginSet(o wireOptions, reg *tool.Registry, binary *toolset.BinaryViews, allowed func(context.Context, *tool.Tool) bool) *pluginSet {
	c := o.cfg.Plugins
	return &pluginSet{
		reg: reg, binary: binary, dirs: c.Dirs, logger: o.logger,
		opts: &plugin.Options{
			Limits: plugin.Limits{
				Timeout:     time.Duration(c.PluginTimeout),
				MemoryBytes: c.MemoryBytes,
				OutputBytes: c.OutputBytes,
			},
			Grants:   c.Grants,
			Services: toolset.PluginServices(reg, allowed),
			Builtin:  toolset.Prefixes,
			Logger:   o.logger,
		},
		loaded: map[string]*loadedPlugin{},
		fams:   map[string]*tool.Family{},
		owner:  map[string]string{},
	}
}

// reload loads every plugin directory whose files changed since it was
// last loaded (all of them, the first time), drops the tools of
// directories that are gone, and returns the refusals. A plugin that no
// longer loads keeps serving its last good version.
func (s *pluginSet) reload(ctx context.Context) []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	seen := map[string]bool{}
	for _, dir := range plugin.Dirs(s.dirs) {
		seen[dir] = true
		stamp := plugin.Stamp(dir)
		old := s.loaded[dir]
		if old != nil && old.stamp == stamp {
			continue
		}
		p, err := plugin.Load(ctx, dir, s.opts)
		if err == nil {
			err = s.swap(dir, old, p)
		}
		if err != nil {
			if p != nil {
				_ = p.Close(ctx)
			}
			if old != nil {
				old.stamp = stamp // reported once, until the files change again
			}
			errs = append(errs, err)
			s.logger.Error("plugin refused", slog.String("error", err.Error()))
			continue
		}
		s.loaded[dir].stamp = stamp
		verb := "plugin loaded"
		if old != nil {
			verb = "plugin reloaded"
		}
		s.logger.Info(verb, slog.String("plugin", p.Manifest.Name), slog.String("version", p.Manifest.Version),
			slog.String("runtime", p.Manifest.Runtime), slog.Int("tools", len(p.Tools())))
	}
	for dir, old := range s.loaded {
		if !seen[dir] {
			s.drop(dir, old)
			s.logger.Info("plugin removed", slog.String("plugin", old.p.Manifest.Name))
		}
	}
	return errs
}

// swap registers p's tools in place of old's (nil the first time).
func (s *pluginSet) swap(dir string, old *loadedPlugin, p *plugin.Plugin) error {
	name := p.Manifest.Name
	if other, ok := s.owner[name]; ok && other != dir {
		return &plugin.ManifestError{File: filepath.Join(dir, plugin.ManifestFile),
			Rule: fmt.Sprintf("name %q is already taken by the plugin in %s", name, other)}
	}
	fam, ok := s.fams[name]
	if !ok {
		var err error
		if fam, err = s.reg.Family(name + "_"); err != nil {
			return &plugin.ManifestError{File: filepath.Join(dir, plugin.ManifestFile), Rule: "name: " + err.Error()}
		}
		if s.binary != nil {
			fam.ResolveViews(s.binary.Resolve)
		}
		s.fams[name] = fam
	}
	if old != nil {
		s.drop(dir, old)
	}
	lp := &loadedPlugin{p: p}
	for _, t := range p.Tools() {
		if err := fam.Register(t); err != nil {
			for _, n := range lp.names {
				s.reg.Remove(n)
			}
			return &plugin.ManifestError{File: filepath.Join(dir, plugin.ManifestFile), Rule: err.Error()}
		}
		lp.names = append(lp.names, t.Name)
	}
	s.loaded[dir] = lp
	s.owner[name] = dir
	return nil
}

// drop removes a plugin's tools and closes it once calls already running
// in it have had their time.
func (s *pluginSet) drop(dir string, old *loadedPlugin) {
	for _, n := range old.names {
		s.reg.Remove(n)
	}
	delete(s.loaded, dir)
	if s.owner[old.p.Manifest.Name] == dir {
		delete(s.owner, old.p.Manifest.Name)
	}
	grace := s.opts.Limits.Timeout
	if grace <= 0 {
		grace = plugin.DefaultTimeout
	}
	p := old.p
	time.AfterFunc(grace+time.Second, func() { _ = p.Close(context.Background()) })
}

// watch reloads changed plugins every interval until ctx ends.
func (s *pluginSet) watch(ctx context.Context, interval time.Duration) {
	if len(s.dirs) == 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.reload(ctx)
		}
	}
}

// close closes every loaded plugin.
func (s *pluginSet) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for dir, lp := range s.loaded {
		_ = lp.p.Close(context.Background())
		delete(s.loaded, dir)
	}
}

// loadPlugins loads the configured plugins at start. allowed says
// whether a call's caller may call a built-in tool, which a host
// function would run for the plugin.
func loadPlugins(o wireOptions, reg *tool.Registry, binary *toolset.BinaryViews, allowed func(context.Context, *tool.Tool) bool) (*pluginSet, []error) {
	s := newPluginSet(o, reg, binary, allowed)
	if len(s.dirs) == 0 {
		return s, nil
	}
	return s, s.reload(context.Background())
}

// closePlugins releases the plugins' runtimes.
func (w *wired) closePlugins() { w.plugins.close() }
