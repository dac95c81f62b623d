package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X .../internal/cli.version=v1.2.3".
var version = "dev"

// Version returns the build's version: the linker-set one, else the
// module version, else "dev".
func Version() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}

func (e *env) versionCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				return json.NewEncoder(e.stdout).Encode(map[string]string{
					"version": Version(), "edition": string(edition), "go": runtime.Version(),
				})
			}
			_, err := fmt.Fprintf(e.stdout, "warden %s (%s edition, %s)\n", Version(), edition, runtime.Version())
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
