package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildOptions say how Build builds.
type BuildOptions struct {
	// Go is the go command; "": go from PATH.
	Go string
	// Env is the build's environment; nil: the server's own.
	Env []string
	// Stderr receives the compiler's diagnostics; nil discards them.
	Stderr *bytes.Buffer
	// OutDir receives the module and the manifest; "": the plugin's
	// directory.
	OutDir string
}

// Build builds the plugin in dir, as its files say: a Go plugin (a
// go.mod or .go files) is compiled to WebAssembly with the Go kit's
// flags and its derived schemas written into the manifest; a Python
// plugin needs no build and is checked only. The manifest must exist
// (warden plugin new writes one).
func Build(ctx context.Context, dir string, o *BuildOptions) error {
	if o == nil {
		o = &BuildOptions{}
	}
	file := filepath.Join(dir, ManifestFile)
	raw, err := os.ReadFile(file)
	if err != nil {
		return &ManifestError{File: file, Rule: "cannot be read"}
	}
	m, rule := parseManifest(raw, nil)
	if rule != "" {
		return &ManifestError{File: file, Rule: rule}
	}
	switch {
	case m.Runtime == RuntimePython:
		return buildPython(ctx, dir, m, raw, o)
	case hasGo(dir):
		return buildGo(ctx, dir, m, raw, o)
	}
	return &ManifestError{File: file, Rule: "no Go sources here; build other WebAssembly plugins with their own toolchain (docs/plugins.md)"}
}

func hasGo(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	return len(m) > 0
}

func buildGo(ctx context.Context, dir string, m *Manifest, raw []byte, o *BuildOptions) (err error) {
	goCmd := o.Go
	if goCmd == "" {
		goCmd = "go"
	}
	out := dir
	if o.OutDir != "" {
		out = o.OutDir
	}
	if out, err = filepath.Abs(out); err != nil {
		return err
	}
	module := filepath.Join(out, m.Module)
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env, "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	run := func(args ...string) error {
		cmd := exec.CommandContext(ctx, goCmd, args...)
		cmd.Dir, cmd.Env = dir, env
		var stderr bytes.Buffer
		cmd.Stderr, cmd.Stdout = &stderr, &stderr
		if err := cmd.Run(); err != nil {
			if o.Stderr != nil {
				o.Stderr.Write(stderr.Bytes())
			}
			return fmt.Errorf("go %s failed: %w", args[0], err)
		}
		return nil
	}
	// A fresh scaffold has no go.sum yet.
	if fileExists(filepath.Join(dir, "go.mod")) && !fileExists(filepath.Join(dir, "go.sum")) {
		if err := run("mod", "tidy"); err != nil {
			return err
		}
	}
	if err := run("build", "-buildmode=c-shared", "-trimpath", "-o", module, "."); err != nil {
		return err
	}
	desc, err := describe(ctx, module)
	if err != nil {
		return err
	}
	return writeSchemas(filepath.Join(out, ManifestFile), raw, desc)
}

// buildPython asks the plugin for its schemas (python3 plugin.py
// --describe, which the kit answers) and writes them into the manifest.
// It runs the author's code, on the author's machine, as building does.
func buildPython(ctx context.Context, dir string, m *Manifest, raw []byte, o *BuildOptions) error {
	interp := ""
	for _, d := range pythonDirs {
		if p := filepath.Join(d, "python3"); fileExists(p) {
			interp = p
			break
		}
	}
	if interp == "" {
		return errors.New("no python3 interpreter found")
	}
	cmd := exec.CommandContext(ctx, interp, "-E", "-s", "-B", m.Module, "--describe")
	cmd.Dir = dir
	cmd.Env = []string{}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		if o.Stderr != nil {
			o.Stderr.Write(stderr.Bytes())
		}
		return fmt.Errorf("%s --describe failed: %w", m.Module, err)
	}
	var desc []toolSchemas
	if err := json.Unmarshal(b, &desc); err != nil {
		return fmt.Errorf("%s --describe: not the kit's answer: %w", m.Module, err)
	}
	out := dir
	if o.OutDir != "" {
		out = o.OutDir
	}
	return writeSchemas(filepath.Join(out, ManifestFile), raw, desc)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// toolSchemas is one entry of warden_describe's answer.
type toolSchemas struct {
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input_schema"`
	Output json.RawMessage `json:"output_schema,omitempty"`
}

// describe instantiates the module and asks its kit for the tools'
// derived schemas.
func describe(ctx context.Context, module string) ([]toolSchemas, error) {
	mod, err := readModule(module)
	if err != nil {
		return nil, err
	}
	l := Limits{}.withDefaults(RuntimeWasm)
	h, err := newWasmHost(ctx, mod, l)
	if err != nil {
		return nil, err
	}
	defer h.close(ctx)
	if _, ok := h.compiled.ExportedFunctions()["warden_describe"]; !ok {
		return nil, errors.New("the module exports no warden_describe (the Go kit does): write the schemas into the manifest by hand")
	}
	cctx, cancel := context.WithTimeout(ctx, l.Timeout)
	defer cancel()
	in, err := h.get(cctx, "")
	if err != nil {
		return nil, err
	}
	defer in.mod.Close(ctx)
	res, err := in.mod.ExportedFunction("warden_describe").Call(cctx)
	if err != nil {
		return nil, err
	}
	b, ok := in.mod.Memory().Read(uint32(res[0]>>32), uint32(res[0]))
	if !ok {
		return nil, errors.New("warden_describe answered outside the module's memory")
	}
	var out []toolSchemas
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("warden_describe: %w", err)
	}
	return out, nil
}

// writeSchemas writes each described tool's schemas into the manifest,
// keeping everything else as it was written, and refuses a tool the
// module has and the manifest lacks (or the reverse).
func writeSchemas(file string, raw []byte, desc []toolSchemas) error {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return &ManifestError{File: file, Rule: "not JSON"}
	}
	var specs []map[string]json.RawMessage
	if err := json.Unmarshal(doc["tools"], &specs); err != nil {
		return &ManifestError{File: file, Rule: "tools: want a list of objects"}
	}
	byName := map[string]toolSchemas{}
	for _, d := range desc {
		byName[d.Name] = d
	}
	for _, s := range specs {
		var name string
		_ = json.Unmarshal(s["name"], &name)
		d, ok := byName[name]
		if !ok {
			return &ManifestError{File: file, Rule: fmt.Sprintf("tool %s is not in the module (kit.Add it)", name)}
		}
		delete(byName, name)
		s["input_schema"] = d.Input
		if len(d.Output) > 0 {
			s["output_schema"] = d.Output
		} else {
			delete(s, "output_schema")
		}
	}
	for name := range byName {
		return &ManifestError{File: file, Rule: fmt.Sprintf("the module has tool %s, the manifest does not: add its definition", name)}
	}
	b, err := json.Marshal(specs)
	if err != nil {
		return err
	}
	doc["tools"] = b
	out, err := marshalManifest(doc)
	if err != nil {
		return err
	}
	return os.WriteFile(file, out, 0o644)
}

// marshalManifest writes a manifest with its fields in the documented
// order and two-space indentation.
func marshalManifest(doc map[string]json.RawMessage) ([]byte, error) {
	order := []string{"name", "version", "description", "runtime", "module", "tools"}
	var buf bytes.Buffer
	buf.WriteString("{\n")
	first := true
	emit := func(k string, v json.RawMessage) {
		if !first {
			buf.WriteString(",\n")
		}
		first = false
		var ind bytes.Buffer
		_ = json.Indent(&ind, v, "  ", "  ")
		fmt.Fprintf(&buf, "  %q: %s", k, ind.String())
	}
	for _, k := range order {
		if v, ok := doc[k]; ok {
			emit(k, v)
			delete(doc, k)
		}
	}
	for k, v := range doc {
		emit(k, v)
	}
	buf.WriteString("\n}\n")
	if !json.Valid(buf.Bytes()) {
		return nil, errors.New("manifest: cannot write it back")
	}
	return []byte(strings.ReplaceAll(buf.String(), "\r", "")), nil
}
