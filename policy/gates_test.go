package policy

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// gateRegistry has one tool of each kind the gates tell apart.
func gateRegistry(ran chan<- string) *tool.Registry {
	reg := tool.NewRegistry()
	fam := reg.MustFamily("acme_")
	add := func(d tool.Def) {
		d.Description = "A test tool."
		d.Catalog.Category = "test"
		type args struct {
			URL  string `json:"url,omitempty"`
			Note string `json:"note,omitempty"`
		}
		t, err := tool.New(d, func(ctx context.Context, c *tool.Call, in args) (string, error) {
			if ran != nil {
				ran <- d.Name
			}
			return "ran " + d.Name, nil
		})
		if err != nil {
			panic(err)
		}
		if err := fam.Register(t); err != nil {
			panic(err)
		}
	}
	ro := tool.Annotations{ReadOnly: true}
	add(tool.Def{Name: "acme_read", Annotations: ro, Catalog: tool.Catalog{Trust: tool.TrustAuto}})
	add(tool.Def{Name: "acme_extra", Annotations: ro, Catalog: tool.Catalog{Trust: tool.TrustAuto, DisabledByDefault: true}})
	add(tool.Def{Name: "acme_fetch", Annotations: tool.Annotations{ReadOnly: true, OpenWorld: true},
		Catalog: tool.Catalog{Trust: tool.TrustConfirm, Unsafe: true, TargetParam: "url"}})
	add(tool.Def{Name: "acme_write", Annotations: tool.Annotations{}, Catalog: tool.Catalog{Trust: tool.TrustConfirmEach}})
	return reg
}

func TestGatesRefuseUnknownNames(t *testing.T) {
	reg := gateRegistry(nil)
	for _, cfg := range []CatalogConfig{
		{Enable: []string{"acme_nope"}},
		{Disable: []string{"other_"}},
		{AllowUnsafe: []string{"acme_read"}},  // not unsafe
		{AllowUnsafe: []string{"acme_"}},      // families not allowed here
		{ScopeInclude: []string{"https://x"}}, // a URL, not a host
		{Approvals: "sometimes"},
	} {
		if _, err := NewGates(reg, cfg, nil); err == nil {
			t.Errorf("%+v was accepted", cfg)
		}
	}
	if _, err := NewGates(reg, CatalogConfig{Enable: []string{"acme_extra"}, Disable: []string{"acme_"}, AllowUnsafe: []string{"acme_fetch"}}, nil); err != nil {
		t.Errorf("a valid configuration was refused: %v", err)
	}
}

// Gates prepared before any tool is registered answer for the tools
// registered later, and Check holds the configuration's names to them.
func TestPreparedGates(t *testing.T) {
	g, err := PrepareGates(CatalogConfig{Enable: []string{"acme_extra"}, ScopeInclude: []string{"*.example.com"}, AllowUnsafe: []string{"acme_nope"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !g.InScope("a.example.com") || g.InScope("example.org") {
		t.Error("the scope is not the configured one")
	}
	reg := gateRegistry(nil)
	extra, _ := reg.Lookup("acme_extra")
	fetch, _ := reg.Lookup("acme_fetch")
	if g.Status(extra) != nil || g.Status(fetch) == nil {
		t.Errorf("status: extra %v, fetch %v", g.Status(extra), g.Status(fetch))
	}
	if err := g.Check(reg); err == nil || !strings.Contains(err.Error(), "acme_nope") {
		t.Errorf("Check: %v", err)
	}
	if _, err := PrepareGates(CatalogConfig{Disable: []string{"anything_"}}, nil); err != nil {
		t.Errorf("a family is checked only against a registry: %v", err)
	}
}

func TestGateStatus(t *testing.T) {
	reg := gateRegistry(nil)
	code := func(cfg CatalogConfig, name string) string {
		g, err := NewGates(reg, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		tl, _ := reg.Lookup(name)
		if e := g.Status(tl); e != nil {
			return e.Code
		}
		return "ok"
	}
	cases := []struct {
		cfg        CatalogConfig
		name, want string
	}{
		{CatalogConfig{}, "acme_read", "ok"},
		{CatalogConfig{}, "acme_extra", CodeToolDisabled},
		{CatalogConfig{Enable: []string{"acme_extra"}}, "acme_extra", "ok"},
		{CatalogConfig{Enable: []string{"acme_"}}, "acme_extra", "ok"},
		{CatalogConfig{Enable: []string{"acme_extra"}, Disable: []string{"acme_extra"}}, "acme_extra", CodeToolDisabled},
		{CatalogConfig{Disable: []string{"acme_"}}, "acme_read", CodeToolDisabled},
		{CatalogConfig{}, "acme_fetch", CodeUnsafeToolBlocked},
		{CatalogConfig{Unsafe: true}, "acme_fetch", "ok"},
		{CatalogConfig{AllowUnsafe: []string{"acme_fetch"}}, "acme_fetch", "ok"},
		{CatalogConfig{Unsafe: true, Disable: []string{"acme_fetch"}}, "acme_fetch", CodeToolDisabled},
	}
	for _, c := range cases {
		if got := code(c.cfg, c.name); got != c.want {
			t.Errorf("%s under %+v: %s, want %s", c.name, c.cfg, got, c.want)
		}
	}
}

// gateFixture serves gateRegistry behind the policy hooks.
type gateFixture struct {
	srv  *mcp.Server
	ran  chan string
	ctl  *Controls
	g    *Gates
	p    auth.Principal
	grts approval.Store
}

func newGateFixture(t *testing.T, cfg CatalogConfig, p auth.Principal) *gateFixture {
	t.Helper()
	f := newFixture(t, limits.Config{})
	gf := &gateFixture{ran: make(chan string, 16), p: p, grts: approval.NewMemory(0)}
	reg := gateRegistry(gf.ran)
	g, err := NewGates(reg, cfg, gf.grts)
	if err != nil {
		t.Fatal(err)
	}
	// The stages over gates built apart from the controls, as the wiring
	// builds them: the Controls are left as they were made.
	gf.ctl, gf.g = &Controls{Limiter: f.lim}, g
	st := gf.ctl.Stages(g, hidePassword{})
	gf.srv = mcp.NewServer(reg, &mcp.Options{Middleware: st.Middleware(), Visible: st.Visible})
	t.Cleanup(gf.srv.Close)
	return gf
}

const elicitCaps = `{"elicitation":{}}`

// modern sends one stateless request and returns its decoded response.
func (f *gateFixture) modern(t *testing.T, method, params, caps string) map[string]any {
	t.Helper()
	msg := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"test-client","version":"1"}}}}`
	var out map[string]any
	if err := json.Unmarshal(f.srv.ServeMessage(auth.WithPrincipal(context.Background(), f.p), []byte(msg), nil), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func resultText(r map[string]any) string {
	res, _ := r["result"].(map[string]any)
	c, _ := res["content"].([]any)
	if len(c) == 0 {
		return ""
	}
	b, _ := c[0].(map[string]any)
	s, _ := b["text"].(string)
	return s
}

var carol = auth.Principal{Issuer: "urn:test", Credential: "cred-carol", Tenant: "acme", Entitlements: []string{"*"}}

func TestListingIsWhatTheCallerMayCall(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{}, auth.Principal{Credential: "dave", Tenant: "t", Entitlements: []string{"acme_read", "acme_fetch", "acme_write"}})
	list := f.modern(t, "tools/list", "", "{}")
	b, _ := json.Marshal(list)
	for _, want := range []string{"acme_read", "acme_write"} {
		if !strings.Contains(string(b), `"name":"`+want+`"`) {
			t.Errorf("%s is callable but not listed", want)
		}
	}
	for _, hidden := range []string{"acme_extra", "acme_fetch"} {
		if strings.Contains(string(b), `"name":"`+hidden+`"`) {
			t.Errorf("%s is listed but may not be called", hidden)
		}
	}
	for name, want := range map[string]string{
		"acme_extra": "tool_disabled: acme_extra is off by default; add it to tools.enable",
		"acme_fetch": "unsafe_tool_blocked: acme_fetch is unsafe",
	} {
		if got := resultText(f.modern(t, "tools/call", `"name":"`+name+`","arguments":{},`, "{}")); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %q, want %q…", name, got, want)
		}
	}
}

func TestScopeGate(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{Unsafe: true, Approvals: ApprovalsClient, ScopeInclude: []string{"*.example.org"}, ScopeExclude: []string{"admin.example.org", "*.internal.example.org"}}, carol)
	for url, want := range map[string]string{
		"https://www.example.org/":         "ran acme_fetch",
		"https://admin.example.org/":       "target_out_of_scope: the target admin.example.org is excluded by this server's tools.scope.exclude entry admin.example.org, which wins over include; only an operator removing that entry admits it",
		"https://db.internal.example.org/": "target_out_of_scope: the target db.internal.example.org is excluded by this server's tools.scope.exclude entry *.internal.example.org, which wins over include; only an operator removing that entry admits it",
		"https://evil.example/":            "target_out_of_scope: the target evil.example is outside",
		"not a host/really":                "target_out_of_scope: the target's host cannot be read",
	} {
		got := resultText(f.modern(t, "tools/call", `"name":"acme_fetch","arguments":{"url":"`+url+`"},`, "{}"))
		if !strings.HasPrefix(got, want) {
			t.Errorf("%s: %q, want %q…", url, got, want)
		}
	}
}

// answerRetry retries an input-required call with the client's answer.
func answerRetry(t *testing.T, f *gateFixture, name, args string, first map[string]any, answer string) map[string]any {
	t.Helper()
	res, _ := first["result"].(map[string]any)
	if res["resultType"] != "input_required" {
		t.Fatalf("no approval question: %v", first)
	}
	reqs, _ := res["inputRequests"].(map[string]any)
	q, _ := reqs[approvalKey].(map[string]any)
	qb, _ := json.Marshal(q)
	if !strings.Contains(string(qb), "elicitation/create") || !strings.Contains(string(qb), "Allow "+name+" to run?") {
		t.Fatalf("question: %s", qb)
	}
	state, _ := json.Marshal(res["requestState"])
	return f.modern(t, "tools/call", `"name":"`+name+`","arguments":`+args+`,"inputResponses":{"`+approvalKey+`":`+answer+`},"requestState":`+string(state)+`,`, elicitCaps)
}

func TestApprovalsStateless(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{Unsafe: true}, carol)
	args := `{"url":"https://example.com","note":"password hunter2"}`
	call := func(name string) map[string]any {
		return f.modern(t, "tools/call", `"name":"`+name+`","arguments":`+args+`,`, elicitCaps)
	}
	// confirm: asked once, then remembered for this credential and client.
	first := call("acme_fetch")
	qb, _ := json.Marshal(first)
	if strings.Contains(string(qb), "hunter2") {
		t.Errorf("the approval question repeats a secret: %s", qb)
	}
	if got := resultText(answerRetry(t, f, "acme_fetch", args, first, `{"action":"accept","content":{"approve":true}}`)); got != "ran acme_fetch" {
		t.Fatalf("accepted: %q", got)
	}
	if got := resultText(call("acme_fetch")); got != "ran acme_fetch" {
		t.Errorf("a confirm tool asked again after approval: %q", got)
	}
	// confirm_each: asked every time; a decline refuses.
	first = call("acme_write")
	if got := resultText(answerRetry(t, f, "acme_write", args, first, `{"action":"accept","content":{"approve":true}}`)); got != "ran acme_write" {
		t.Fatalf("accepted: %q", got)
	}
	first = call("acme_write")
	if got := resultText(answerRetry(t, f, "acme_write", args, first, `{"action":"decline"}`)); !strings.HasPrefix(got, "approval_declined:") {
		t.Errorf("declined: %q", got)
	}
	first = call("acme_write")
	if got := resultText(answerRetry(t, f, "acme_write", args, first, `{"action":"accept","content":{"approve":false}}`)); !strings.HasPrefix(got, "approval_declined:") {
		t.Errorf("accept with approve=false: %q", got)
	}
	// A client that cannot elicit is told what the operator can do.
	got := resultText(f.modern(t, "tools/call", `"name":"acme_write","arguments":{},`, "{}"))
	if !strings.HasPrefix(got, "approval_unavailable:") || !strings.Contains(got, "approvals: client") {
		t.Errorf("no elicitation: %q", got)
	}
	// Auto tools never ask.
	if got := resultText(f.modern(t, "tools/call", `"name":"acme_read","arguments":{},`, "{}")); got != "ran acme_read" {
		t.Errorf("auto: %q", got)
	}
}

func TestApprovalsRememberedOnlyForTheSameCaller(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{Unsafe: true}, carol)
	first := f.modern(t, "tools/call", `"name":"acme_fetch","arguments":{},`, elicitCaps)
	answerRetry(t, f, "acme_fetch", `{}`, first, `{"action":"accept"}`)
	f.p = auth.Principal{Issuer: "urn:test", Credential: "cred-carol", Tenant: "other-tenant", Entitlements: []string{"*"}}
	res, _ := f.modern(t, "tools/call", `"name":"acme_fetch","arguments":{},`, elicitCaps)["result"].(map[string]any)
	if res["resultType"] != "input_required" {
		t.Error("an approval given in one tenant was used in another")
	}
}

func TestApprovalsByClient(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{Unsafe: true, Approvals: ApprovalsClient}, carol)
	for _, name := range []string{"acme_fetch", "acme_write"} {
		if got := resultText(f.modern(t, "tools/call", `"name":"`+name+`","arguments":{},`, "{}")); got != "ran "+name {
			t.Errorf("approvals: client, %s: %q", name, got)
		}
	}
}

// TestApprovalsLegacy drives a legacy stdio session: the server asks with
// elicitation/create and waits; the answer decides.
func TestApprovalsLegacy(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{Unsafe: true}, carol)
	f.ctl.Local = &carol
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- f.srv.ServeStdio(context.Background(), inR, outW, nil); _ = outW.Close() }()
	t.Cleanup(func() { _ = inW.Close(); go io.Copy(io.Discard, outR); <-done })
	lines := bufio.NewScanner(outR)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		t.Helper()
		got := make(chan string, 1)
		go func() {
			if lines.Scan() {
				got <- lines.Text()
			} else {
				got <- ""
			}
		}()
		select {
		case l := <-got:
			var m map[string]any
			_ = json.Unmarshal([]byte(l), &m)
			return m
		case <-time.After(20 * time.Second):
			t.Fatal("no message from the server")
			return nil
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"legacy","version":"1"}}}`)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, answer := range []string{`{"action":"accept","content":{"approve":true}}`, `{"action":"decline"}`} {
		send(`{"jsonrpc":"2.0","id":` + string(rune('2'+i)) + `,"method":"tools/call","params":{"name":"acme_write","arguments":{}}}`)
		ask := next()
		if ask["method"] != "elicitation/create" {
			t.Fatalf("expected an elicitation, got %v", ask)
		}
		id, _ := json.Marshal(ask["id"])
		send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + answer + `}`)
		reply := resultText(next())
		want := "ran acme_write"
		if i == 1 {
			want = "approval_declined: the person declined to run acme_write"
		}
		if reply != want {
			t.Errorf("answer %s: %q, want %q", answer, reply, want)
		}
	}
}

func TestInScope(t *testing.T) {
	open := newGateFixture(t, CatalogConfig{}, carol).g
	if !open.InScope("anything.example") {
		t.Error("an empty scope refused a host")
	}
	g := newGateFixture(t, CatalogConfig{ScopeInclude: []string{"*.example.org"}, ScopeExclude: []string{"admin.example.org", "*.internal.example.org"}}, carol).g
	for host, want := range map[string]bool{"www.example.org": true, "WWW.Example.ORG.": true, "admin.example.org": false, "example.org": false, "evil.example": false, "": false} {
		if got := g.InScope(host); got != want {
			t.Errorf("%q: %v, want %v", host, got, want)
		}
	}
}

// TestApprovalNotForgedNorReplayed: on the stateless revision a
// confirm_each tool runs only on an answer to the question Warden asked,
// once: answers sent without the round's requestState ask the question,
// and an accepted retry sent again asks it again rather than running the
// tool a second time.
func TestApprovalNotForgedNorReplayed(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{}, carol)
	args := `{"note":"rm -rf"}`
	yes := `{"action":"accept","content":{"approve":true}}`
	forged := f.modern(t, "tools/call", `"name":"acme_write","arguments":`+args+`,"inputResponses":{"`+approvalKey+`":`+yes+`},`, elicitCaps)
	if res, _ := forged["result"].(map[string]any); res["resultType"] != "input_required" {
		t.Fatalf("an approval nobody was asked for ran the tool: %v", forged)
	}
	first := f.modern(t, "tools/call", `"name":"acme_write","arguments":`+args+`,`, elicitCaps)
	if got := resultText(answerRetry(t, f, "acme_write", args, first, yes)); got != "ran acme_write" {
		t.Fatalf("accepted: %q", got)
	}
	replay := answerRetry(t, f, "acme_write", args, first, yes)
	if res, _ := replay["result"].(map[string]any); res["resultType"] != "input_required" {
		t.Errorf("a replayed approval ran the tool again: %v", replay)
	}
	if n := len(f.ran); n != 1 {
		t.Errorf("acme_write ran %d times on one approval", n)
	}
}

// hidePassword hides one known password, as a redactor would.
type hidePassword struct{}

func (hidePassword) Hide(s string) string {
	return strings.ReplaceAll(s, "hunter2", "[REDACTED:password]")
}
