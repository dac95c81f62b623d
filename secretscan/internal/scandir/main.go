// Command scandir scans a directory with the secretscan engine and prints
// one JSON object per detection (file, line, rule, type, fingerprint; never
// the value). It is a measuring tool for scripts/bench-secrets.sh until the
// warden CLI's "scan secrets" command exists.
//
//	go run ./secretscan/internal/scandir [-workers N] [-max-file-size BYTES] DIR > findings.jsonl
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/warden-mcp/warden/secretscan"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scandir:", err)
		os.Exit(1)
	}
}

type line struct {
	File string `json:"file"`
	secretscan.Detection
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scandir", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workers := fs.Int("workers", 0, "files scanned at once (0: GOMAXPROCS)")
	maxSize := fs.Int64("max-file-size", 0, "skip larger files (0: 4 MiB)")
	all := fs.Bool("all", false, "include .gitignore'd and binary files")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: scandir [flags] DIR")
	}
	s := secretscan.New(nil)
	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	start := time.Now()
	n := 0
	stats, err := s.ScanDir(ctx, fs.Arg(0), &secretscan.WalkOptions{Workers: *workers, MaxFileSize: *maxSize,
		IncludeIgnored: *all, IncludeBinary: *all}, func(fr secretscan.FileResult) error {
		for _, d := range fr.Result.Detections {
			n++
			if err := enc.Encode(line{File: fr.Path, Detection: d}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return err
	}
	wall := time.Since(start)
	fmt.Fprintf(stderr, "scandir: %d files, %d bytes, %d detections, %v wall, %.1f MB/s wall; skipped %v\n",
		stats.Files, stats.Bytes, n, wall.Round(time.Millisecond), float64(stats.Bytes)/1e6/wall.Seconds(), stats.Skipped)
	return nil
}
