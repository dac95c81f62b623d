package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/warden-mcp/warden/tool"
)

// ManifestFile is the name of a plugin's manifest inside its directory.
const ManifestFile = "warden-plugin.json"

// maxManifestBytes bounds a manifest read from disk.
const maxManifestBytes = 1 << 20

// Runtimes a manifest may name.
const (
	RuntimeWasm   = "wasm"
	RuntimePython = "python"
)

// Capabilities a tool may ask for. Each opens a group of host functions;
// the operator grants them per plugin (Options.Grants), and a tool gets a
// host function only when it asked for its capability and the plugin was
// granted it. Cancellation checks need none.
const (
	CapLog      = "log"      // log messages and warnings on the call
	CapProgress = "progress" // progress notifications
	CapView     = "view"     // read the active binary view
	CapAnnotate = "annotate" // set and delete comments on the active view
	CapHTTP     = "http"     // HTTP requests through the SSRF-safe client, within the tool scope
)

// DefaultGrants are granted to every plugin: they reach only the call's
// own client.
var DefaultGrants = []string{CapLog, CapProgress}

var allCaps = []string{CapLog, CapProgress, CapView, CapAnnotate, CapHTTP}

// Manifest is a plugin's warden-plugin.json.
type Manifest struct {
	// Name is the plugin's name and the prefix of its tools: every tool
	// is called Name_something. 2-32 characters of a-z 0-9, starting
	// with a letter.
	Name    string `json:"name"`
	Version string `json:"version"`
	// Description says what the plugin is for, in listings.
	Description string `json:"description,omitempty"`
	// Runtime is wasm or python.
	Runtime string `json:"runtime"`
	// Module is the file to run, relative to the plugin's directory.
	Module string     `json:"module"`
	Tools  []ToolSpec `json:"tools"`
}

// ToolSpec is one tool of a manifest.
type ToolSpec struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// OutputSchema is optional; with it the tool's result must be an
	// object, published as structured content.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Annotations  AnnotationSpec  `json:"annotations"`
	Category     string          `json:"category"`
	// Trust is auto, confirm or confirm_each; required.
	Trust  string `json:"trust"`
	Unsafe bool   `json:"unsafe,omitempty"`
	// Scope is global or view.
	Scope string `json:"scope"`
	// TargetParam names the string argument holding the network target
	// of a tool that sends traffic (checked against tools.scope).
	TargetParam  string   `json:"target_param,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
}

// AnnotationSpec are the four MCP annotations; all four are required.
type AnnotationSpec struct {
	ReadOnly    *bool `json:"read_only"`
	Destructive *bool `json:"destructive"`
	Idempotent  *bool `json:"idempotent"`
	OpenWorld   *bool `json:"open_world"`
}

// ManifestError is a refused manifest: the file and the rule it broke.
type ManifestError struct {
	File string // the manifest's path, as the operator gave it
	Rule string // what is wrong, and how to fix it
}

func (e *ManifestError) Error() string { return e.File + ": " + e.Rule }

var (
	pluginNameRE = regexp.MustCompile(`^[a-z][a-z0-9]{1,31}$`)
	versionRE    = regexp.MustCompile(`^[0-9A-Za-z.+-]{1,32}$`)
)

// ReadManifest reads and checks dir's manifest. builtin lists the name
// prefixes of the server's own tool families, which no plugin may take.
func ReadManifest(dir string, builtin []string) (*Manifest, error) {
	file := filepath.Join(dir, ManifestFile)
	f, err := os.Open(file)
	if err != nil {
		return nil, &ManifestError{File: file, Rule: "cannot be read: " + describeOpen(err)}
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return nil, &ManifestError{File: file, Rule: "cannot be read"}
	}
	if len(raw) > maxManifestBytes {
		return nil, &ManifestError{File: file, Rule: "larger than 1 MiB"}
	}
	m, rule := parseManifest(raw, builtin)
	if rule != "" {
		return nil, &ManifestError{File: file, Rule: rule}
	}
	mod := filepath.Join(dir, m.Module)
	if st, err := os.Stat(mod); err != nil || !st.Mode().IsRegular() {
		return nil, &ManifestError{File: file, Rule: fmt.Sprintf("module %q is not a file in the plugin directory (build it first: warden plugin build DIR)", m.Module)}
	}
	return m, nil
}

func describeOpen(err error) string {
	if os.IsNotExist(err) {
		return "no such file (a plugin directory holds " + ManifestFile + ")"
	}
	return "permission denied or not a file"
}

// parseManifest decodes and checks a manifest, returning the first rule
// it breaks.
func parseManifest(raw []byte, builtin []string) (*Manifest, string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, "not a valid manifest: " + jsonProblem(err)
	}
	if dec.More() {
		return nil, "not a valid manifest: more than one JSON value"
	}
	if !pluginNameRE.MatchString(m.Name) {
		return nil, fmt.Sprintf("name %q: want 2-32 characters of a-z 0-9 starting with a letter", m.Name)
	}
	prefix := m.Name + "_"
	for _, b := range builtin {
		b = strings.ToLower(b)
		if strings.HasPrefix(prefix, b) || strings.HasPrefix(b, prefix) {
			return nil, fmt.Sprintf("name %q: the prefix %s belongs to Warden's built-in tools; choose another plugin name", m.Name, b)
		}
	}
	if !versionRE.MatchString(m.Version) {
		return nil, "version: want 1-32 characters such as 1.0.0"
	}
	switch m.Runtime {
	case RuntimeWasm, RuntimePython:
	default:
		return nil, fmt.Sprintf("runtime %q: want wasm or python", m.Runtime)
	}
	if m.Module == "" || filepath.IsAbs(m.Module) || filepath.Base(m.Module) != m.Module || m.Module == "." || m.Module == ".." {
		return nil, "module: want a file name inside the plugin directory"
	}
	if len(m.Tools) == 0 || len(m.Tools) > 64 {
		return nil, "tools: want 1-64 tools"
	}
	seen := map[string]bool{}
	for i := range m.Tools {
		t := &m.Tools[i]
		if rule := t.check(prefix); rule != "" {
			return nil, fmt.Sprintf("tools[%d] (%s): %s", i, t.Name, rule)
		}
		if seen[strings.ToLower(t.Name)] {
			return nil, fmt.Sprintf("tools[%d] (%s): duplicate name", i, t.Name)
		}
		seen[strings.ToLower(t.Name)] = true
	}
	return &m, ""
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("JSON syntax error at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %s: want %s", te.Field, te.Type)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	return "not JSON"
}

// check returns the rule the tool breaks, or "".
func (t *ToolSpec) check(prefix string) string {
	if !strings.HasPrefix(t.Name, prefix) || len(t.Name) == len(prefix) {
		return "name: want the plugin's prefix " + prefix + " followed by the tool's own name"
	}
	if len(t.Name) > 64 {
		return "name: at most 64 characters"
	}
	if strings.TrimSpace(t.Description) == "" {
		return "description required: models choose tools by it"
	}
	if len(t.InputSchema) == 0 {
		return "input_schema required (an object schema; the kits derive it from the argument type)"
	}
	a := t.Annotations
	if a.ReadOnly == nil || a.Destructive == nil || a.Idempotent == nil || a.OpenWorld == nil {
		return "annotations: all four of read_only, destructive, idempotent and open_world are required"
	}
	if strings.TrimSpace(t.Category) == "" {
		return "category required"
	}
	switch tool.Trust(t.Trust) {
	case tool.TrustAuto, tool.TrustConfirm, tool.TrustConfirmEach:
	case "":
		return "trust required: auto, confirm or confirm_each"
	default:
		return fmt.Sprintf("trust %q: want auto, confirm or confirm_each", t.Trust)
	}
	switch t.Scope {
	case "global", "view":
	default:
		return fmt.Sprintf("scope %q: want global or view", t.Scope)
	}
	seen := map[string]bool{}
	for _, c := range t.Capabilities {
		if !slices.Contains(allCaps, c) {
			return fmt.Sprintf("capability %q: want one of %s", c, strings.Join(allCaps, ", "))
		}
		if seen[c] {
			return fmt.Sprintf("capability %q listed twice", c)
		}
		seen[c] = true
	}
	if seen[CapView] || seen[CapAnnotate] {
		if t.Scope != "view" {
			return "capabilities view and annotate need scope view"
		}
	}
	if seen[CapAnnotate] {
		if t.Trust == string(tool.TrustAuto) || *a.ReadOnly {
			return "capability annotate writes: the tool cannot be read_only and needs trust confirm or confirm_each"
		}
	}
	if seen[CapHTTP] {
		if !t.Unsafe || !*a.OpenWorld || t.TargetParam == "" {
			return "capability http sends traffic: the tool must be unsafe and open_world, and name its target_param (checked against tools.scope)"
		}
	}
	return ""
}

// def is the tool's SDK definition.
func (t *ToolSpec) def(m *Manifest) tool.Def {
	d := tool.Def{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		Annotations: tool.Annotations{
			ReadOnly:    *t.Annotations.ReadOnly,
			Destructive: *t.Annotations.Destructive,
			Idempotent:  *t.Annotations.Idempotent,
			OpenWorld:   *t.Annotations.OpenWorld,
		},
		Catalog: tool.Catalog{
			Category:    t.Category,
			Unsafe:      t.Unsafe,
			TargetParam: t.TargetParam,
			Trust:       tool.Trust(t.Trust),
		},
		OutputSchema: t.OutputSchema,
		Meta: map[string]any{MetaKey: Info{
			Name:         m.Name,
			Version:      m.Version,
			Runtime:      m.Runtime,
			Sandboxed:    m.Runtime == RuntimeWasm,
			Trusted:      m.Runtime == RuntimePython,
			Capabilities: append([]string{}, t.Capabilities...),
		}},
	}
	if t.Scope == "view" {
		d.Scope = tool.ViewScoped
	}
	return d
}

// Info is what a plugin tool's listing says of its plugin, under
// MetaKey.
type Info struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Runtime string `json:"runtime"`
	// Sandboxed: a WebAssembly plugin, which reaches only its host
	// functions.
	Sandboxed bool `json:"sandboxed"`
	// Trusted: a Python plugin, a child process that can reach what the
	// server's user can; the operator trusts it as such.
	Trusted      bool     `json:"trusted"`
	Capabilities []string `json:"capabilities"`
}

// InfoOf returns the plugin of a tool loaded from one.
func InfoOf(t *tool.Tool) (Info, bool) {
	i, ok := t.Meta[MetaKey].(Info)
	return i, ok
}

// MetaKey is the _meta key under which a plugin tool's listing names its
// plugin.
const MetaKey = "dev.warden/plugin"
