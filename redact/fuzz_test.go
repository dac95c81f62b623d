package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/privacy"
	"github.com/warden-mcp/warden/tool"
)

var (
	fuzzOnce      sync.Once
	fuzzRedactors map[Mode]*Redactor
)

func fuzzRedactor(t testing.TB, m Mode) *Redactor {
	fuzzOnce.Do(func() {
		fuzzRedactors = map[Mode]*Redactor{}
		for _, mode := range []Mode{Off, Balanced, Strict} {
			r, err := New(&Options{Mode: mode, PseudonymKey: testKey})
			if err != nil {
				panic(err)
			}
			fuzzRedactors[mode] = r
		}
	})
	return fuzzRedactors[m]
}

// kindShape is the shape of a JSON document without its strings' values:
// what the Result pass must keep (member order, types, nesting).
func kindShape(doc []byte) (string, error) {
	var b strings.Builder
	tz := &tokenizer{src: doc, maxStrings: 1 << 30}
	if err := tz.run(); err != nil {
		return "", err
	}
	prev := 0
	for i := range tz.toks {
		k := &tz.toks[i]
		b.Write(doc[prev:k.raw0])
		b.WriteString(`""`)
		prev = int(k.raw1)
	}
	b.Write(doc[prev:])
	return b.String(), nil
}

// FuzzResult: for any structured content and text, the pass never panics,
// writes valid JSON with the input's shape (only strings change), keeps
// the text block that repeats the structured content equal to it, fails
// closed exactly on invalid JSON, and is idempotent.
func FuzzResult(f *testing.F) {
	f.Add([]byte(`{"token":"`+ghToken+`","n":1,"list":["a","`+jwt+`"]}`), "summary "+awsKeyID)
	f.Add([]byte(`{"`+ghToken+`":1,"[REDACTED:github_personal_access_token]":2}`), "")
	f.Add([]byte(`{"password":"Sup3rS3cret!","user":"alice","pem":"-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcN\n-----END RSA PRIVATE KEY-----"}`), "x")
	f.Add([]byte(`"esc \" \\ \u003c\u0026\u2028 \ud83d\ude00 `+slackBot+`"`), "ünïcödé")
	f.Add([]byte(`[1, 2.5e3, true, null, {"a": [ ]}]`), "password = \"hunter2hunter2\"")
	f.Add([]byte(`{"a":`), "x")
	f.Add(benchStructured(2048), "")
	f.Fuzz(func(t *testing.T, structured []byte, text string) {
		res := &tool.Result{Content: []tool.Content{tool.Text(text), tool.Text(string(structured))}, Structured: structured}
		for _, mode := range []Mode{Balanced, Strict} {
			r := fuzzRedactor(t, mode)
			out, err := r.Result(res)
			if len(structured) > 0 && !json.Valid(structured) {
				var e *errcode.Error
				if !errors.As(err, &e) || e.Code != CodeMalformed {
					t.Fatalf("%s: invalid JSON gave %v, %v", mode, out, err)
				}
				continue
			}
			if err != nil {
				if errcode.CodeOf(err) == CodeMalformed && errors.Is(err, errTooDeep) {
					continue
				}
				t.Fatalf("%s: %v", mode, err)
			}
			if len(structured) > 0 {
				if !json.Valid(out.Structured) {
					t.Fatalf("%s: invalid output %q from %q", mode, out.Structured, structured)
				}
				in, _ := kindShape(structured)
				got, _ := kindShape(out.Structured)
				if in != got {
					t.Fatalf("%s: shape changed:\n%s\n%s", mode, in, got)
				}
				if out.Content[1].Text != string(out.Structured) {
					t.Fatalf("%s: the repeated text block diverged", mode)
				}
			}
			again, err := r.Result(out)
			if err != nil {
				t.Fatalf("%s: second pass: %v", mode, err)
			}
			if again != out {
				t.Fatalf("%s: not idempotent:\n%q -> %q\n%q -> %q", mode, out.Structured, again.Structured, out.Content[0].Text, again.Content[0].Text)
			}
		}
		if out, err := fuzzRedactor(t, Off).Result(res); out != res || err != nil {
			t.Fatalf("off: %v, %v", out, err)
		}
	})
}

// FuzzField: for any value of any kind, Field never panics, is idempotent,
// leaves Off alone, and keeps a URL a URL without userinfo or query
// values.
func FuzzField(f *testing.F) {
	for _, c := range fieldCases {
		f.Add(c.kind, c.name, c.value)
	}
	f.Add(privacy.URL, "", "https://a:b@[::1]:80/p?q=1&r#f")
	f.Add(privacy.URL, "", "//host/p?x=y")
	f.Add(privacy.Header, "Set-Cookie", "a=b; Domain=example.com, c=d; Expires=Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add(privacy.Header, "Forwarded", `for="[2001:db8::1]:4711";by=unknown;host=example.com`)
	f.Add(privacy.Bytes, "hex", hex.EncodeToString([]byte("\x00\x00"+ghToken+"\x00AKIAZ3")))
	f.Add(privacy.Bytes, "b64", base64.StdEncoding.EncodeToString([]byte("\x01"+ghToken)))
	f.Add(privacy.Bytes, "sep", "67 68 70 5f 77 57 50 77 35 6b 34 61")
	f.Fuzz(func(t *testing.T, kind, name, value string) {
		if v := fuzzRedactor(t, Off).Field(kind, name, value); v != value {
			t.Fatalf("off changed %q to %q", value, v)
		}
		for _, mode := range []Mode{Balanced, Strict} {
			r := fuzzRedactor(t, mode)
			once := r.Field(kind, name, value)
			if twice := r.Field(kind, name, once); twice != once {
				t.Fatalf("%s Field(%s, %q): %q -> %q -> %q", mode, kind, name, value, once, twice)
			}
			if kind != privacy.URL {
				continue
			}
			u, err := url.Parse(once)
			if _, err0 := url.Parse(value); err0 == nil && err != nil {
				t.Fatalf("%s: %q parsed, %q does not: %v", mode, value, once, err)
			}
			if err != nil {
				continue
			}
			if u.User != nil && u.Host != "" {
				t.Fatalf("%s: %q keeps userinfo in %q", mode, value, once)
			}
			if u.Fragment != "" && u.Fragment != QueryMarker {
				t.Fatalf("%s: %q keeps a fragment in %q", mode, value, once)
			}
			for _, part := range strings.Split(u.RawQuery, "&") {
				if _, v, ok := strings.Cut(part, "="); ok && v != "" && v != QueryMarker {
					t.Fatalf("%s: %q keeps a query value in %q", mode, value, once)
				}
			}
		}
	})
}

// FuzzText: the text pass never panics, keeps its spans inside the input,
// is idempotent, and leaves Off alone.
func FuzzText(f *testing.F) {
	f.Add("token " + ghToken + " for user_id=12345")
	f.Add(`{"password": "Sup3rS3cret!"}`)
	f.Add("ünïcödé " + jwt + " \xff")
	f.Add("mail alice@example.com from 10.0.0.5:8080 via https://u@db.internal/x, /home/alice/a.pdf C:\\Users\\bob fe80::1")
	f.Add("dump 0x00006768705f" + hex.EncodeToString([]byte(ghToken[4:])) + "0000 " + base64.StdEncoding.EncodeToString([]byte("\x00\x01"+ghToken)))
	f.Fuzz(func(t *testing.T, s string) {
		if v, spans := fuzzRedactor(t, Off).Text(s); v != s || spans != nil {
			t.Fatal("off changed the text")
		}
		for _, mode := range []Mode{Balanced, Strict} {
			r := fuzzRedactor(t, mode)
			once, spans := r.Text(s)
			for _, sp := range spans {
				if sp.Start < 0 || sp.End > len(s) || sp.Start >= sp.End {
					t.Fatalf("%s: span %+v out of %d bytes", mode, sp, len(s))
				}
			}
			if twice, _ := r.Text(once); twice != once {
				t.Fatalf("%s: not idempotent: %q -> %q -> %q", mode, s, once, twice)
			}
		}
	})
}
