package redact_test

import (
	"encoding/json"
	"fmt"

	"github.com/warden-mcp/warden/privacy"
	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/tool"
)

func ExampleParseMode() {
	for _, s := range []string{"", "strict", "paranoid"} {
		m, err := redact.ParseMode(s)
		fmt.Printf("%q: %q %v\n", s, m, err)
	}
	// Output:
	// "": "balanced" <nil>
	// "strict": "strict" <nil>
	// "paranoid": "" invalid_privacy_mode: unknown privacy mode: use strict, balanced or off
}

func ExampleRedactor_Field() {
	r, _ := redact.New(&redact.Options{Mode: redact.Balanced})
	fmt.Println(r.Field(privacy.URL, "location", "https://alice:pw@example.com/cb?code=x1&state=y#frag"))
	fmt.Println(r.Field(privacy.Header, "Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"))
	fmt.Println(r.Field(privacy.Header, "Set-Cookie", "sid=3f9a1c; Path=/; HttpOnly"))
	fmt.Println(r.Field(privacy.Header, "Server", "nginx/1.25.3"))
	fmt.Println(r.Field(privacy.Secret, "api_key", "sk_live_abc"))
	fmt.Println(r.Field(privacy.Host, "host", "db.internal.example.com"))
	// Output:
	// https://example.com/cb?code=REDACTED&state=REDACTED#REDACTED
	// Bearer [REDACTED:credential]
	// sid=[REDACTED:cookie]; Path=/; HttpOnly
	// nginx/1.25.3
	// [REDACTED:secret]
	// db.internal.example.com
}

func ExampleRedactor_Field_strict() {
	// One key per deployment: equal values get equal pseudonyms.
	key := []byte("a deployment secret of 16+ bytes")
	r, _ := redact.New(&redact.Options{Mode: redact.Strict, PseudonymKey: key})
	host := r.Field(privacy.Host, "host", "db.internal.example.com")
	url := r.Field(privacy.URL, "url", "https://DB.internal.example.com:8443/admin?id=7")
	fmt.Println(url == "https://"+host+":8443/admin?id=REDACTED")
	fmt.Println(r.Field(privacy.IP, "ip", "127.0.0.1")) // loopback identifies nothing
	// Output:
	// true
	// 127.0.0.1
}

func ExampleRedactor_Text() {
	r, _ := redact.New(nil) // Balanced
	out, spans := r.Text("deploy with GITHUB_TOKEN=ghp_XIxB7KMNdAr3zqWtQqhE94qglHqOzn1D1stg on run 4711")
	fmt.Println(out)
	fmt.Println(spans[0].Type, spans[0].Start, spans[0].End, spans[0].Length)
	// Output:
	// deploy with GITHUB_TOKEN=[REDACTED:github_personal_access_token] on run 4711
	// github_personal_access_token 25 65 40
}

func ExampleRedactor_Result() {
	r, _ := redact.New(nil)
	// A typed tool's result: structured content, repeated as text.
	b, _ := json.Marshal(map[string]string{"detail": "found AKIAZ3MSJV4WWNKWW5FG in .env", "password": "Sup3rS3cret!"})
	res := &tool.Result{Content: []tool.Content{tool.Text(string(b))}, Structured: b}
	out, err := r.Result(res)
	if err != nil {
		// Refuse the result: never pass it on unscanned.
		return
	}
	fmt.Println(string(out.Structured))
	fmt.Println(out.Content[0].Text == string(out.Structured))
	// Output:
	// {"detail":"found [REDACTED:aws_access_key_id] in .env","password":"[REDACTED:password]"}
	// true
}
