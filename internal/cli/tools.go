package cli

import (
	"encoding/json"
	"fmt"
	"github.com/warden-mcp/warden/plugin"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func (e *env) toolsCommand() *cobra.Command {
	var asJSON, asMarkdown bool
	var configPath string
	var gates gateFlags
	c := &cobra.Command{
		Use:   "tools",
		Short: "List the tools this build serves, and which this configuration lets run",
		Long: "List every tool of this build with its category, trust tier and flags, and say\n" +
			"whether the configuration (--config, the environment, --unsafe) lets it run\n" +
			"and, when not, which setting would.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(configPath, os.Getenv)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			gates.apply(cmd.Flags(), &cfg)
			if cfg, err = cfg.withDefaults(); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			w, err := wire(wireOptions{logger: discardLogger(), cfg: cfg})
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			defer w.closePlugins()
			for _, perr := range w.pluginErrs {
				fmt.Fprintln(e.stderr, "plugin refused:", perr)
			}
			tools, _ := w.reg.Tools()
			if asMarkdown {
				_, err := fmt.Fprint(e.stdout, toolsMarkdown(tools))
				return err
			}
			if asJSON {
				list := make([]json.RawMessage, 0, len(tools))
				status := map[string]any{}
				for _, t := range tools {
					list = append(list, t.Listing())
					st := map[string]any{"enabled": true}
					if refusal := w.gates.Status(t); refusal != nil {
						st = map[string]any{"enabled": false, "code": refusal.Code, "reason": refusal.Message}
					}
					status[t.Name] = st
				}
				return json.NewEncoder(e.stdout).Encode(map[string]any{"tools": list, "status": status, "approvals": w.gates.Approvals()})
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tCATEGORY\tTRUST\tFLAGS\tSTATUS\tDESCRIPTION")
			var why []string
			for _, t := range tools {
				var flags []string
				if t.Annotations.ReadOnly {
					flags = append(flags, "read-only")
				}
				if t.Catalog.Unsafe {
					flags = append(flags, "unsafe")
				}
				if t.Catalog.ConsumesQuota {
					flags = append(flags, "quota")
				}
				status := "enabled"
				if refusal := w.gates.Status(t); refusal != nil {
					status = refusal.Code
					why = append(why, refusal.Message)
				}
				desc := firstSentence(t.Description)
				if info, ok := plugin.InfoOf(t); ok {
					flags = append(flags, "plugin:"+info.Name)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Catalog.Category, t.Catalog.Trust, strings.Join(flags, ","), status, desc)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if len(why) > 0 {
				fmt.Fprintln(e.stdout)
				for _, w := range why {
					fmt.Fprintln(e.stdout, w)
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the tools/list entries and each tool's status as JSON")
	c.Flags().BoolVar(&asMarkdown, "markdown", false, "print the tools reference (docs/tools.md): every tool's catalog, annotations, parameters and output fields")
	c.Flags().StringVar(&configPath, "config", "", "configuration file (YAML) whose tools block to evaluate")
	gates.add(c.Flags())
	return c
}

// firstSentence returns s up to the end of its first sentence: a period
// followed by a space or the end of s. A period inside a word
// ("security.txt", "v1.2") or after "e.g"/"i.e" ends nothing.
func firstSentence(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] != '.' || (i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\n') {
			continue
		}
		if strings.HasSuffix(s[:i], "e.g") || strings.HasSuffix(s[:i], "i.e") {
			continue
		}
		return s[:i]
	}
	return strings.TrimSuffix(s, ".")
}
