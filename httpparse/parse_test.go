package httpparse

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/warden-mcp/warden/errcode"
)

func warnings(m *Message) []string {
	var out []string
	for _, w := range m.Warnings {
		out = append(out, w.Code)
	}
	return out
}

func TestRequest(t *testing.T) {
	raw := "POST /api/login?next=%2Fhome&debug&q=a+b HTTP/1.1\r\n" +
		"Host: app.example.com\r\n" +
		"Authorization: Basic YWxpY2U6czNjcjN0\r\n" +
		"Cookie: sid=abc123; theme=dark\r\n" +
		"Content-Type: application/x-www-form-urlencoded\r\n" +
		"Content-Length: 33\r\n\r\n" +
		"username=alice&password=hunter2%21"
	m, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := &Message{
		Kind: "request", Method: "POST", Target: "/api/login?next=%2Fhome&debug&q=a+b", Path: "/api/login", Proto: "HTTP/1.1",
		Query: []Param{{"next", "/home"}, {"debug", ""}, {"q", "a b"}},
		Headers: []Header{{"Host", "app.example.com"}, {"Authorization", "Basic YWxpY2U6czNjcjN0"}, {"Cookie", "sid=abc123; theme=dark"},
			{"Content-Type", "application/x-www-form-urlencoded"}, {"Content-Length", "33"}},
		Cookies:     []Param{{"sid", "abc123"}, {"theme", "dark"}},
		Auth:        []Auth{{Header: "Authorization", Scheme: "Basic", Username: "alice", Password: "s3cr3t"}},
		Body:        []byte("username=alice&password=hunter2%21"),
		ContentType: "application/x-www-form-urlencoded",
		Form:        []Param{{"username", "alice"}, {"password", "hunter2!"}},
		Warnings:    []Warning{{"content_length_mismatch", "Content-Length says 33 bytes but the body has 34"}},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestResponse(t *testing.T) {
	raw := "HTTP/1.1 200 OK\n" +
		"Set-Cookie: sid=xyz; Path=/; Domain=.example.com; Secure; HttpOnly; SameSite=Lax\n" +
		"Content-Type: application/json; charset=utf-8\n" +
		"Transfer-Encoding: chunked\n\n" +
		"7\r\n{\"a\": 1\r\n1\r\n}\r\n0\r\n\r\n"
	m, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != "response" || m.Status != 200 || m.Reason != "OK" || !m.Chunked || string(m.JSON) != `{"a":1}` {
		t.Errorf("%+v", m)
	}
	if diff := cmp.Diff([]SetCookie{{Name: "sid", Value: "xyz", Path: "/", Domain: ".example.com", Secure: true, HTTPOnly: true, SameSite: "Lax"}}, m.SetCookies); diff != "" {
		t.Error(diff)
	}
	if !slices.Contains(warnings(m), "bare_lf") {
		t.Errorf("warnings %v", warnings(m))
	}
}

func TestSmugglingSignals(t *testing.T) {
	cases := map[string]string{
		"cl_te_conflict":           "POST / HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"duplicate_content_length": "POST / HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcd",
		"obs_fold":                 "GET / HTTP/1.1\r\nX-A: one\r\n two\r\n\r\n",
		"space_before_colon":       "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
		"malformed_chunks":         "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc",
		"chunked_not_last":         "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n",
		"no_version":               "GET /\r\n\r\n",
		"no_blank_line":            "GET / HTTP/1.1\r\nHost: a",
		"malformed_header_line":    "GET / HTTP/1.1\r\nnot a header\r\n\r\n",
		"invalid_json_body":        "POST / HTTP/1.1\r\nContent-Type: application/json\r\n\r\n{oops",
	}
	for code, raw := range cases {
		m, err := Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", code, err)
		}
		if !slices.Contains(warnings(m), code) {
			t.Errorf("%s: warnings %v", code, warnings(m))
		}
	}
}

func TestMultipartAndAuthSchemes(t *testing.T) {
	raw := "POST /up HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=XX\r\n" +
		"Proxy-Authorization: Digest username=\"bob\", realm=\"r\", response=\"abc\"\r\n" +
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig\r\n\r\n" +
		"--XX\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.php\"\r\nContent-Type: image/png\r\n\r\n<?php x ?>\r\n--XX\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\nv\r\n--XX--\r\n"
	m, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Part{{Name: "f", Filename: "a.php", ContentType: "image/png", Bytes: 10}, {Name: "n", Bytes: 1}}, m.Multipart); diff != "" {
		t.Error(diff)
	}
	if len(m.Auth) != 2 || m.Auth[0].Scheme != "Digest" || m.Auth[0].Params[0] != (Param{"username", "bob"}) || m.Auth[1].Token != "eyJhbGciOiJIUzI1NiJ9.e30.sig" {
		t.Errorf("auth %+v", m.Auth)
	}
}

func TestRefusals(t *testing.T) {
	for raw, code := range map[string]string{
		"":                                  CodeInvalidMessage,
		"hello":                             CodeInvalidMessage,
		"HTTP/1.1 OK\r\n\r\n":               CodeInvalidMessage,
		"G(T / HTTP/1.1\r\n\r\n":            CodeInvalidMessage,
		"GET / FTP/1\r\n\r\n":               CodeInvalidMessage,
		"GET / HTTP/1.1\r\n folded\r\n\r\n": CodeInvalidMessage,
		strings.Repeat("a", MaxInput+1):     CodeInputTooLarge,
		"GET / HTTP/1.1\r\n" + strings.Repeat("X: y\r\n", MaxHeaders+1) + "\r\n": CodeInvalidMessage,
	} {
		_, err := Parse(raw)
		if errcode.CodeOf(err) != code {
			t.Errorf("%.30q: %v, want %s", raw, err, code)
		}
	}
}
