package toolset

import (
	"bytes"
	"encoding/json"
	"testing"
)

const parseFixture = "POST /login?next=%2Fhome&sessionid=q-77aa HTTP/1.1\r\n" +
	"Host: shop.example.com\r\n" +
	"Authorization: Basic YWxpY2U6UGFzc3cwcmQhMjAyNg==\r\n" +
	"Cookie: sid=cookie-secret-1; theme=dark\r\n" +
	"Content-Type: application/json\r\n" +
	"X-Trace: trace-visible-42\r\n\r\n" +
	`{"user":"alice","remember":true}`

func TestHTTPParse(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"raw": parseFixture})
	var out HTTPParseResult
	json.Unmarshal(call(t, "http_parse", string(args)), &out)
	if out.Kind != "request" || out.Method != "POST" || out.Path != "/login" || out.Query["next"][0] != "/home" ||
		out.Cookies["theme"][0] != "dark" || out.Auth[0].Username != "alice" || out.Auth[0].Password != "Passw0rd!2026" ||
		string(out.JSON) != `{"user":"alice","remember":true}` || len(out.HeaderOrder) != 5 {
		t.Errorf("%+v", out)
	}
	srv := privacyServer(t, registryWith(t, Deps{}), "off")
	if got := errorCode(srv("http_parse", `{"raw":"hello"}`)); got != "invalid_http_message" {
		t.Errorf("garbage: %q", got)
	}
}

// On the bytes: cookie values, credentials and query values go in
// balanced and strict and stay in off; cookie names, the scheme, the body
// and harmless headers survive.
func TestHTTPParsePrivacy(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"raw": parseFixture})
	for mode, call := range servers(t, registryWith(t, Deps{})) {
		resp := call("http_parse", string(args))
		for _, s := range []string{"cookie-secret-1", "Passw0rd!2026", "YWxpY2U6UGFzc3cwcmQhMjAyNg", "q-77aa"} {
			if bytes.Contains(resp, []byte(s)) != (mode == "off") {
				t.Errorf("%s: %s present=%v", mode, s, bytes.Contains(resp, []byte(s)))
			}
		}
		for _, keep := range []string{`"sid"`, `"theme"`, `"Basic`, "trace-visible-42", `\"remember\":true`, `"/login"`} {
			if !bytes.Contains(resp, []byte(keep)) {
				t.Errorf("%s: %s is gone: %.800s", mode, keep, resp)
			}
		}
		if bytes.Contains(resp, []byte("shop.example.com")) != (mode != "strict") {
			t.Errorf("%s: Host handling", mode)
		}
	}
}
