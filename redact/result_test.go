package redact

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/privacy"
	"github.com/warden-mcp/warden/tool"
)

// typedResult is a result as the SDK builds it for a typed tool: the
// structured JSON and the same JSON as text.
func typedResult(t testing.TB, v any) *tool.Result {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return &tool.Result{Content: []tool.Content{tool.Text(string(b))}, Structured: b}
}

// deepCopy copies a result through reflection-free JSON plus the fields
// JSON leaves out, so a test can tell whether Result mutated its input.
func deepCopy(res *tool.Result) *tool.Result {
	c := *res
	c.Content = append([]tool.Content(nil), res.Content...)
	for i := range c.Content {
		if r := c.Content[i].Resource; r != nil {
			rc := *r
			if r.Text != nil {
				t := *r.Text
				rc.Text = &t
			}
			rc.Meta = append(json.RawMessage(nil), r.Meta...)
			c.Content[i].Resource = &rc
		}
	}
	c.Structured = append(json.RawMessage(nil), res.Structured...)
	c.Warnings = append([]tool.Warning(nil), res.Warnings...)
	return &c
}

func mustResult(t testing.TB, r *Redactor, res *tool.Result) *tool.Result {
	t.Helper()
	before := deepCopy(res)
	out, err := r.Result(res)
	if err != nil {
		t.Fatalf("Result: %v", err)
	}
	if !reflect.DeepEqual(before, deepCopy(res)) {
		t.Fatal("Result mutated its input")
	}
	if len(out.Structured) > 0 && !json.Valid(out.Structured) {
		t.Fatalf("Result wrote invalid JSON: %s", out.Structured)
	}
	return out
}

func TestResultTypedTool(t *testing.T) {
	type header struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	type out struct {
		URL      string            `json:"url"`
		Detail   string            `json:"detail"`
		Password string            `json:"password"`
		Headers  map[string]string `json:"headers"`
		Pairs    []header          `json:"pairs"`
		Tokens   map[string]string `json:"tokens"`
		Count    int               `json:"count"`
		Note     string            `json:"note"`
	}
	in := out{
		URL:      "https://example.com/a?x=1",
		Detail:   "found " + ghToken + " in .env <next to> & after",
		Password: "Sup3rS3cret!",
		Headers:  map[string]string{"Authorization": "Bearer " + jwt, "X-Api-Key": "a8f5f167f44f4964e6c998dee827110c", "Server": "nginx"},
		Pairs:    []header{{"Content-Type", "text/html"}},
		Tokens:   map[string]string{ghToken: "ci", awsKeyID: "deploy"},
		Count:    3,
		Note:     "ünïcödé \"quoted\" \\ back\nslash",
	}
	r := newTest(t, Balanced)
	res := typedResult(t, in)
	got := mustResult(t, r, res)

	var back out
	if err := json.Unmarshal(got.Structured, &back); err != nil {
		t.Fatal(err)
	}
	want := in
	want.Detail = "found [REDACTED:github_personal_access_token] in .env <next to> & after"
	want.Password = "[REDACTED:password]"
	want.Headers = map[string]string{"Authorization": "Bearer [REDACTED:json_web_token]", "X-Api-Key": "[REDACTED:generic_api_key]", "Server": "nginx"}
	want.Tokens = map[string]string{"[REDACTED:github_personal_access_token]": "ci", "[REDACTED:aws_access_key_id]": "deploy"}
	if diff := cmp.Diff(want, back); diff != "" {
		t.Errorf("structured content (-want +got):\n%s", diff)
	}
	// The text block repeated the structured JSON: it still does.
	if len(got.Content) != 1 || got.Content[0].Text != string(got.Structured) {
		t.Errorf("the text block no longer repeats the structured content:\n%s\n%s", got.Content[0].Text, got.Structured)
	}
	// Unchanged members are copied byte for byte, in order.
	b := string(got.Structured)
	for _, frag := range []string{`{"url":"https://example.com/a?x=1","detail":`, `"pairs":[{"name":"Content-Type","value":"text/html"}],`, `"count":3,"note":"\u00fcn\u00efc\u00f6d\u00e9`} {
		if !strings.Contains(b, frag) && !strings.Contains(b, strings.ReplaceAll(frag, `\u00fcn\u00efc\u00f6d\u00e9`, "ünïcödé")) {
			t.Errorf("%q is not kept in %s", frag, b)
		}
	}
}

func TestResultMemberOrderAndSpacing(t *testing.T) {
	src := "{\n  \"z\": 1,\n  \"token\": \"" + ghToken + "\",\n  \"a\": [true, null, 1.5e3, \"x\"]\n}"
	r := newTest(t, Balanced)
	got := mustResult(t, r, &tool.Result{Structured: json.RawMessage(src)})
	want := "{\n  \"z\": 1,\n  \"token\": \"[REDACTED:github_personal_access_token]\",\n  \"a\": [true, null, 1.5e3, \"x\"]\n}"
	if string(got.Structured) != want {
		t.Errorf("got\n%s\nwant\n%s", got.Structured, want)
	}
}

// Member names are scanned, and a changed name never collides.
func TestResultMemberNames(t *testing.T) {
	src := `{"` + ghToken + `":1,"[REDACTED:github_personal_access_token]":2,"ghp_0000000000000000000000000000000000x0":3,"other":{"` + ghToken + `":4}}`
	r := newTest(t, Balanced)
	got := mustResult(t, r, &tool.Result{Structured: json.RawMessage(src)})
	want := `{"[REDACTED:github_personal_access_token]#2":1,"[REDACTED:github_personal_access_token]":2,"ghp_0000000000000000000000000000000000x0":3,"other":{"[REDACTED:github_personal_access_token]":4}}`
	if string(got.Structured) != want {
		t.Errorf("got\n%s\nwant\n%s", got.Structured, want)
	}
}

func TestResultBlocks(t *testing.T) {
	meta := json.RawMessage(`{"auth":"Bearer ` + jwt + `"}`)
	text := "config\nGITHUB_TOKEN=" + ghToken
	res := &tool.Result{
		Content: []tool.Content{
			tool.Text("see " + ghToken),
			tool.Image("Z2hwX1hJeEI3S01OZEFyM3pxV3RRcWhFOTRxZ2xIcU96bjFEMXN0Zw==", "image/png"),
			tool.Audio("Z2hwX1hJeEI3S01OZEFyM3pxV3RRcWhFOTRxZ2xIcU96bjFEMXN0Zw==", "audio/wav"),
			{Type: "resource", Resource: &tool.ResourceContents{URI: "file:///x", Text: &text, Meta: meta}},
			{Type: "resource_link", URI: "https://u:" + ghToken + "@example.com/", Name: "n", Description: "key " + awsKeyID},
		},
		Warnings: []tool.Warning{{Code: "partial", Message: "stopped at " + awsKeyID}},
		IsError:  true,
	}
	r := newTest(t, Balanced)
	got := mustResult(t, r, res)
	if got.Content[0].Text != "see [REDACTED:github_personal_access_token]" {
		t.Errorf("text block: %q", got.Content[0].Text)
	}
	for i := 1; i <= 2; i++ {
		if got.Content[i] != res.Content[i] {
			t.Errorf("block %d (%s) changed: %+v", i, res.Content[i].Type, got.Content[i])
		}
	}
	rc := got.Content[3].Resource
	if *rc.Text != "config\nGITHUB_TOKEN=[REDACTED:github_personal_access_token]" || strings.Contains(string(rc.Meta), jwt) || !json.Valid(rc.Meta) {
		t.Errorf("resource: %q %s", *rc.Text, rc.Meta)
	}
	if l := got.Content[4]; strings.Contains(l.URI, ghToken) || l.Description != "key [REDACTED:aws_access_key_id]" || l.Name != "n" {
		t.Errorf("resource link: %+v", l)
	}
	if got.Warnings[0].Message != "stopped at [REDACTED:aws_access_key_id]" || !got.IsError {
		t.Errorf("warnings %+v, isError %v", got.Warnings, got.IsError)
	}
}

// A text block that is not the structured JSON is scanned on its own.
func TestResultSeparateText(t *testing.T) {
	res := &tool.Result{Content: []tool.Content{tool.Text("summary: " + awsKeyID)}, Structured: json.RawMessage(`{"k":"` + ghToken + `"}`)}
	got := mustResult(t, newTest(t, Balanced), res)
	if got.Content[0].Text != "summary: [REDACTED:aws_access_key_id]" || string(got.Structured) != `{"k":"[REDACTED:github_personal_access_token]"}` {
		t.Errorf("got %q and %s", got.Content[0].Text, got.Structured)
	}
}

func TestResultUnchangedIsTheSameResult(t *testing.T) {
	res := typedResult(t, map[string]any{"url": "https://localhost/docs/", "n": 1, "list": []string{"a", "b"}})
	for _, mode := range []Mode{Off, Balanced, Strict} {
		got, rep, err := newTest(t, mode).RedactResult(res)
		if err != nil || got != res || rep.Redactions != 0 {
			t.Errorf("%s: got %p (want %p), %+v, %v", mode, got, res, rep, err)
		}
	}
	if got, err := newTest(t, Balanced).Result(nil); got != nil || err != nil {
		t.Errorf("Result(nil) = %v, %v", got, err)
	}
}

// Off hands back the very result, whatever it holds.
func TestResultOff(t *testing.T) {
	res := &tool.Result{Content: []tool.Content{tool.Text(ghToken)}, Structured: json.RawMessage(`not json`)}
	got, err := newTest(t, Off).Result(res)
	if err != nil || got != res {
		t.Errorf("Off: %v, %v", got, err)
	}
}

func TestResultReport(t *testing.T) {
	res := typedResult(t, map[string]string{"a": ghToken, "b": awsKeyID, "c": ghToken, "d": "plain"})
	_, rep, err := newTest(t, Balanced).RedactResult(res)
	if err != nil {
		t.Fatal(err)
	}
	want := Report{Redactions: 3, ByType: map[string]int{"github_personal_access_token": 2, "aws_access_key_id": 1}, Strings: 8}
	rep.Bytes = 0
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

// The pass fails closed: malformed or oversized results are refused, never
// passed through unscanned.
func TestResultFailsClosed(t *testing.T) {
	small, err := New(&Options{MaxStrings: 10, MaxBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	many := make([]string, 11)
	for _, c := range []struct {
		name string
		r    *Redactor
		res  *tool.Result
		code string
	}{
		{"invalid JSON", newTest(t, Balanced), &tool.Result{Structured: json.RawMessage(`{"a":`)}, CodeMalformed},
		{"trailing data", newTest(t, Balanced), &tool.Result{Structured: json.RawMessage(`{} {}`)}, CodeMalformed},
		{"too deep", newTest(t, Balanced), &tool.Result{Structured: json.RawMessage(strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1))}, CodeMalformed},
		{"invalid meta", newTest(t, Balanced), &tool.Result{Content: []tool.Content{{Type: "resource", Resource: &tool.ResourceContents{URI: "x", Meta: json.RawMessage(`{`)}}}}, CodeMalformed},
		{"too many strings", small, typedResult(t, many), CodeLimit},
		{"too many text blocks", small, &tool.Result{Content: slicesRepeat(tool.Text("x"), 11)}, CodeLimit},
		{"too many bytes", small, &tool.Result{Content: []tool.Content{tool.Text(strings.Repeat("x", 1001))}}, CodeLimit},
		{"structured too large", small, &tool.Result{Structured: json.RawMessage(`"` + strings.Repeat("x", 1000) + `"`)}, CodeLimit},
	} {
		out, err := c.r.Result(c.res)
		var e *errcode.Error
		if out != nil || !errors.As(err, &e) || e.Code != c.code {
			t.Errorf("%s: %v, %v; want %s", c.name, out, err, c.code)
			continue
		}
		if strings.Contains(e.Message, "x") && strings.Contains(e.Message, "xx") {
			t.Errorf("%s: the message quotes the result: %q", c.name, e.Message)
		}
	}
}

func slicesRepeat(c tool.Content, n int) []tool.Content {
	out := make([]tool.Content, n)
	for i := range out {
		out[i] = c
	}
	return out
}

// Strict redacts identifiers in structured content too.
func TestResultStrictIdentifiers(t *testing.T) {
	res := typedResult(t, map[string]string{"role": awsARN})
	if got := mustResult(t, newTest(t, Balanced), res); got != res {
		t.Errorf("Balanced changed %s", got.Structured)
	}
	if got := mustResult(t, newTest(t, Strict), res); string(got.Structured) != `{"role":"[REDACTED:aws_arn]"}` {
		t.Errorf("Strict: %s", got.Structured)
	}
}

// Redacting twice is redacting once.
func TestResultIdempotent(t *testing.T) {
	res := typedResult(t, map[string]any{
		"a": ghToken, ghToken: "x", "[REDACTED:github_personal_access_token]": 1,
		"nested": []any{map[string]string{"password": "Sup3rS3cret!", "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQJAIJLixBy2qpFoS4DSmoEm\n-----END RSA PRIVATE KEY-----"}},
	})
	r := newTest(t, Balanced)
	once := mustResult(t, r, res)
	twice := mustResult(t, r, once)
	if twice != once {
		t.Errorf("second pass changed the result:\n%s\n%s", once.Structured, twice.Structured)
	}
}

// A Redactor is shared by every call: concurrent passes give the answers
// of sequential ones (run with -race).
func TestConcurrentUse(t *testing.T) {
	r := newTest(t, Strict)
	results := []*tool.Result{
		benchResult(8 << 10),
		typedResult(t, map[string]any{"a": ghToken, "b": []string{jwt, "plain"}}),
		typedResult(t, map[string]string{"note": "nothing here"}),
	}
	want := make([]string, len(results))
	for i, res := range results {
		out := mustResult(t, r, res)
		want[i] = string(out.Structured) + "|" + r.Field(privacy.Host, "", "api.example.com")
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for n := range 20 {
				i := (g + n) % len(results)
				out, err := r.Result(results[i])
				if err != nil {
					errs <- err.Error()
					return
				}
				if got := string(out.Structured) + "|" + r.Field(privacy.Host, "", "api.example.com"); got != want[i] {
					errs <- fmt.Sprintf("result %d differs", i)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// Members whose names hold KeySweep keywords are read as JSON
// assignments; their values that are not credentials survive, and so do
// the neighbours of one that is.
func TestResultKeepsKeywordNamedNonSecrets(t *testing.T) {
	keep := map[string]any{
		"token_type": "Bearer", "key": "Content-Type", "sort_key": "created_at", "auth_method": "oauth2",
		"session_timeout": "30m", "password_changed_at": "2024-01-01T00:00:00Z", "primary_key": "id",
		"public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@host",
		"key_id":     "abc123", "secret_name": "prod/db", "token_expires": "2024-05-01T10:00:00Z",
		"request_id": "550e8400-e29b-41d4-a716-446655440000", "password_policy": "min 12 chars",
		"token_endpoint": "https://login.example.com/oauth2/token", "key_algorithm": "RSA-2048",
		"signature_algorithm": "sha256WithRSAEncryption", "cookie_name": "sessionid",
		"key_fingerprint": "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8", "password_hash_algorithm": "bcrypt",
		"api_key": "YOUR_API_KEY", "secret": "", "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	}
	in := map[string]any{"github_token": ghToken}
	for k, v := range keep {
		in[k] = v
	}
	got := mustResult(t, newTest(t, Balanced), typedResult(t, in))
	var back map[string]any
	if err := json.Unmarshal(got.Structured, &back); err != nil {
		t.Fatal(err)
	}
	for k, v := range keep {
		if back[k] != v {
			t.Errorf("%s: %q became %q", k, v, back[k])
		}
	}
	if back["github_token"] != "[REDACTED:github_personal_access_token]" {
		t.Errorf("github_token: %q", back["github_token"])
	}
}
