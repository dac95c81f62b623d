package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/tool/addrexpr"
)

type inspectFlags struct {
	asJSON      bool
	maxFileSize int64
	raw         string
	base        string
	slice       string
	notable     int
	function    string
	svg, dot    string
	syntax      string
}

func (e *env) inspectCommand() *cobra.Command {
	var f inspectFlags
	c := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Triage a binary: format, architecture, hardening, imports, notable strings, Go build info",
		Long: "Inspect an executable (ELF, PE, Mach-O including fat files, or raw bytes with --raw)\n" +
			"the way the bininspect tools see it: format and architecture, entry point, hashes\n" +
			"(MD5, SHA-1, SHA-256, PE imphash), hardening (PIE, NX, RELRO, canary, FORTIFY, CET;\n" +
			"ASLR, DEP, CFG, SafeSEH and signature for PE), toolchain and language, imported\n" +
			"libraries, notable strings (URLs, IP addresses, paths, registry keys) and, for Go\n" +
			"binaries, the toolchain version and module list, also when stripped.\n\n" +
			"The analysis runs in this process. --json prints every field; fields only ever grow.\n\n" +
			"With --function NAME (a name, sub_<hex>, or any address expression inside the function)\n" +
			"and --svg FILE or --dot FILE (- for standard output), it draws that function's\n" +
			"control-flow graph instead: the picture bininspect_function_graph returns as DOT.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.inspect(cmd, args[0], f)
		},
	}
	fl := c.Flags()
	fl.BoolVar(&f.asJSON, "json", false, "print the report as JSON")
	fl.Int64Var(&f.maxFileSize, "max-file-size", binview.LocalMaxFileSize, "refuse files larger than this many bytes")
	fl.StringVar(&f.raw, "raw", "", "read the file as raw bytes of this architecture: "+strings.Join(archList(), ", "))
	fl.StringVar(&f.base, "base", "0", "load address of a --raw file (hex, 0x optional)")
	fl.StringVar(&f.slice, "slice", "", "architecture to inspect in a Mach-O fat file (default: the first)")
	fl.IntVar(&f.notable, "strings", 20, "show at most this many notable strings")
	fl.StringVar(&f.function, "function", "", "draw this function's control-flow graph (with --svg or --dot)")
	fl.StringVar(&f.svg, "svg", "", "with --function: write the graph as SVG to this file (- for standard output)")
	fl.StringVar(&f.dot, "dot", "", "with --function: write the graph as Graphviz DOT to this file (- for standard output)")
	fl.StringVar(&f.syntax, "syntax", "intel", "with --function: assembly syntax, intel, gnu or go")
	return c
}

func archList() []string {
	var s []string
	for _, a := range binview.Arches {
		s = append(s, string(a))
	}
	return s
}

// inspectReport is the --json output. Its fields only ever grow.
// Addresses are hex strings, so 64-bit values survive JSON readers that
// use doubles.
type inspectReport struct {
	Name      string            `json:"name"`
	Format    binview.Format    `json:"format"`
	Arch      binview.Arch      `json:"arch"`
	Machine   string            `json:"machine,omitempty"`
	Bits      int               `json:"bits"`
	Endian    string            `json:"endian"`
	Kind      string            `json:"kind"`
	Size      int64             `json:"size"`
	Entry     string            `json:"entry"`
	ImageBase string            `json:"imageBase"`
	Stripped  bool              `json:"stripped"`
	Slices    []binview.Slice   `json:"slices,omitempty"`
	Hashes    binview.Hashes    `json:"hashes"`
	Hardening []binview.Check   `json:"hardening"`
	Toolchain binview.Toolchain `json:"toolchain"`
	Counts    binview.Counts    `json:"counts"`
	Libraries []inspectLibrary  `json:"libraries"`
	Notable   []inspectString   `json:"notableStrings"`
	Build     binview.BuildInfo `json:"build"`
	State     string            `json:"state"`
	Warnings  []binview.Warning `json:"warnings,omitempty"`
}

type inspectLibrary struct {
	Name    string   `json:"name"`
	Imports []string `json:"imports"`
}

type inspectString struct {
	Kind    string `json:"kind"`
	Addr    string `json:"addr"`
	Section string `json:"section,omitempty"`
	Text    string `json:"text"`
}

func (e *env) inspect(cmd *cobra.Command, path string, f inspectFlags) error {
	fail := func(err error) error { return &exitError{code: ExitError, err: err} }
	opts := &binview.Options{MaxFileSize: f.maxFileSize, Slice: binview.Arch(f.slice)}
	if f.raw != "" {
		var base uint64
		if _, err := fmt.Sscanf(strings.TrimPrefix(strings.ToLower(f.base), "0x"), "%x", &base); err != nil {
			return fail(fmt.Errorf("--base: want a hex address"))
		}
		opts.Format, opts.Arch, opts.Base = binview.FormatRaw, binview.Arch(f.raw), base
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fail(err)
	}
	if !fi.Mode().IsRegular() {
		return fail(fmt.Errorf("%s: not a regular file", path))
	}
	if fi.Size() > f.maxFileSize {
		return fail(fmt.Errorf("%s: %s, over --max-file-size", path, humanBytes(fi.Size())))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fail(err)
	}
	if (f.function == "") != (f.svg == "" && f.dot == "") {
		return fail(fmt.Errorf("--function goes with --svg or --dot, and they with it"))
	}
	v, err := binview.Open(cmd.Context(), filepath.Base(path), data, opts)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	defer v.Close()
	if f.function != "" {
		if err := e.drawFunction(cmd.Context(), v, f); err != nil {
			return fail(fmt.Errorf("%s: %w", path, err))
		}
		return nil
	}
	rep := buildInspectReport(v, f.notable)
	if f.asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fail(err)
		}
		return nil
	}
	if err := writeInspectText(e.stdout, rep); err != nil {
		return fail(err)
	}
	return nil
}

func buildInspectReport(v *binview.View, notable int) inspectReport {
	t := v.Triage()
	rep := inspectReport{
		Name: t.Name, Format: t.Format, Arch: t.Arch, Machine: t.Machine, Bits: t.Bits, Endian: t.Endian, Kind: t.Kind,
		Size: t.Size, Entry: binview.Hex(t.Entry), ImageBase: binview.Hex(t.ImageBase), Stripped: t.Stripped,
		Slices: t.Slices, Hashes: t.Hashes, Hardening: t.Hardening, Toolchain: t.Toolchain, Counts: t.Counts,
		Build: v.BuildInfo(), State: t.State, Warnings: t.Warnings,
		Libraries: []inspectLibrary{}, Notable: []inspectString{},
	}
	byLib := map[string][]string{}
	for _, im := range v.Imports() {
		byLib[im.Library] = append(byLib[im.Library], im.Name)
	}
	libs := append([]string(nil), v.Libraries()...)
	for l := range byLib {
		if !contains(libs, l) {
			libs = append(libs, l)
		}
	}
	sort.Strings(libs)
	for _, l := range libs {
		imps := byLib[l]
		sort.Strings(imps)
		if imps == nil {
			imps = []string{}
		}
		rep.Libraries = append(rep.Libraries, inspectLibrary{Name: l, Imports: imps})
	}
	for _, n := range v.NotableStrings(notable) {
		rep.Notable = append(rep.Notable, inspectString{Kind: n.Kind, Addr: binview.Hex(n.Addr), Section: n.Section, Text: n.Text})
	}
	return rep
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func writeInspectText(w io.Writer, r inspectReport) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }
	p("%s: %s %d-bit %s %s, %s-endian, %s\n", r.Name, strings.ToUpper(string(r.Format)), r.Bits, r.Arch, r.Kind, r.Endian, humanBytes(r.Size))
	p("  entry\t%s\n", r.Entry)
	p("  image base\t%s\n", r.ImageBase)
	if r.Toolchain.Language != "" {
		lang := strings.Join(r.Toolchain.Languages, ", ")
		if len(r.Toolchain.Compilers) > 0 {
			lang += " (" + strings.Join(r.Toolchain.Compilers, "; ") + ")"
		}
		p("  language\t%s\n", lang)
	}
	p("  stripped\t%s\n", map[bool]string{true: "yes", false: "no"}[r.Stripped])
	p("  sha256\t%s\n", r.Hashes.SHA256)
	p("  md5\t%s\n", r.Hashes.MD5)
	if r.Hashes.ImpHash != "" {
		p("  imphash\t%s\n", r.Hashes.ImpHash)
	}
	for _, s := range r.Slices {
		p("  slice\t%s at %d, %s\n", s.Arch, s.Offset, humanBytes(s.Size))
	}
	c := r.Counts
	p("  counts\t%d sections, %d segments, %d symbols, %d imports, %d exports, %d strings", c.Sections, c.Segments, c.Symbols, c.Imports, c.Exports, c.Strings)
	if c.GoFunctions > 0 {
		p(", %d Go functions", c.GoFunctions)
	}
	p("\n\nHardening\n")
	for _, h := range r.Hardening {
		p("  %s\t%s\t%s\n", h.Name, h.Status, h.Detail)
	}
	if len(r.Libraries) > 0 {
		p("\nImports (%d libraries, %d symbols)\n", len(r.Libraries), c.Imports)
		for _, l := range r.Libraries {
			name := l.Name
			if name == "" {
				name = "(unknown library)"
			}
			shown := l.Imports
			more := ""
			if len(shown) > 12 {
				more = fmt.Sprintf(", … %d more", len(shown)-12)
				shown = shown[:12]
			}
			p("  %s\t%s%s\n", name, strings.Join(shown, ", "), more)
		}
	}
	if g := r.Build.Go; g != nil {
		p("\nGo build\n")
		p("  version\t%s\n", g.Version)
		if g.Path != "" {
			p("  path\t%s\n", g.Path)
		}
		if g.Main != nil && g.Main.Path != "" {
			p("  main module\t%s %s\n", g.Main.Path, g.Main.Version)
		}
		if g.Functions > 0 {
			p("  functions\t%d (pclntab %s)\n", g.Functions, g.Pclntab)
		}
		for i, d := range g.Deps {
			if i == 10 {
				p("  \t… %d more modules\n", len(g.Deps)-10)
				break
			}
			p("  dep\t%s %s\n", d.Path, d.Version)
		}
		for _, s := range g.Settings {
			switch s.Key {
			case "GOOS", "GOARCH", "CGO_ENABLED", "-buildmode", "-ldflags", "vcs.revision", "vcs.time", "vcs.modified":
				p("  %s\t%s\n", s.Key, s.Value)
			}
		}
	}
	if e := r.Build.ELF; e != nil && (e.BuildID != "" || e.Interpreter != "" || e.SOName != "") {
		p("\nELF\n")
		if e.BuildID != "" {
			p("  build id\t%s\n", e.BuildID)
		}
		if e.Interpreter != "" {
			p("  interpreter\t%s\n", e.Interpreter)
		}
		if e.SOName != "" {
			p("  soname\t%s\n", e.SOName)
		}
	}
	if pe := r.Build.PE; pe != nil {
		p("\nPE\n")
		p("  subsystem\t%s\n", pe.Subsystem)
		if pe.PDBPath != "" {
			p("  pdb\t%s\n", pe.PDBPath)
		}
		if pe.DotNet != nil {
			p("  .NET runtime\t%s\n", pe.DotNet.RuntimeVersion)
		}
		for _, s := range pe.Signers {
			p("  signer\t%s\n", s.Subject)
		}
		for _, kv := range pe.VersionInfo {
			p("  %s\t%s\n", kv.Key, kv.Value)
		}
	}
	if m := r.Build.MachO; m != nil && m.UUID != "" {
		p("\nMach-O\n")
		p("  uuid\t%s\n", m.UUID)
		if m.Platform != "" {
			p("  platform\t%s %s (sdk %s)\n", m.Platform, m.MinOS, m.SDK)
		}
	}
	if len(r.Notable) > 0 {
		p("\nNotable strings\n")
		for _, s := range r.Notable {
			p("  %s\t%s\t%s\n", s.Kind, s.Addr, strings.ReplaceAll(s.Text, "\n", "\\n"))
		}
	}
	if len(r.Warnings) > 0 {
		p("\nWarnings\n")
		for _, wn := range r.Warnings {
			p("  %s\t%s\n", wn.Code, wn.Message)
		}
	}
	return tw.Flush()
}

// drawFunction writes the control-flow graph of the function f.function
// names, as SVG and or DOT, with the code bininspect_function_graph
// uses. It waits for the whole code analysis (bounded by its own time
// budget).
func (e *env) drawFunction(ctx context.Context, v *binview.View, f inspectFlags) error {
	syn, err := disasm.ParseSyntax(f.syntax)
	if err != nil {
		return fmt.Errorf("--syntax: want intel, gnu or go")
	}
	addr, err := addrexpr.Evaluate(ctx, f.function, v)
	if err != nil {
		return fmt.Errorf("--function: %w", err)
	}
	st, err := v.WaitCode(ctx, binview.CodeReferences)
	if err != nil {
		return err
	}
	cfg, err := v.FunctionGraph(st, nil, addr, syn)
	if err != nil {
		return err
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{f.svg, cfg.WriteSVG}, {f.dot, cfg.WriteDOT}} {
		switch out.path {
		case "":
		case "-":
			if err := out.write(e.stdout); err != nil {
				return err
			}
		default:
			w, err := os.Create(out.path)
			if err != nil {
				return err
			}
			err = out.write(w)
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(e.stderr, "%s: %s at %s, %d blocks\n", v.ViewName(), cfg.Function.Name, binview.Hex(cfg.Function.Addr), len(cfg.Blocks))
	return nil
}
