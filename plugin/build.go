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
	case fileExists(filepath.Join(dir, "lib.rs")):
		return buildNative(ctx, dir, m, o, rustCommand)
	case hasC(dir):
		return buildNative(ctx, dir, m, o, cCommand)
	}
	return &ManifestError{File: file, Rule: "no sources Warden knows how to build here (*.go, lib.rs, *.c); build the module with its own toolchain (docs/plugins.md)"}
}

func hasC(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.c"))
	return len(m) > 0
}

// buildNative builds a C or Rust plugin whose schemas are written in the
// manifest by hand: command gives the compiler's command line.
func buildNative(ctx context.Context, dir string, m *Manifest, o *BuildOptions, command func(dir, out string) ([]string, error)) error {
	out := dir
	if o.OutDir != "" {
		out = o.OutDir
	}
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	argv, err := command(dir, filepath.Join(out, m.Module))
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		if o.Stderr != nil {
			o.Stderr.Write(stderr.Bytes())
		}
		return fmt.Errorf("%s failed: %w", filepath.Base(argv[0]), err)
	}
	if o.OutDir != "" {
		raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(out, ManifestFile), raw, 0o644)
	}
	return nil
}

// CanBuild reports why Build cannot build plugins in lang (c or rust)
// here, or nil: the toolchain and the WASI libraries are installed.
func CanBuild(lang string) error {
	var err error
	switch lang {
	case "c":
		_, err = cCommand(".", "x.wasm")
	case "rust":
		_, err = rustCommand(".", "x.wasm")
	}
	return err
}

// wasiSysroots are where Debian's wasi-libc (and others) put the sysroot.
var wasiSysroots = []string{"/usr/share/wasi-sysroot", "/usr/lib/wasi-sysroot", "/opt/wasi-sdk/share/wasi-sysroot"}

// cCommand compiles every .c file of dir into a WASI reactor.
func cCommand(dir, out string) ([]string, error) {
	clang, err := exec.LookPath("clang")
	if err != nil {
		return nil, errors.New("clang is not installed (Debian: clang, lld and wasi-libc)")
	}
	sysroot := ""
	for _, d := range wasiSysroots {
		if dirExists(d) {
			sysroot = d
			break
		}
	}
	argv := []string{clang, "--target=wasm32-wasi"}
	switch {
	case sysroot != "":
		argv = append(argv, "--sysroot="+sysroot)
	case dirExists("/usr/lib/wasm32-wasi"):
		// Debian's wasi-libc: clang finds it in the multiarch directories.
	default:
		return nil, errors.New("no WASI sysroot found (Debian: wasi-libc)")
	}
	srcs, _ := filepath.Glob(filepath.Join(dir, "*.c"))
	for i, s := range srcs {
		srcs[i] = filepath.Base(s)
	}
	return append(append(argv, "-O2", "-mexec-model=reactor", "-o", out), srcs...), nil
}

// rustCommand compiles lib.rs into a cdylib for WASI preview 1, with the
// first rustc (on PATH, then the system's) that has the target's
// standard library.
func rustCommand(dir, out string) ([]string, error) {
	var candidates []string
	if p, err := exec.LookPath("rustc"); err == nil {
		candidates = append(candidates, p)
	}
	candidates = append(candidates, "/usr/bin/rustc")
	for _, rc := range candidates {
		b, err := exec.Command(rc, "--print", "sysroot").Output()
		if err != nil {
			continue
		}
		root := strings.TrimSpace(string(b))
		for _, target := range []string{"wasm32-wasip1", "wasm32-wasi"} {
			if st, err := os.Stat(filepath.Join(root, "lib", "rustlib", target)); err == nil && st.IsDir() {
				return []string{rc, "--target", target, "--crate-type", "cdylib", "-O", "-o", out, "lib.rs"}, nil
			}
		}
	}
	return nil, errors.New("no rustc with the wasm32-wasi standard library (Debian: rustc and libstd-rust-dev-wasm32)")
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

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
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
