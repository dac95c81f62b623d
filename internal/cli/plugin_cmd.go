package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/warden-mcp/warden/internal/toolset"
	"github.com/warden-mcp/warden/plugin"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/tooltest"
)

func (e *env) pluginCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "plugin",
		Short: "Write, build and check plugins (tools loaded by warden serve --plugins DIR)",
		Long: "A plugin is a directory holding warden-plugin.json and a module: WebAssembly\n" +
			"(Go, Rust, C), run sandboxed in process, or a Python file, run as a limited\n" +
			"child process. docs/plugins.md is the guide.",
	}
	c.AddCommand(e.pluginNewCommand(), e.pluginBuildCommand(), e.pluginCheckCommand())
	return c
}

func (e *env) pluginNewCommand() *cobra.Command {
	var lang, dir, replace string
	c := &cobra.Command{
		Use:   "new NAME",
		Short: "Write a working plugin with one tool, NAME_echo, that returns its text",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if dir == "" {
				dir = name
			}
			if !slices.Contains(plugin.Langs, lang) {
				return &exitError{code: ExitError, err: fmt.Errorf("--lang: want one of %s", strings.Join(plugin.Langs, ", "))}
			}
			if err := plugin.New(dir, name, plugin.ScaffoldOptions{Lang: lang, WardenVersion: Version(), Replace: replace}); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			fmt.Fprintf(e.stdout, "wrote %s (%s): build it with `warden plugin build %s`, check it with `warden plugin check %s`\n", dir, lang, dir, dir)
			return nil
		},
	}
	c.Flags().StringVar(&lang, "lang", "go", "the plugin's language: "+strings.Join(plugin.Langs, ", "))
	c.Flags().StringVar(&dir, "dir", "", "where to write it (default: ./NAME)")
	c.Flags().StringVar(&replace, "warden-src", "", "a local Warden source tree a Go plugin builds against (a replace directive in its go.mod)")
	return c
}

func (e *env) pluginBuildCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "build DIR",
		Short: "Build the plugin in DIR and write its derived schemas into its manifest",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var diag bytes.Buffer
			if err := plugin.Build(cmd.Context(), args[0], &plugin.BuildOptions{Stderr: &diag}); err != nil {
				_, _ = e.stderr.Write(diag.Bytes())
				return &exitError{code: ExitError, err: err}
			}
			fmt.Fprintf(e.stdout, "built %s\n", args[0])
			return nil
		},
	}
}

// checkReport collects the harness's findings.
type checkReport struct{ problems []string }

func (r *checkReport) Helper() {}
func (r *checkReport) Errorf(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

func (e *env) pluginCheckCommand() *cobra.Command {
	var samples []string
	var grants []string
	var asJSON bool
	c := &cobra.Command{
		Use:   "check DIR",
		Short: "Load the plugin in DIR and run the tool/tooltest harness over its tools",
		Long: "Load the plugin as warden serve would and hold every tool to the rules the\n" +
			"built-in tools meet: schemas, annotations and trust, bad arguments refused as\n" +
			"error results, and a call. Global tools are called with --sample TOOL=JSON, or\n" +
			"with arguments made from their schema's required parameters.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			problems, err := checkPlugin(cmd.Context(), args[0], samples, grants)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			if asJSON {
				if problems == nil {
					problems = []string{}
				}
				if err := json.NewEncoder(e.stdout).Encode(map[string]any{"ok": len(problems) == 0, "problems": problems}); err != nil {
					return err
				}
			} else {
				for _, p := range problems {
					fmt.Fprintln(e.stdout, p)
				}
			}
			if len(problems) > 0 {
				return &exitError{code: ExitError, err: fmt.Errorf("%d problem(s)", len(problems))}
			}
			if !asJSON {
				fmt.Fprintf(e.stdout, "%s: ok\n", filepath.Clean(args[0]))
			}
			return nil
		},
	}
	c.Flags().StringArrayVar(&samples, "sample", nil, "valid arguments for a tool, as TOOL=JSON; repeatable")
	c.Flags().StringArrayVar(&grants, "grant", nil, "capabilities to grant while checking (view, annotate, http); repeatable")
	c.Flags().BoolVar(&asJSON, "json", false, "print {ok, problems} as JSON")
	return c
}

// checkPlugin loads the plugin in dir and runs tooltest.Check over it.
func checkPlugin(ctx context.Context, dir string, samples, grants []string) ([]string, error) {
	m, err := plugin.ReadManifest(dir, toolset.Prefixes)
	if err != nil {
		return nil, err
	}
	p, err := plugin.Load(ctx, dir, &plugin.Options{Builtin: toolset.Prefixes, Grants: map[string][]string{m.Name: grants}})
	if err != nil {
		return nil, err
	}
	defer p.Close(ctx)
	reg := tool.NewRegistry()
	fam, err := reg.Family(m.Name + "_")
	if err != nil {
		return nil, err
	}
	byTool := map[string][]string{}
	for _, s := range samples {
		name, args, ok := strings.Cut(s, "=")
		if !ok || !json.Valid([]byte(args)) {
			return nil, fmt.Errorf("--sample %q: want TOOL=JSON", s)
		}
		byTool[name] = append(byTool[name], args)
	}
	for _, t := range p.Tools() {
		if err := fam.Register(t); err != nil {
			return nil, err
		}
		if _, given := byTool[t.Name]; !given && t.Scope == tool.Global {
			if args, ok := sampleArgs(t.InputSchema()); ok {
				byTool[t.Name] = []string{args}
			}
		}
	}
	r := &checkReport{}
	tooltest.Check(r, reg, &tooltest.Options{Samples: byTool})
	// The harness accepts a sample answered with a tool error; a
	// plugin's check wants its samples to succeed.
	for name, list := range byTool {
		for _, args := range list {
			rep, err := tooltest.Invoke(ctx, reg, name, args, nil)
			if err != nil || rep.Result == nil {
				continue // reported by Check
			}
			if code := rep.Result.ErrorCode(); code != "" {
				msg := ""
				if len(rep.Result.Content) > 0 {
					msg = rep.Result.Content[0].Text
				}
				r.Errorf("%s %s: the call failed: %s", name, args, msg)
			}
		}
	}
	slices.Sort(r.problems)
	return r.problems, nil
}

// sampleArgs makes arguments from a schema's required parameters: a
// string, the number 1 (or the minimum), false, an empty list. It gives
// up on anything else.
func sampleArgs(schema json.RawMessage) (string, bool) {
	var s struct {
		Properties map[string]struct {
			Type    any      `json:"type"`
			Minimum *float64 `json:"minimum"`
			Enum    []any    `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return "", false
	}
	args := map[string]any{}
	for _, name := range s.Required {
		p := s.Properties[name]
		if len(p.Enum) > 0 {
			args[name] = p.Enum[0]
			continue
		}
		switch p.Type {
		case "string":
			args[name] = "sample"
		case "integer", "number":
			args[name] = 1
			if p.Minimum != nil {
				args[name] = *p.Minimum
			}
		case "boolean":
			args[name] = false
		case "array":
			args[name] = []any{}
		default:
			return "", false
		}
	}
	b, _ := json.Marshal(args)
	return string(b), true
}
