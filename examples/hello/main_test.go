package main

import (
	"context"
	"strings"
	"testing"
)

func TestHelloGreets(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello_greet","arguments":{"name":"you"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n")
	var out strings.Builder
	if err := serve(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"text":"hello, you"`) {
		t.Errorf("reply: %s", out.String())
	}
}
