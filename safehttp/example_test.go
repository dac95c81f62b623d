package safehttp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/warden-mcp/warden/safehttp"
)

// Refusals happen before any connection, each with one stable code.
func ExampleClient_Validate() {
	c := safehttp.New(nil) // production policy
	for _, u := range []string{
		"http://127.0.0.1/",
		"http://0x7f.1/",
		"http://[::ffff:169.254.169.254]/",
		"http://metadata.google.internal/",
		"http://example.com:8080/",
		"http://user:pw@example.com/",
		"file:///etc/passwd",
	} {
		_, err := c.Validate(context.Background(), u)
		fmt.Printf("%-34s %s\n", u, safehttp.ErrorCode(err))
	}
	// Output:
	// http://127.0.0.1/                  blocked_ip
	// http://0x7f.1/                     blocked_ip
	// http://[::ffff:169.254.169.254]/   blocked_ip
	// http://metadata.google.internal/   blocked_hostname
	// http://example.com:8080/           blocked_port
	// http://user:pw@example.com/        credentials_in_url
	// file:///etc/passwd                 invalid_scheme
}

// The error shown to a client is the code and a short message; the refused
// address is in the cause, for logs.
func ExampleBlockedError() {
	_, err := safehttp.New(nil).Validate(context.Background(), "http://2852039166/")
	fmt.Println(err)
	var b *safehttp.BlockedError
	if errors.As(err, &b) {
		fmt.Println(b.Addr, b.Reason)
	}
	// Output:
	// blocked_ip: target address is not allowed
	// 169.254.169.254 cloud_metadata
}

// Wiring for a scanner that follows redirects itself and opens its own TLS
// connections: every request and every dial goes through the policy.
func ExampleClient_HTTPClient() {
	c := safehttp.New(nil)
	hc := c.HTTPClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	dial := c.DialContext // func(ctx, network, addr string) (net.Conn, error), for tls.Client
	_, _ = hc, dial
}

func ExampleClient_Get() {
	c := safehttp.New(nil)
	resp, err := c.Get(context.Background(), "https://example.com/", nil)
	if err != nil {
		fmt.Println(safehttp.ErrorCode(err)) // never err.Error() details beyond the code and message
		return
	}
	fmt.Println(resp.Status, len(resp.Body), resp.Truncated, len(resp.Redirects), resp.FinalURL)
}
