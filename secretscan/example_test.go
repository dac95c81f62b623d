package secretscan_test

import (
	"context"
	"errors"
	"fmt"
	"os"

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
	var e *secretscan.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, errors.Is(err, secretscan.ErrTooLarge))
	}
	// Output: input_too_large true
}

func ExampleWriteSARIF() {
	scanner := secretscan.New(&secretscan.Options{FingerprintKey: []byte("k")})
	res, _ := scanner.Scan(context.Background(), "token: glpat-Zr4vQm8TkL2xWp7NbY3c\n")
	_ = secretscan.WriteSARIF(os.Stdout, []secretscan.FileResult{{Path: "ci.yml", Result: res}}, nil)
}
