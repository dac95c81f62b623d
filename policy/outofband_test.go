package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/auth"
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
