package cli

import (
	"net/http"
	"strconv"
	"testing"
)

// A refused upload says what the server said: its status, its public
// error code and message, in whichever shape it answered, and when to
// retry; never the token, even if a server echoed it.
func TestUploadRefusalText(t *testing.T) {
	const token = "eyJhbGciOiJFUzI1NiJ9.secret.sig"
	for _, c := range []struct {
		name   string
		status int
		header http.Header
		body   string
		want   string
	}{
		{"authentication", 401, http.Header{"Www-Authenticate": {`Bearer realm="warden", error="invalid_token", resource_metadata="http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp"`}},
			`{"error":"invalid_token","error_description":"the access token was issued for another server, not http://127.0.0.1:8787/mcp; run ` + "`warden token`" + ` for a new one"}`,
			"the server answered 401 Unauthorized: invalid_token: the access token was issued for another server, not http://127.0.0.1:8787/mcp; run `warden token` for a new one"},
		{"challenge only", 401, http.Header{"Www-Authenticate": {`Bearer realm="warden", error="invalid_token", error_description="the access token expired at 2026-12-01T10:00:00Z; run \"warden token\"", resource_metadata="x"`}},
			"", `the server answered 401 Unauthorized: invalid_token: the access token expired at 2026-12-01T10:00:00Z; run "warden token"`},
		{"upload endpoint", 429, http.Header{"Retry-After": {"3600"}},
			`{"error":{"code":"upload_quota_exceeded","message":"this credential's uploads today are at the daily allowance","retryAfterSeconds":3600}}`,
			"the server answered 429 Too Many Requests: upload_quota_exceeded: this credential's uploads today are at the daily allowance (retry in 3600 s)"},
		{"busy", 503, http.Header{"Retry-After": {"2"}}, `{"error":{"code":"server_busy","message":"too many uploads at once; try again shortly"}}`,
			"the server answered 503 Service Unavailable: server_busy: too many uploads at once; try again shortly (retry in 2 s)"},
		{"not found", 404, nil, "404 page not found\n",
			"the server answered 404 Not Found (is --url the server's MCP endpoint, such as https://warden.example.com/mcp?)"},
		{"hostile", 400, nil, `{"error":{"code":"bad\u001b[31m","message":"you sent ` + token + `\u0007"}}`,
			"the server answered 400 Bad Request: bad[31m: you sent [token]"},
	} {
		resp := &http.Response{StatusCode: c.status, Status: strconv.Itoa(c.status) + " " + http.StatusText(c.status), Header: c.header}
		if resp.Header == nil {
			resp.Header = http.Header{}
		}
		if got := refusalText(resp, []byte(c.body), token); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
