// Command genhistory writes a git repository with a long history and
// planted secrets, for benchmarking warden scan secrets --git:
//
//	go run ./secretscan/gitscan/internal/histgen/genhistory -commits 5000 -secrets 200 DIR
//
// It prints how many secrets it planted, of which kinds, and how many
// were removed later or added twice (never the values).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/warden-mcp/warden/secretscan/gitscan/internal/histgen"
)

func main() {
	var o histgen.Options
	flag.IntVar(&o.Commits, "commits", 5000, "number of commits")
	flag.IntVar(&o.Secrets, "secrets", 200, "number of distinct planted secrets")
	flag.IntVar(&o.Files, "files", 200, "number of files")
	flag.IntVar(&o.Lines, "lines", 60, "lines per file")
	flag.Int64Var(&o.Seed, "seed", 1, "pseudo-random seed")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genhistory [flags] DIR")
		os.Exit(2)
	}
	planted, err := histgen.Generate(flag.Arg(0), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genhistory:", err)
		os.Exit(1)
	}
	kinds := map[string]int{}
	removed, twice := 0, 0
	for _, p := range planted {
		kinds[p.Kind]++
		if p.Removed {
			removed++
		}
		if p.Twice {
			twice++
		}
	}
	fmt.Printf("%d commits, %d secrets planted %v, %d removed later, %d added twice\n", o.Commits, len(planted), kinds, removed, twice)
}
