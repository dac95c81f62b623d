// Command corpusgen writes a synthetic corpus with planted secrets and
// decoys, and evaluates scanner findings against its ground truth.
//
//	go run ./internal/corpusgen -out DIR -size 100MB -seed 1
//	go run ./internal/corpusgen eval -truth DIR.truth.jsonl -format keysweep findings.jsonl
//	go run ./internal/corpusgen eval -truth DIR.truth.jsonl -format gitleaks report.json
//
// The ground truth (one JSON object per planted line: file, line, type,
// is_decoy) goes to -truth, by default DIR.truth.jsonl beside the corpus so
// that scanners of DIR do not read it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/warden-mcp/warden/internal/corpusgen/gen"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "corpusgen:", err)
		os.Exit(1)
	}
}

func run(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "eval" {
		return runEval(args[1:], stdout)
	}
	fs := flag.NewFlagSet("corpusgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory to write the corpus into (created)")
	sizeFlag := fs.String("size", "100MB", "total size (KB, MB, GB are powers of 1000; KiB, MiB of 1024)")
	seed := fs.Uint64("seed", 1, "random seed")
	truthPath := fs.String("truth", "", "ground-truth JSONL file (default: OUT.truth.jsonl)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("-out is required")
	}
	size, err := parseSize(*sizeFlag)
	if err != nil {
		return err
	}
	if *truthPath == "" {
		*truthPath = strings.TrimRight(*out, string(os.PathSeparator)) + ".truth.jsonl"
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	tf, err := os.Create(*truthPath)
	if err != nil {
		return err
	}
	defer tf.Close()
	tw := bufio.NewWriter(tf)
	enc := json.NewEncoder(tw)
	nSecrets, nDecoys := 0, 0
	err = gen.Generate(gen.Options{Seed: *seed, Size: size}, func(name string) (io.WriteCloser, error) {
		p := filepath.Join(*out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		return os.Create(p)
	}, func(t gen.Truth) error {
		if t.IsDecoy {
			nDecoys++
		} else {
			nSecrets++
		}
		return enc.Encode(t)
	})
	if err != nil {
		return err
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d bytes to %s: %d planted secrets, %d decoys; truth in %s\n", size, *out, nSecrets, nDecoys, *truthPath)
	return tf.Close()
}

// parseSize reads "100MB", "512KiB", "1GB" or a plain byte count.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			n, err := strconv.ParseFloat(strings.TrimSuffix(s, u.suffix), 64)
			if err != nil || n <= 0 {
				return 0, fmt.Errorf("bad size %q", s)
			}
			return int64(n * float64(u.mult)), nil
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n, nil
}
