package policy

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

const consoleBase = "http://127.0.0.1:8787"

// approvalURL reads details.approval_url of an approval_required answer.
func approvalURL(t *testing.T, r map[string]any) (url, id string) {
	t.Helper()
	res, _ := r["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	d, _ := sc["details"].(map[string]any)
	url, _ = d["approval_url"].(string)
	if sc["errorCode"] != CodeApprovalRequired || !strings.HasPrefix(url, consoleBase+ApprovalPath) {
		t.Fatalf("want approval_required with an approval_url, got %v", r)
	}
	id = strings.TrimPrefix(url, consoleBase+ApprovalPath)
	if !approval.ValidID(id) {
		t.Fatalf("approval id %q is not 128 random bits in hex", id)
	}
	if !strings.Contains(resultText(r), url) {
		t.Errorf("the message does not carry the link for an agent that reads text only: %q", resultText(r))
	}
	return url, id
}

func TestOutOfBandApproval(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{Unsafe: true, ConsoleURL: consoleBase + "/"}, carol)
	rs := f.g.Requests()
	args := `{"url":"https://example.com","note":"password hunter2"}`
	call := func(name, args string) map[string]any {
		return f.modern(t, "tools/call", `"name":"`+name+`","arguments":`+args+`,`, "{}")
	}
	decide := func(id, state string) {
		t.Helper()
		if err := rs.DecideApprovalRequest(t.Context(), id, state, "carol", time.Now()); err != nil {
			t.Fatal(err)
		}
	}

	// confirm_each: the first call opens a request; a retry before the
	// decision points to the same page.
	u1, id1 := approvalURL(t, call("acme_write", args))
	if u, _ := approvalURL(t, call("acme_write", args)); u != u1 {
		t.Errorf("a retry before the decision opened another request: %s, then %s", u1, u)
	}
	r, err := rs.ApprovalRequest(t.Context(), id1)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Summary, "hunter2") || !strings.Contains(r.Summary, "https://example.com") || r.Grant != "" || r.Tenant != "acme" {
		t.Errorf("request as stored: %+v", r)
	}
	// Approved: the retry with the same arguments (in another order) runs
	// once; the next call asks again.
	decide(id1, approval.StateApproved)
	if got := resultText(call("acme_write", `{"note":"password hunter2","url":"https://example.com"}`)); got != "ran acme_write" {
		t.Fatalf("retry after approval: %q", got)
	}
	if _, id := approvalURL(t, call("acme_write", args)); id == id1 {
		t.Error("an approval once was used twice")
	} else {
		// Denied: the retry answers approval_declined, then a new request.
		decide(id, approval.StateDenied)
		if got := resultText(call("acme_write", args)); !strings.HasPrefix(got, CodeApprovalDeclined+":") {
			t.Errorf("retry after denial: %q", got)
		}
		if _, id2 := approvalURL(t, call("acme_write", args)); id2 == id {
			t.Error("a denial was reused")
		}
	}

	// Other arguments are another request: an approval covers exactly
	// the arguments it showed.
	_, idA := approvalURL(t, call("acme_fetch", `{"url":"https://a.example"}`))
	decide(idA, approval.StateApprovedSession)
	if got := resultText(call("acme_fetch", `{"url":"https://b.example"}`)); !strings.HasPrefix(got, CodeApprovalRequired+":") {
		t.Errorf("an approval of one target ran another: %q", got)
	}
	// confirm, approved for the session: the retry runs, and later calls
	// of the tool from this caller and client run without asking.
	if got := resultText(call("acme_fetch", `{"url":"https://a.example"}`)); got != "ran acme_fetch" {
		t.Fatalf("retry after approve-for-session: %q", got)
	}
	if got := resultText(call("acme_fetch", `{"url":"https://c.example"}`)); got != "ran acme_fetch" {
		t.Errorf("approve-for-session did not cover a later call: %q", got)
	}

	// Another caller with the same arguments is not covered by carol's
	// decisions.
	_, idC := approvalURL(t, call("acme_write", `{"url":"https://z.example"}`))
	decide(idC, approval.StateApproved)
	f.p = auth.Principal{Issuer: "urn:test", Credential: "cred-carol", Tenant: "other-tenant", Entitlements: []string{"*"}}
	if got := resultText(call("acme_write", `{"url":"https://z.example"}`)); !strings.HasPrefix(got, CodeApprovalRequired+":") {
		t.Errorf("carol's approval ran another tenant's call: %q", got)
	}
	if got := resultText(call("acme_fetch", `{}`)); !strings.HasPrefix(got, CodeApprovalRequired+":") {
		t.Errorf("carol's session approval covered another tenant: %q", got)
	}
}

func TestOutOfBandOffWithoutConsole(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{Unsafe: true}, carol)
	got := resultText(f.modern(t, "tools/call", `"name":"acme_write","arguments":{},`, "{}"))
	if !strings.HasPrefix(got, CodeApprovalUnavailable+":") {
		t.Errorf("no console: %q", got)
	}
	if f.g.Requests() != nil {
		t.Error("requests offered with no console to decide them")
	}
}

func TestOutOfBandExpiry(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{Unsafe: true, ConsoleURL: consoleBase, ApprovalWait: time.Minute}, carol)
	now := time.Now()
	f.g.now = func() time.Time { return now }
	call := func() map[string]any { return f.modern(t, "tools/call", `"name":"acme_write","arguments":{},`, "{}") }
	_, id := approvalURL(t, call())
	now = now.Add(2 * time.Minute)
	if err := f.g.Requests().DecideApprovalRequest(t.Context(), id, approval.StateApproved, "carol", now); err == nil {
		t.Error("an expired request was decided")
	}
	if _, id2 := approvalURL(t, call()); id2 == id {
		t.Error("an expired request was offered again")
	}
}

func TestApprovalDescriptionHidesValues(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{Unsafe: true, ConsoleURL: consoleBase}, carol)
	_, id := approvalURL(t, f.modern(t, "tools/call", `"name":"acme_write","arguments":{"url":"https://x.example/?a=1","note":"my password hunter2 here"},`, "{}"))
	r, _ := f.g.Requests().ApprovalRequest(t.Context(), id)
	for _, want := range []string{"acme_write", "url: https://x.example/?a=1", "note: my password"} {
		if !strings.Contains(r.Summary, want) {
			t.Errorf("description %q lacks %q", r.Summary, want)
		}
	}
	if strings.Contains(r.Summary, "hunter2") {
		t.Errorf("description repeats a secret: %q", r.Summary)
	}
}

// TestApproveAtBegin: a tool that approves at Begin is asked only once
// its own checks pass; one that refuses its arguments asks nobody, and
// one that never calls Begin returns no result.
func TestApproveAtBegin(t *testing.T) {
	reg := tool.NewRegistry()
	fam := reg.MustFamily("acme_")
	type args struct {
		Port int  `json:"port"`
		Skip bool `json:"skip,omitempty"`
	}
	ran := 0
	tl, err := tool.New(tool.Def{Name: "acme_send", Description: "Send.", Annotations: tool.Annotations{OpenWorld: true},
		Catalog: tool.Catalog{Category: "test", Trust: tool.TrustConfirmEach, ApproveAtBegin: true}},
		func(ctx context.Context, c *tool.Call, in args) (string, error) {
			if in.Port != 443 {
				return "", &tool.Error{Code: "blocked_port", Message: "only port 443"}
			}
			if !in.Skip {
				if _, err := c.Begin(ctx); err != nil {
					return "", err
				}
			}
			ran++
			return "sent", nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := fam.Register(tl); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, limits.Config{})
	grants := approval.NewMemory(0)
	g, err := NewGates(reg, CatalogConfig{ConsoleURL: consoleBase}, grants)
	if err != nil {
		t.Fatal(err)
	}
	st := (&Controls{Limiter: f.lim}).Stages(g, nil)
	srv := mcp.NewServer(reg, &mcp.Options{Middleware: st.Middleware(), Visible: st.Visible})
	t.Cleanup(srv.Close)
	gf := &gateFixture{srv: srv, g: g, p: carol}
	call := func(a string) map[string]any {
		return gf.modern(t, "tools/call", `"name":"acme_send","arguments":`+a+`,`, "{}")
	}
	if got := resultText(call(`{"port":8080}`)); !strings.HasPrefix(got, "blocked_port:") {
		t.Errorf("a call its checks refuse: %q, want the tool's own refusal", got)
	}
	if list, _ := g.Requests().ApprovalRequests(t.Context(), "acme", 10); len(list) != 0 {
		t.Errorf("a person was asked about a call its checks refuse: %d requests", len(list))
	}
	_, id := approvalURL(t, call(`{"port":443}`))
	if ran != 0 {
		t.Fatal("the work ran before approval")
	}
	_ = g.Requests().DecideApprovalRequest(t.Context(), id, approval.StateApproved, "carol", time.Now())
	if got := resultText(call(`{"port":443}`)); got != "sent" || ran != 1 {
		t.Errorf("retry after approval: %q (ran %d)", got, ran)
	}
	// Asked at every call; a handler that skips Begin returns nothing.
	if got := resultText(call(`{"port":443,"skip":true}`)); !strings.HasPrefix(got, tool.CodeInternal+":") {
		t.Errorf("a handler that never called Begin: %q", got)
	}
	// With elicitation, the question is asked at Begin (an input round).
	res, _ := gf.modern(t, "tools/call", `"name":"acme_send","arguments":{"port":443},`, elicitCaps)["result"].(map[string]any)
	if res["resultType"] != "input_required" {
		t.Errorf("with elicitation: %v", res)
	}
	if got := resultText(gf.modern(t, "tools/call", `"name":"acme_send","arguments":{"port":1},`, elicitCaps)); !strings.HasPrefix(got, "blocked_port:") {
		t.Errorf("with elicitation, a refused call: %q", got)
	}
}

// TestQuestionShowsHeaderNamesAndCoverage: the question names a private
// object's members (header names) but never their values, and says
// whether a yes covers later calls.
func TestQuestionShowsHeaderNamesAndCoverage(t *testing.T) {
	reg := tool.NewRegistry()
	fam := reg.MustFamily("acme_")
	type args struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers,omitempty" privacy:"secret"`
	}
	for _, trust := range []tool.Trust{tool.TrustConfirm, tool.TrustConfirmEach} {
		tl, err := tool.New(tool.Def{Name: "acme_" + string(trust), Description: "Send.", Annotations: tool.Annotations{OpenWorld: true},
			Catalog: tool.Catalog{Category: "test", Trust: trust}},
			func(ctx context.Context, c *tool.Call, in args) (string, error) { return "sent", nil })
		if err != nil {
			t.Fatal(err)
		}
		if err := fam.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixture(t, limits.Config{})
	g, err := NewGates(reg, CatalogConfig{ConsoleURL: consoleBase}, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := (&Controls{Limiter: f.lim}).Stages(g, nil)
	srv := mcp.NewServer(reg, &mcp.Options{Middleware: st.Middleware(), Visible: st.Visible})
	t.Cleanup(srv.Close)
	gf := &gateFixture{srv: srv, g: g, p: carol}
	a := `{"url":"https://x.example","headers":{"Authorization":"Bearer s3cr3tvalue","X-Trace":"abc123"}},`
	for trust, want := range map[string]string{"confirm": "later calls of acme_confirm", "confirm_each": "asked at every call"} {
		b, _ := json.Marshal(gf.modern(t, "tools/call", `"name":"acme_`+trust+`","arguments":`+a, elicitCaps))
		q := string(b)
		if !strings.Contains(q, "Authorization, X-Trace") || !strings.Contains(q, want) {
			t.Errorf("%s: question lacks header names or %q: %s", trust, want, q)
		}
		if strings.Contains(q, "s3cr3tvalue") || strings.Contains(q, "abc123") {
			t.Errorf("%s: question shows a header value: %s", trust, q)
		}
		// The approval page's description, for a client that cannot ask.
		_, id := approvalURL(t, gf.modern(t, "tools/call", `"name":"acme_`+trust+`","arguments":`+a, "{}"))
		r, _ := g.Requests().ApprovalRequest(t.Context(), id)
		if !strings.Contains(r.Summary, "headers: Authorization, X-Trace (values hidden)") || strings.Contains(r.Summary, "s3cr3t") {
			t.Errorf("%s: page description %q", trust, r.Summary)
		}
	}
}

// TestOutOfBandLegacySession: a legacy session that declared no
// elicitation gets the link; approve-for-session covers the tool for the
// rest of that session only.
func TestOutOfBandLegacySession(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{Unsafe: true, ConsoleURL: consoleBase}, carol)
	f.ctl.Local = &carol
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- f.srv.ServeStdio(context.Background(), inR, outW, nil); _ = outW.Close() }()
	t.Cleanup(func() { _ = inW.Close(); go io.Copy(io.Discard, outR); <-done })
	lines := bufio.NewScanner(outR)
	id := 1
	rpc := func(method, params string) map[string]any {
		t.Helper()
		id++
		if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"`+method+`","params":`+params+"}\n"); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatal("no answer")
		}
		var m map[string]any
		_ = json.Unmarshal(lines.Bytes(), &m)
		return m
	}
	rpc("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"legacy","version":"1"}}`)
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	call := func(args string) map[string]any {
		return rpc("tools/call", `{"name":"acme_fetch","arguments":`+args+`}`)
	}
	_, rid := approvalURL(t, call(`{"url":"https://a.example"}`))
	if err := f.g.Requests().DecideApprovalRequest(t.Context(), rid, approval.StateApprovedSession, "carol", time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := resultText(call(`{"url":"https://a.example"}`)); got != "ran acme_fetch" {
		t.Fatalf("retry: %q", got)
	}
	if got := resultText(call(`{"url":"https://b.example"}`)); got != "ran acme_fetch" {
		t.Errorf("approve-for-session did not cover the session's later call: %q", got)
	}
	// Another session is asked again.
	if got := resultText(f.modern(t, "tools/call", `"name":"acme_fetch","arguments":{},`, "{}")); !strings.HasPrefix(got, CodeApprovalRequired+":") {
		t.Errorf("another session: %q", got)
	}
}

// TestOutOfBandBound: one caller opens at most MaxOpenApprovals requests.
func TestOutOfBandBound(t *testing.T) {
	f := newGateFixture(t, CatalogConfig{Unsafe: true, ConsoleURL: consoleBase}, carol)
	for i := range MaxOpenApprovals {
		approvalURL(t, f.modern(t, "tools/call", `"name":"acme_write","arguments":{"note":"`+strconv.Itoa(i)+`"},`, "{}"))
	}
	got := resultText(f.modern(t, "tools/call", `"name":"acme_write","arguments":{"note":"one more"},`, "{}"))
	if !strings.HasPrefix(got, CodeTooManyPendingApprovals+":") {
		t.Errorf("past the bound: %q", got)
	}
	// A retry of an open request still gets its link.
	approvalURL(t, f.modern(t, "tools/call", `"name":"acme_write","arguments":{"note":"0"},`, "{}"))
}
