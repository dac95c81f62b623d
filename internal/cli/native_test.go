package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/auth"
)

// nativeServer is the stdio wiring (controls, gates, the warden_ tools'
// Native) over a fresh state directory. Until the server wires the
// privacy passes itself, the test adds both, resolved per tenant by the
// same resolver the warden_ tools use. It returns a caller that calls a
// tool as a principal on the stateless revision.
func nativeServer(t *testing.T, cfg Config) (call func(p auth.Principal, name, args string) []byte, state string) {
	t.Helper()
	state = t.TempDir()
	cfg.StateDir = state
	cfg.Approvals = "client"
	cfg, err := cfg.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := openControls(context.Background(), cfg, discardLogger(), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctl.close)
	w, err := wire(wireOptions{logger: discardLogger(), stateDir: state, controls: ctl, cfg: cfg})
	if err != nil {
		t.Fatal(err)
	}
	srv := w.srv
	t.Cleanup(srv.Close)
	return func(p auth.Principal, name, args string) []byte {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
			"name": name, "arguments": json.RawMessage(args),
			"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}},
		}})
		return srv.ServeMessage(auth.WithPrincipal(context.Background(), p), msg, nil)
	}, state
}

var (
	alice = auth.Principal{Subject: "alice", Credential: "cred-alice-7731", Tenant: "acme", Entitlements: []string{"*"}}
	bob   = auth.Principal{Subject: "bob", Credential: "cred-bob-0042", Tenant: "globex", Entitlements: []string{"util_*", "warden_*"}}
	carl  = auth.Principal{Subject: "carl", Credential: "cred-carl-5150", Tenant: "acme", Entitlements: []string{"*"}}
)

func content(t *testing.T, resp []byte) map[string]any {
	t.Helper()
	var r struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp, &r); err != nil || r.Result.IsError || r.Result.StructuredContent == nil {
		t.Fatalf("not a result: %v %.500s", err, resp)
	}
	return r.Result.StructuredContent
}

func TestWardenStatus(t *testing.T) {
	call, _ := nativeServer(t, Config{Tenants: map[string]TenantConfig{"globex": {Privacy: "off"}}})
	// The status of bob (privacy off: the credential shows) before and
	// after other calls: his slots and rates are read, never taken.
	for range 3 {
		content(t, call(bob, "util_hash", `{"input":"x"}`))
	}
	st := content(t, call(bob, "warden_status", `{}`))
	server := st["server"].(map[string]any)
	if server["name"] != "warden" || server["edition"] != string(edition) || server["privacy"] != "off" || server["approvals"] != "client" {
		t.Errorf("server %v", server)
	}
	if c := st["caller"].(map[string]any); c["credential"] != "cred-bob-0042" || c["tenant"] != "globex" {
		t.Errorf("caller %v", c)
	}
	byName := map[string]map[string]any{}
	for _, x := range st["tools"].([]any) {
		m := x.(map[string]any)
		byName[m["name"].(string)] = m
	}
	if byName["util_hash"]["available"] != true || byName["keysweep_scan_text"]["code"] != "forbidden" {
		t.Errorf("tools %v / %v", byName["util_hash"], byName["keysweep_scan_text"])
	}
	if edition == "full" && byName["http_request"]["code"] != "unsafe_tool_blocked" {
		t.Errorf("http_request %v", byName["http_request"])
	}
	lim := st["limits"].(map[string]any)
	if _, ok := lim["requests"]; ok {
		t.Error("stdio reports a request limit it does not apply")
	}
	slots := lim["slots"].(map[string]any)
	if slots["held"] != 0.0 || slots["max"] == 0.0 || lim["monthly"].(map[string]any)["limit"] != -1.0 {
		t.Errorf("limits %v", lim)
	}
	// Balanced (acme): the credential id is a name, not a secret: it
	// stays, and so does the tenant.
	resp := call(alice, "warden_status", `{}`)
	if !bytes.Contains(resp, []byte(`"credential":"cred-alice-7731"`)) || !bytes.Contains(resp, []byte(`"tenant":"acme"`)) {
		t.Errorf("balanced status: %.300s", resp)
	}
}

// warden_status reads usage where admission keeps it: under the issuer,
// tenant and credential together. It read the bare credential, so it
// always showed a full quota and no slot in use.
func TestWardenStatusShowsWhatAdmissionCharged(t *testing.T) {
	call, _ := nativeServer(t, Config{})
	for _, text := range []string{"first text", "second text"} {
		content(t, call(alice, "keysweep_scan_text", `{"text":"`+text+`"}`))
	}
	lim := content(t, call(alice, "warden_status", `{}`))["limits"].(map[string]any)
	if used := lim["monthly"].(map[string]any)["used"]; used != 2.0 {
		t.Errorf("alice's month after two charged scans: used %v, want 2", used)
	}
	// carl shares alice's tenant, not her usage.
	lim = content(t, call(carl, "warden_status", `{}`))["limits"].(map[string]any)
	if used := lim["monthly"].(map[string]any)["used"]; used != 0.0 {
		t.Errorf("carl's month: used %v, want 0", used)
	}
}

func TestWardenFindings(t *testing.T) {
	call, state := nativeServer(t, Config{Tenants: map[string]TenantConfig{"globex": {Privacy: "off"}}})
	evidence := "GET /admin HTTP/1.1\nAuthorization: token " + ghToken + "\n\nHTTP/1.1 200 OK (admin panel, no auth check)"
	rec := func(p auth.Principal, title string) map[string]any {
		args, _ := json.Marshal(map[string]any{"title": title, "severity": "high", "target": "https://app.example.com/admin?session=abc123",
			"evidence": evidence, "source_tool": "http_request"})
		resp := call(p, "warden_findings_record", string(args))
		if bytes.Contains(resp, []byte(ghToken)) {
			t.Errorf("the record call echoed the evidence's token")
		}
		return content(t, resp)
	}
	a := rec(alice, "Admin panel reachable without auth")
	if a["evidence_redactions"] != 1.0 || !strings.HasPrefix(a["id"].(string), "fnd_") {
		t.Errorf("alice's record: %v", a)
	}
	b := rec(bob, "Globex admin panel")
	if b["evidence_redactions"] != 0.0 {
		t.Errorf("bob's tenant keeps everything (privacy off): %v", b)
	}
	// Each tenant sees its own; carl shares alice's tenant.
	for _, c := range []struct {
		p     auth.Principal
		title string
	}{{alice, "Admin panel reachable without auth"}, {carl, "Admin panel reachable without auth"}, {bob, "Globex admin panel"}} {
		resp := call(c.p, "warden_findings_list", `{}`)
		l := content(t, resp)
		fs := l["findings"].([]any)
		if len(fs) != 1 || fs[0].(map[string]any)["title"] != c.title {
			t.Errorf("%s sees %v", c.p.Subject, fs)
		}
		// Stored evidence: redacted for acme (balanced), whole for globex
		// (off). The URL's query value follows the URL policy.
		if c.p.Tenant == "acme" {
			if bytes.Contains(resp, []byte(ghToken)) || bytes.Contains(resp, []byte("abc123")) || !bytes.Contains(resp, []byte("admin panel, no auth check")) {
				t.Errorf("acme list: %.600s", resp)
			}
		} else if !bytes.Contains(resp, []byte(ghToken)) || !bytes.Contains(resp, []byte("abc123")) {
			t.Errorf("globex (off) lost data: %.600s", resp)
		}
	}
	if l := content(t, call(alice, "warden_findings_list", `{"min_severity":"critical"}`)); l["count"] != 0.0 {
		t.Errorf("filter: %v", l)
	}
	// warden findings export reads the same store, per tenant.
	for _, form := range []string{"--json", "--sarif", "--html"} {
		out, errOut, code := run(t, "", "findings", "export", form, "--state-dir", state, "--tenant", "acme")
		if code != 0 || !strings.Contains(out, "Admin panel reachable without auth") || strings.Contains(out, "Globex") || strings.Contains(out, ghToken) {
			t.Errorf("%s: exit %d %s\n%.400s", form, code, errOut, out)
		}
	}
	if _, errOut, code := run(t, "", "findings", "export", "--state-dir", state); code != ExitError || !strings.Contains(errOut, "choose one of") {
		t.Errorf("no form: %d %s", code, errOut)
	}
}

func TestWardenAuditQueryIsTheCallersOwn(t *testing.T) {
	call, _ := nativeServer(t, Config{})
	content(t, call(alice, "util_hash", `{"input":"a"}`))
	content(t, call(carl, "util_encode", `{"input":"a","encoding":"hex"}`))
	content(t, call(carl, "util_encode", `{"input":"a","encoding":"hex"}`))
	resp := call(alice, "warden_audit_query", `{}`)
	calls := content(t, resp)["calls"].([]any)
	if len(calls) != 1 || calls[0].(map[string]any)["tool"] != "util_hash" || calls[0].(map[string]any)["outcome"] != "ok" {
		t.Errorf("alice sees %v", calls)
	}
	if bytes.Contains(resp, []byte("util_encode")) {
		t.Error("alice sees carl's calls")
	}
	if got := content(t, call(carl, "warden_audit_query", `{"tool":"util_encode","limit":1}`))["calls"].([]any); len(got) != 1 {
		t.Errorf("carl's filtered calls: %v", got)
	}
}

func TestWardenRedactPreview(t *testing.T) {
	call, _ := nativeServer(t, Config{Tenants: map[string]TenantConfig{"globex": {Privacy: "off"}}})
	text := "deploy with token=" + ghToken + " on build 42"
	args, _ := json.Marshal(map[string]string{"text": text})
	resp := call(alice, "warden_redact_preview", string(args))
	if bytes.Contains(resp, []byte(ghToken)) {
		t.Fatal("the preview echoed the value it removes")
	}
	p := content(t, resp)
	spans := p["removed"].([]any)
	if p["mode"] != "balanced" || p["changed"] != true || len(spans) != 1 || spans[0].(map[string]any)["kind"] != "github_personal_access_token" ||
		!strings.Contains(p["redacted"].(string), "on build 42") {
		t.Errorf("balanced preview: %v", p)
	}
	start := int(spans[0].(map[string]any)["start"].(float64))
	if !strings.HasPrefix(text[start:], "ghp_") {
		t.Errorf("span starts at %d", start)
	}
	// off: nothing removed, the text back byte for byte.
	p = content(t, call(bob, "warden_redact_preview", string(args)))
	if p["mode"] != "off" || p["changed"] != false || p["redacted"] != text {
		t.Errorf("off preview: %v", p)
	}
	// JSON and typed kinds.
	p = content(t, call(alice, "warden_redact_preview", `{"kind":"json","text":"{\"user\":\"a\",\"password\":\"hunter2-Secret!\",\"n\":1}"}`))
	if p["changed"] != true || strings.Contains(p["redacted"].(string), "hunter2") || !strings.Contains(p["redacted"].(string), `"user":"a"`) {
		t.Errorf("json preview: %v", p)
	}
	p = content(t, call(alice, "warden_redact_preview", `{"kind":"header","name":"Cookie","text":"sid=s3cr3tvalue; theme=dark"}`))
	if p["changed"] != true || strings.Contains(p["redacted"].(string), "s3cr3tvalue") || !strings.Contains(p["redacted"].(string), "theme=") {
		t.Errorf("header preview: %v", p)
	}
}
