package secretscan_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/secretscan"
)

func ExampleScanner_Scan() {
	scanner := secretscan.New(&secretscan.Options{FingerprintKey: []byte("per-deployment key")})
	text := "# deploy settings\nDATABASE_URL=postgres://app:Xq7v2LmP9wTz4Rb8@db.internal:5432/app\n"
	res, err := scanner.Scan(context.Background(), text)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range res.Detections {
		fmt.Println(d.Type, d.Severity, d.Line, d.Column, d.ValueLength)
	}
	fmt.Println(res.RiskLevel(), res.Summarize().Total)
	// Output:
	// postgresql_connection_url critical 2 29 16
	// critical 1
}

func ExampleScanner_ScanLimited() {
	scanner := secretscan.New(nil)
	_, err := scanner.ScanLimited(context.Background(), "0123456789", 5)
	fmt.Println(errcode.CodeOf(err), errors.Is(err, secretscan.ErrTooLarge))
	// Output: input_too_large true
}

func ExampleWriteSARIF() {
	scanner := secretscan.New(&secretscan.Options{FingerprintKey: []byte("k")})
	res, _ := scanner.Scan(context.Background(), "token: glpat-Zr4vQm8TkL2xWp7NbY3c\n")
	_ = secretscan.WriteSARIF(os.Stdout, []secretscan.FileResult{{Path: "ci.yml", Result: res}}, nil)
}

func ExampleScanner_ScanDir() {
	dir, _ := os.MkdirTemp("", "keysweep-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "app.env"), []byte("STRIPE_KEY=sk_live_4QpLx9Vb2TzR8mWn6KcY3hJd\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "debug.log"), []byte("STRIPE_KEY=sk_live_4QpLx9Vb2TzR8mWn6KcY3hJd\n"), 0o644)

	scanner := secretscan.New(nil)
	stats, err := scanner.ScanDir(context.Background(), dir, nil, func(fr secretscan.FileResult) error {
		for _, d := range fr.Result.Detections {
			fmt.Println(fr.Path, d.Line, d.Type, d.Severity)
		}
		return nil
	})
	fmt.Println(stats.Files, stats.Skipped[secretscan.SkipIgnored], err)
	// Output:
	// app.env 1 stripe_live_secret_key critical
	// 2 1 <nil>
}

func ExampleReadBaseline() {
	key := []byte("per-deployment key")
	scanner := secretscan.New(&secretscan.Options{FingerprintKey: key})
	text := "token: glpat-Zr4vQm8TkL2xWp7NbY3c\n"
	res, _ := scanner.Scan(context.Background(), text)

	var file strings.Builder // normally a file checked into the repository
	secretscan.WriteBaseline(&file, res.Detections)
	bl, _ := secretscan.ReadBaseline(strings.NewReader(file.String()))

	again, _ := secretscan.New(&secretscan.Options{FingerprintKey: key, Baseline: bl}).Scan(context.Background(), text)
	fmt.Println(len(res.Detections), len(again.Detections), again.Suppressed)
	// Output: 1 0 1
}
