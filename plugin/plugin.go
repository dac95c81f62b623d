package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/internal/jsonwalk"
	"github.com/warden-mcp/warden/tool"
)

// Limits bound every call of a plugin.
type Limits struct {
	// Timeout is plugin_timeout: how long one call may run, its
	// start-up included. Zero: 5 s.
	Timeout time.Duration
	// MemoryBytes is the ceiling of one WebAssembly instance's memory,
	// and the Python child's address space. Zero: 64 MiB (WebAssembly),
	// 512 MiB (Python, whose interpreter alone takes tens).
	MemoryBytes int64
	// OutputBytes caps one call's answer. Zero: 1 MiB.
	OutputBytes int64
}

// Defaults of Limits.
const (
	DefaultTimeout      = 5 * time.Second
	DefaultMemory       = 64 << 20
	DefaultPythonMemory = 512 << 20
	DefaultOutput       = 1 << 20
	maxMemory           = 4 << 30
)

func (l Limits) withDefaults(runtime string) Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultMemory
		if runtime == RuntimePython {
			l.MemoryBytes = DefaultPythonMemory
		}
	}
	if l.MemoryBytes > maxMemory {
		l.MemoryBytes = maxMemory
	}
	if l.OutputBytes <= 0 {
		l.OutputBytes = DefaultOutput
	}
	return l
}

// Options say how plugins are loaded.
type Options struct {
	// Limits bound each call; the zero value takes the defaults.
	Limits Limits
	// Grants are the capabilities the operator grants, by plugin name,
	// beyond DefaultGrants. A plugin absent here gets DefaultGrants only.
	Grants map[string][]string
	// Services serve the host functions; nil serves none beyond log,
	// progress, warnings and cancellation.
	Services *Services
	// Builtin are the name prefixes of the server's own tool families,
	// which no plugin may take.
	Builtin []string
	// Python is the interpreter of Python plugins. "": python3 from a
	// fixed list of system directories (never the caller's PATH).
	Python string
	// PythonEnv is the Python child's environment; nil: none at all.
	// Tests set it.
	PythonEnv []string
	// Logger receives the causes of plugin failures. Nil discards.
	Logger *slog.Logger
}

// Plugin is one loaded plugin.
type Plugin struct {
	Manifest *Manifest
	Dir      string
	tools    []*tool.Tool
	invoke   func(ctx context.Context, s *session, owner, name string, args []byte) ([]byte, error)
	close    func(ctx context.Context) error
}

// Tools returns the plugin's tools, ready to register.
func (p *Plugin) Tools() []*tool.Tool { return slices.Clone(p.tools) }

// Close releases the plugin's runtime (compiled code, idle instances,
// child processes).
func (p *Plugin) Close(ctx context.Context) error { return p.close(ctx) }

// LoadDirs loads every plugin under dirs: each dir is a plugin directory
// (it holds a manifest) or a directory of plugin directories. A plugin
// that cannot load is left out, its error (a *ManifestError naming the
// file and the rule) returned among errs; the others load.
func LoadDirs(ctx context.Context, dirs []string, o *Options) (plugins []*Plugin, errs []error) {
	seen := map[string]string{}
	for _, d := range dirs {
		for _, pd := range pluginDirs(d) {
			p, err := Load(ctx, pd, o)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if other, dup := seen[p.Manifest.Name]; dup {
				_ = p.Close(ctx)
				errs = append(errs, &ManifestError{File: filepath.Join(pd, ManifestFile),
					Rule: fmt.Sprintf("name %q is already taken by the plugin in %s", p.Manifest.Name, other)})
				continue
			}
			seen[p.Manifest.Name] = pd
			plugins = append(plugins, p)
		}
	}
	return plugins, errs
}

// Dirs lists the plugin directories under dirs, as LoadDirs finds them:
// each dir itself when it holds a manifest, else its subdirectories.
func Dirs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		out = append(out, pluginDirs(d)...)
	}
	return out
}

// Stamp identifies the state of the plugin in dir: its manifest's and
// its module's sizes and modification times. A change means the plugin
// should be loaded again.
func Stamp(dir string) string {
	var b strings.Builder
	stamp := func(p string) {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d;", filepath.Base(p), st.Size(), st.ModTime().UnixNano())
		}
	}
	file := filepath.Join(dir, ManifestFile)
	stamp(file)
	if raw, err := os.ReadFile(file); err == nil {
		var m struct {
			Module string `json:"module"`
		}
		if json.Unmarshal(raw, &m) == nil && m.Module != "" && filepath.Base(m.Module) == m.Module {
			stamp(filepath.Join(dir, m.Module))
		}
	}
	return b.String()
}

// pluginDirs lists dir itself when it holds a manifest, else its
// subdirectories, sorted.
func pluginDirs(dir string) []string {
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		return []string{dir}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return []string{dir} // Load reports the missing manifest
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// Load loads the plugin in dir: its manifest checked, its module
// compiled (WebAssembly) or its interpreter found (Python), its tools
// built. Nothing runs until a tool is called, except a WebAssembly
// module's compilation.
func Load(ctx context.Context, dir string, o *Options) (*Plugin, error) {
	if o == nil {
		o = &Options{}
	}
	m, err := ReadManifest(dir, o.Builtin)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, ManifestFile)
	granted := map[string]bool{}
	for _, c := range DefaultGrants {
		granted[c] = true
	}
	for _, c := range o.Grants[m.Name] {
		granted[c] = true
	}
	p := &Plugin{Manifest: m, Dir: dir}
	l := o.Limits.withDefaults(m.Runtime)
	switch m.Runtime {
	case RuntimeWasm:
		mod, err := readModule(filepath.Join(dir, m.Module))
		if err != nil {
			return nil, &ManifestError{File: file, Rule: "module: " + err.Error()}
		}
		h, err := newWasmHost(ctx, mod, l)
		if err != nil {
			return nil, &ManifestError{File: file, Rule: "module " + m.Module + ": " + err.Error()}
		}
		p.invoke, p.close = h.invoke, h.close
	case RuntimePython:
		h, err := newPythonHost(filepath.Join(dir, m.Module), l, o)
		if err != nil {
			return nil, &ManifestError{File: file, Rule: err.Error()}
		}
		p.invoke, p.close = h.invoke, h.close
	}
	svc := o.Services
	if svc == nil {
		svc = &Services{}
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	for i := range m.Tools {
		spec := &m.Tools[i]
		t, err := tool.NewRaw(spec.def(m), spec.InputSchema, p.handler(spec, granted, svc, l, logger))
		if err != nil {
			_ = p.close(ctx)
			return nil, &ManifestError{File: file, Rule: fmt.Sprintf("tools[%d] (%s): %s", i, spec.Name, trimToolPrefix(err.Error(), spec.Name))}
		}
		p.tools = append(p.tools, t)
	}
	return p, nil
}

func trimToolPrefix(msg, name string) string {
	return strings.TrimPrefix(strings.TrimPrefix(msg, "tool "+name+": "), "tool "+name+" ")
}

func readModule(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("not a readable file")
	}
	if st.Size() > 256<<20 {
		return nil, errors.New("larger than 256 MiB")
	}
	return os.ReadFile(path)
}

// handler is one tool's handler: the call run in the plugin under the
// limits, its answer checked and shaped.
func (p *Plugin) handler(spec *ToolSpec, granted map[string]bool, svc *Services, l Limits, logger *slog.Logger) tool.RawHandler {
	name := spec.Name
	asked := spec.Capabilities
	structured := len(spec.OutputSchema) > 0
	viewScoped := spec.Scope == "view"
	defaults := topDefaults(spec.InputSchema)
	return func(ctx context.Context, call *tool.Call, args json.RawMessage) (*tool.Result, error) {
		// The plugin gets its arguments in one form: compact, members
		// sorted, names unescaped, without the view handle (the server
		// has resolved the view; the plugin reads it through host
		// functions). A kit in any language can then read them simply.
		args, err := canonical(args, viewScoped, defaults)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, l.Timeout)
		defer cancel()
		s := newSession(ctx, call, asked, granted, svc)
		defer s.end()
		owner := ""
		if c, ok := call.Caller(); ok {
			owner = c.Key
		}
		if owner == "" {
			owner = call.Session()
		}
		reply, err := p.invoke(ctx, s, owner, name, args)
		if err != nil {
			var e *errcode.Error
			if errors.As(err, &e) && e.Cause != nil {
				logger.LogAttrs(ctx, slog.LevelWarn, "plugin call failed", slog.String("plugin", p.Manifest.Name),
					slog.String("tool", name), slog.Any("error", e))
			}
			if errors.As(err, &e) && e.Code == tool.CodeInternal {
				return nil, &tool.Error{Code: tool.CodeInternal, Message: e.Message}
			}
			return nil, err
		}
		return shapeReply(reply, structured)
	}
}

// topDefaults are the defaults of a schema's top-level properties.
func topDefaults(schema json.RawMessage) map[string]json.RawMessage {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	out := map[string]json.RawMessage{}
	for name, p := range s.Properties {
		if len(p.Default) > 0 {
			out[name] = p.Default
		}
	}
	return out
}

// canonical returns the argument object compact, with its members
// sorted by name, the schema's top-level defaults filled in, and without
// the view member when dropView.
func canonical(args json.RawMessage, dropView bool, defaults map[string]json.RawMessage) (json.RawMessage, error) {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // numbers pass through as written, not as float64
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, &tool.Error{Code: tool.CodeInvalidParams, Message: "arguments must be a JSON object"}
	}
	if dropView {
		delete(obj, tool.ViewParam)
	}
	for name, d := range defaults {
		if _, ok := obj[name]; !ok {
			obj[name] = d
		}
	}
	return json.Marshal(obj)
}

// shapeReply turns a plugin's answer, {"result": value} or {"error":
// {"code", "message"}}, into the tool's result.
func shapeReply(reply []byte, structured bool) (*tool.Result, error) {
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *hostError      `json:"error"`
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		return nil, errcode.New(CodePluginError, "the plugin's answer is not JSON of the form {\"result\": ...} or {\"error\": {...}}")
	}
	if r.Error != nil {
		if !codeRE.MatchString(r.Error.Code) || r.Error.Code == tool.CodeInternal {
			return nil, errcode.New(CodePluginError, "the plugin failed with a malformed error code")
		}
		return nil, &tool.Error{Code: r.Error.Code, Message: clip(strings.ToValidUTF8(r.Error.Message, "?"), 1024)}
	}
	if len(r.Result) == 0 {
		return nil, errcode.New(CodePluginError, "the plugin's answer has neither result nor error")
	}
	kind := jsonwalk.Kind(r.Result)
	switch {
	case structured && kind != "object":
		return nil, errcode.New(CodePluginError, "the tool has an output schema but its result is not an object")
	case structured || kind == "object":
		return &tool.Result{Structured: r.Result}, nil
	case kind == "string":
		var s string
		_ = json.Unmarshal(r.Result, &s)
		return &tool.Result{Content: []tool.Content{tool.Text(s)}}, nil
	}
	return &tool.Result{Content: []tool.Content{tool.Text(string(r.Result))}}, nil
}
