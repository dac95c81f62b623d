package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func (e *env) toolsCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "tools",
		Short: "List the tools this build serves",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, err := wire(wireOptions{logger: discardLogger()})
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			tools, _ := w.reg.Tools()
			if asJSON {
				list := make([]json.RawMessage, 0, len(tools))
				for _, t := range tools {
					list = append(list, t.Listing())
				}
				return json.NewEncoder(e.stdout).Encode(map[string]any{"tools": list})
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tCATEGORY\tTRUST\tFLAGS\tDESCRIPTION")
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
				desc := firstSentence(t.Description)
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.Name, t.Catalog.Category, t.Catalog.Trust, strings.Join(flags, ","), desc)
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the tools/list entries as JSON")
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
