package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
)

// The privacy modes hold for every field a result carries, typed or not:
// these tests call the tools through the wiring a server builds, in each
// mode, and read the bytes a client receives.

// syncBuffer is a log sink the server may write from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// wiredServer is a server wired as warden serve wires one, in mode, with
// its state in dir (a fresh one when ""), logging to logs (discarded when
// nil). It returns a function that calls a tool as the local user and
// returns the response bytes.
func wiredServer(t *testing.T, mode, dir string, logs *syncBuffer) func(name, args string) string {
	t.Helper()
	return wiredServerWith(t, Config{StateDir: dir, Privacy: mode}, logs)
}

// wiredServerWith is wiredServer with a configuration (approvals are
// always the client's).
func wiredServerWith(t *testing.T, c Config, logs *syncBuffer) func(name, args string) string {
	t.Helper()
	ctx := context.Background()
	if c.StateDir == "" {
		c.StateDir = t.TempDir()
	}
	dir := c.StateDir
	if c.Approvals == "" {
		c.Approvals = "client"
	}
	cfg, err := c.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	logger := discardLogger()
	if logs != nil {
		var err error
		if logger, err = newLogger(logs, "debug"); err != nil {
			t.Fatal(err)
		}
	}
	ctl, err := openControls(ctx, cfg, logger, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctl.close)
	w, err := wire(wireOptions{logger: logger, stateDir: dir, controls: ctl, cfg: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.srv.Close)
	caps := "{}"
	if c.Approvals == "elicit" {
		caps = `{"elicitation":{}}`
	}
	return func(name, args string) string {
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
		return string(w.srv.ServeMessage(ctx, []byte(msg), nil))
	}
}

// structuredOf returns a response's structured content, failing on an
// error result.
func structuredOf(t *testing.T, resp string) map[string]any {
	t.Helper()
	var r struct {
		Result struct {
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(resp), &r); err != nil || r.Result.IsError || r.Result.StructuredContent == nil {
		t.Fatalf("not a result: %v %.800s", err, resp)
	}
	return r.Result.StructuredContent
}

const testToken = "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"

// openBlob opens data as a raw x86-64 view.
func openBlob(t *testing.T, call func(name, args string) string, data []byte) {
	t.Helper()
	blob := base64.StdEncoding.EncodeToString(data)
	if out := call("bininspect_open", `{"data_base64":"`+blob+`","format":"raw","arch":"x86-64"}`); !strings.Contains(out, `"isError":false`) {
		t.Fatalf("open: %.400s", out)
	}
}

// The local user's id names who acted; it is not a secret, and the
// default mode shows it.
func TestPrivacyKeepsTheLocalID(t *testing.T) {
	call := wiredServer(t, "balanced", "", nil)
	st := structuredOf(t, call("warden_status", `{}`))
	if c, _ := json.Marshal(st["caller"]); !strings.Contains(string(c), `"credential":"local"`) {
		t.Errorf("warden_status caller: %s", c)
	}
	openBlob(t, call, []byte("\x90\x90\x90\xc3"))
	ann := call("bininspect_comment_set", `{"address":"0","text":"entry point"}`)
	if !strings.Contains(ann, `\"author\":\"local\"`) && !strings.Contains(ann, `"author":"local"`) {
		t.Errorf("comment author: %.600s", ann)
	}
	rec := call("warden_findings_record", `{"title":"Weak TLS","severity":"low","target":"https://shop.example.com/"}`)
	if !strings.Contains(rec, `"isError":false`) {
		t.Fatalf("record: %.400s", rec)
	}
	if l := call("warden_findings_list", `{}`); !strings.Contains(l, `"recorded_by":"local"`) {
		t.Errorf("findings recorded_by: %.600s", l)
	}
}

// Strict replaces identities in every string a result carries, typed or
// not: the preview of free text, a binary's notable strings (an address
// classified ip among them), JWT claims, an HTTP message's From header,
// a finding's title and evidence. Balanced keeps them.
func TestStrictPseudonymizesFreeText(t *testing.T) {
	ids := []string{"alice@example.com", "10.20.30.40", "db.corp.example.com", "/home/alice/payroll.xlsx"}
	claims := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"1234","email":"alice@example.com","iss":"https://login.corp.example.com/"}`))
	jwt := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + claims + ".c2lnbmF0dXJl"
	bin := []byte("\x00\x00\x90\x90connect 10.20.30.40\x00\x00mail alice@example.com\x00\x00open /home/alice/payroll.xlsx\x00\x00db.corp.example.com\x00\xc3")
	raw, _ := json.Marshal(map[string]string{"raw": "GET / HTTP/1.1\r\nHost: shop.example.com\r\nFrom: alice@example.com\r\nX-Forwarded-Server: db.corp.example.com\r\n\r\n"})
	for _, mode := range []string{"balanced", "strict"} {
		call := wiredServer(t, mode, "", nil)
		var outs []string
		prev := call("warden_redact_preview", `{"kind":"text","text":"`+strings.Join(ids, " ")+`"}`)
		if changed := strings.Contains(prev, `"changed":true`); changed != (mode == "strict") {
			t.Errorf("%s: warden_redact_preview changed=%v: %.600s", mode, changed, prev)
		}
		outs = append(outs, prev)
		openBlob(t, call, bin)
		outs = append(outs, call("bininspect_triage", `{}`), call("bininspect_strings", `{}`))
		outs = append(outs, call("util_jwt_inspect", `{"token":"`+jwt+`"}`))
		outs = append(outs, call("http_parse", string(raw)))
		rec := call("warden_findings_record", `{"title":"Admin panel on db.corp.example.com","severity":"high","target":"https://db.corp.example.com/admin","evidence":"reached from 10.20.30.40 by alice@example.com, saved /home/alice/payroll.xlsx"}`)
		if !strings.Contains(rec, `"isError":false`) {
			t.Fatalf("%s: record: %.400s", mode, rec)
		}
		outs = append(outs, call("warden_findings_list", `{}`))
		for i, out := range outs {
			if !strings.Contains(out, `"isError":false`) {
				t.Fatalf("%s: call %d failed: %.400s", mode, i, out)
			}
			for _, id := range append(ids, "login.corp.example.com") {
				if mode == "strict" && strings.Contains(out, id) {
					t.Errorf("strict: call %d: %q reached the client: %.300s", i, id, out)
				}
			}
		}
		if mode == "balanced" && (!strings.Contains(outs[1], "10.20.30.40") || !strings.Contains(outs[4], "alice@example.com")) {
			t.Errorf("balanced removed identities: %.300s %.300s", outs[1], outs[4])
		}
	}
}

// A form, JSON or multipart field whose name means a credential is a
// credential: balanced and strict remove its value from the decoded
// fields and from the body as written; off keeps it. Query values and
// cookie values follow the documented rule (balanced removes every one).
func TestPrivacyOnHTTPParseFields(t *testing.T) {
	msgs := map[string]string{
		"form": "POST /login?next=/admin HTTP/1.1\r\nHost: shop.example.com\r\nCookie: theme=dark\r\n" +
			"Content-Type: application/x-www-form-urlencoded\r\n\r\nusername=alice&password=hunter2&remember=1",
		"json": "POST /api HTTP/1.1\r\nHost: shop.example.com\r\nContent-Type: application/json\r\n\r\n" +
			`{"user": "alice", "password": "hunter2", "nested": {"api_key": "hunter2-key"}, "remember": true}`,
		"multipart": "POST /up HTTP/1.1\r\nHost: shop.example.com\r\nContent-Type: multipart/form-data; boundary=XyZ\r\n\r\n" +
			"--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nalice\r\n" +
			"--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhunter2\r\n--XyZ--\r\n",
	}
	for _, mode := range []string{"off", "balanced", "strict"} {
		call := wiredServer(t, mode, "", nil)
		for name, raw := range msgs {
			args, _ := json.Marshal(map[string]string{"raw": raw})
			out := call("http_parse", string(args))
			if !strings.Contains(out, `"isError":false`) {
				t.Fatalf("%s %s: %.400s", mode, name, out)
			}
			if strings.Contains(out, "hunter2") != (mode == "off") {
				t.Errorf("%s %s: the password present=%v: %.900s", mode, name, strings.Contains(out, "hunter2"), out)
			}
			if !strings.Contains(out, "alice") || name != "multipart" && !strings.Contains(out, "remember") {
				t.Errorf("%s %s: a field that is no credential went: %.900s", mode, name, out)
			}
			if mode != "off" && !strings.Contains(out, "[REDACTED:credential]") {
				t.Errorf("%s %s: no marker: %.900s", mode, name, out)
			}
		}
		args, _ := json.Marshal(map[string]string{"raw": msgs["form"]})
		out := call("http_parse", string(args))
		if hidden := strings.Contains(out, `next=REDACTED`) && strings.Contains(out, `\"theme\":[\"[REDACTED:cookie]\"]`); hidden != (mode != "off") {
			t.Errorf("%s: query and cookie values do not follow the documented rule: %.900s", mode, out)
		}
	}
}

// A finding's target keeps no query value in the store unless the mode
// is off, and every export form applies the tenant's mode from the
// configuration, as warden_findings_list does.
func TestPrivacyOnFindingsExport(t *testing.T) {
	const target = "https://shop.example.com/cb?token=abc123tok&page=2"
	rec := `{"title":"Open redirect","severity":"medium","target":"` + target + `","evidence":"Location: /next"}`
	for _, stored := range []string{"off", "balanced"} {
		dir := t.TempDir()
		call := wiredServer(t, stored, dir, nil)
		if out := call("warden_findings_record", rec); !strings.Contains(out, `"isError":false`) {
			t.Fatalf("record: %.400s", out)
		}
		if l := call("warden_findings_list", `{}`); strings.Contains(l, "abc123tok") != (stored == "off") {
			t.Errorf("%s: warden_findings_list: %.600s", stored, l)
		}
		for _, mode := range []string{"off", "balanced", "strict"} {
			conf := dir + "/warden-" + mode + ".yaml"
			if err := os.WriteFile(conf, []byte("privacy: "+mode+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, form := range []string{"--json", "--sarif", "--html"} {
				out, errOut, code := run(t, "", "findings", "export", form, "--config", conf, "--state-dir", dir)
				if code != 0 {
					t.Fatalf("export %s: %d %s", form, code, errOut)
				}
				if leak := strings.Contains(out, "abc123tok"); leak != (stored == "off" && mode == "off") {
					t.Errorf("stored %s, export %s %s: the token present=%v", stored, mode, form, leak)
				}
				if !strings.Contains(out, "Open redirect") || !strings.Contains(out, "token=") {
					t.Errorf("stored %s, export %s %s lost what is no secret: %.400s", stored, mode, form, out)
				}
				if strings.Contains(out, "shop.example.com") != (mode != "strict") {
					t.Errorf("stored %s, export %s %s: host handling: %.400s", stored, mode, form, out)
				}
			}
		}
	}
}

// No credential reaches the annotation store or the log, whatever the
// mode: a comment or a name that holds one is refused (a token glued into
// an identifier included), and a tool error's cause that quotes an
// argument (a token given as a path) is logged with the token replaced.
func TestPrivacyKeepsSecretsOutOfStoreAndLogs(t *testing.T) {
	for _, mode := range []string{"off", "balanced"} {
		var logs syncBuffer
		root := t.TempDir()
		call := wiredServerWith(t, Config{Privacy: mode, Bininspect: BininspectConfig{Roots: []string{root}}}, &logs)
		openBlob(t, call, []byte("\x90\x90\x90\xc3"))
		for _, c := range []struct{ tool, args string }{
			{"bininspect_comment_set", `{"address":"0","text":"the key is ` + testToken + ` here"}`},
			{"bininspect_symbol_rename", `{"address":"1","name":"tok_` + testToken + `"}`},
			{"bininspect_symbol_rename", `{"address":"1","name":"` + testToken + `_key"}`},
			{"bininspect_function_define", `{"address":"0","name":"get_` + testToken + `"}`},
		} {
			out := call(c.tool, c.args)
			if !strings.Contains(out, "annotation_holds_secret") || strings.Contains(out, testToken) {
				t.Errorf("%s: %s %s: %.400s", mode, c.tool, c.args, out)
			}
		}
		if out := call("bininspect_comment_set", `{"address":"0","text":"entry point"}`); !strings.Contains(out, `"isError":false`) {
			t.Errorf("%s: a plain comment was refused: %.400s", mode, out)
		}
		if out := call("bininspect_annotations", `{"history":true}`); strings.Contains(out, testToken) || strings.Contains(out, "wWPw5k4a") {
			t.Errorf("%s: the store kept the token: %.400s", mode, out)
		}
		out := call("bininspect_open", `{"path":"`+root+`/`+testToken+`.bin"}`)
		if strings.Contains(out, testToken) {
			t.Errorf("%s: the error echoed the token: %.400s", mode, out)
		}
		if l := logs.String(); strings.Contains(l, "wWPw5k4a") || !strings.Contains(l, "[REDACTED:github_personal_access_token]") {
			t.Errorf("%s: logs:\n%s", mode, l)
		}
	}
}

// The approval question for http_request never repeats the request body
// or header values, which the tool promises never to echo, in any mode;
// the method, the URL and the header names, which the person approves,
// are there. The question comes after the tool's own checks, so the
// target is an address literal that passes them without a look-up (no
// connection is made before the answer).
func TestApprovalQuestionKeepsTheBody(t *testing.T) {
	if edition != "full" {
		t.Skip("the lean edition has no http_request")
	}
	for _, mode := range []string{"off", "balanced"} {
		call := wiredServerWith(t, Config{Privacy: mode, Approvals: "elicit", Tools: ToolsConfig{Unsafe: true}}, nil)
		out := call("http_request", `{"method":"POST","url":"https://1.1.1.1/login","headers":{"X-Note":"hdr-value-7"},"body":"user=alice&note=plain-body-text"}`)
		if !strings.Contains(out, "Allow http_request") {
			t.Fatalf("%s: no approval question: %.600s", mode, out)
		}
		if strings.Contains(out, "plain-body-text") || strings.Contains(out, "hdr-value-7") || !strings.Contains(out, "1.1.1.1/login") || !strings.Contains(out, "X-Note") {
			t.Errorf("%s: the question: %.800s", mode, out)
		}
	}
}

// A person is never asked about an http_request its own checks refuse: a
// port other than 80 and 443, or a private address, is refused first.
func TestApprovalNotAskedForARefusedRequest(t *testing.T) {
	if edition != "full" {
		t.Skip("the lean edition has no http_request")
	}
	call := wiredServerWith(t, Config{Approvals: "elicit", Tools: ToolsConfig{Unsafe: true}}, nil)
	for url, code := range map[string]string{"https://1.1.1.1:8443/": "blocked_port", "http://10.0.0.1/": "blocked_ip"} {
		out := call("http_request", `{"url":"`+url+`"}`)
		if strings.Contains(out, "Allow http_request") || !strings.Contains(out, code) {
			t.Errorf("%s: %.400s, want %s before any question", url, out, code)
		}
	}
}
