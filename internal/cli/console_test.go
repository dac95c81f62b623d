package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/console"
)

// consoleServer is a local warden serve with its console, for the tests
// that sign in and decide.
type consoleServer struct {
	s      *server
	origin string // http://127.0.0.1:port
	mcp    string // the endpoint's URL
	token  string // a local development token (tenant local)
}

func startConsoleServer(t *testing.T) *consoleServer {
	t.Helper()
	return startConsoleServerIn(t, t.TempDir())
}

func startConsoleServerIn(t *testing.T, stateDir string, roots ...string) *consoleServer {
	t.Helper()
	e := &env{}
	cfg, derived, err := e.serveConfig(serveFlags{listen: "127.0.0.1:0", stateDir: stateDir, roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	cfg.LogLevel = "error"
	s, err := openServer(context.Background(), cfg, derived, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; s.Close() })
	if s.console == nil {
		t.Fatal("the local profile serves no console")
	}
	cs := &consoleServer{s: s, origin: s.cfg.consoleOrigin(), mcp: s.cfg.PublicURL}
	cs.token = cs.mint(t, "local", "dev")
	return cs
}

func (cs *consoleServer) mint(t *testing.T, tenant, subject string) string {
	t.Helper()
	tok, err := cs.s.ctl.local.Mint(auth.TokenSpec{Audience: cs.s.cfg.PublicURL, Subject: subject, Tenant: tenant,
		Entitlements: []string{"*"}, Lifetime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// localLink is a one-time sign-in link for the local user.
func (cs *consoleServer) localLink(t *testing.T) string {
	t.Helper()
	link, err := cs.s.console.SignInLink(console.Session{Issuer: auth.LocalIssuerID, Tenant: "local", Owner: true, Name: "local user"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return link
}

var approvalIDRE = regexp.MustCompile(`/console/approvals/([0-9a-f]{32})`)

// callNoElicit calls a tool as a client that declares no elicitation and
// returns the answer's body and, for approval_required, the request id.
func (cs *consoleServer) callNoElicit(t *testing.T, token, name, args string) (body, id string) {
	t.Helper()
	_, body = post(t, cs.mcp, token, "tools/call", `"name":"`+name+`","arguments":`+args+`,`)
	if m := approvalIDRE.FindStringSubmatch(body); m != nil && strings.Contains(body, "approval_required") {
		id = m[1]
	}
	return body, id
}

// browser is an HTTP client with cookies that sends the console's Origin
// on POSTs, as a browser does on its own page's forms.
type browser struct {
	c      *http.Client
	origin string
}

func newBrowser(t *testing.T, origin string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{c: &http.Client{Jar: jar, Timeout: 10 * time.Second}, origin: origin}
}

func (b *browser) get(t *testing.T, u string) (*http.Response, string) {
	t.Helper()
	resp, err := b.c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func (b *browser) postForm(t *testing.T, u string, form url.Values, origin string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// formCSRF returns the decision form's CSRF token of a page.
func formCSRF(t *testing.T, page string) string {
	t.Helper()
	all := csrfRE.FindAllStringSubmatch(page, -1)
	if len(all) == 0 {
		t.Fatalf("no CSRF token on the page:\n%s", page)
	}
	return all[len(all)-1][1] // the sign-out form comes first
}

// signIn spends a one-time link in b.
func (b *browser) signIn(t *testing.T, link string) {
	t.Helper()
	u, _ := url.Parse(link)
	resp, _ := b.postForm(t, b.origin+console.Path+"/signin", url.Values{"code": {u.Query().Get("code")}}, b.origin)
	if resp.StatusCode != http.StatusOK || !strings.HasSuffix(resp.Request.URL.Path, "/console/approvals") {
		t.Fatalf("sign-in: %d at %s", resp.StatusCode, resp.Request.URL)
	}
}

// TestConsoleApprovalEndToEnd: a client without elicitation gets
// approval_required with a link on the server's own listener; the person
// signs in, approves, and the retried call runs once; a denied request's
// retry gets approval_declined; a used link decides nothing.
func TestConsoleApprovalEndToEnd(t *testing.T) {
	cs := startConsoleServer(t)
	args := `{"title":"Open redirect","severity":"high","target":"https://t.example/a","evidence":"Location: https://evil.example"}`
	body, id := cs.callNoElicit(t, cs.token, "warden_findings_record", args)
	if id == "" || !strings.Contains(body, `approval_url\":\"`+cs.origin+`/console/approvals/`+id) {
		t.Fatalf("first call: %s", body)
	}
	b := newBrowser(t, cs.origin)
	// Not signed in: the link sends the browser to sign in.
	resp, _ := b.get(t, cs.origin+"/console/approvals/"+id)
	if resp.Request.URL.Path != "/console/signin" {
		t.Fatalf("unsigned approval page landed on %s", resp.Request.URL)
	}
	b.signIn(t, cs.localLink(t))
	resp, page := b.get(t, cs.origin+"/console/approvals/"+id)
	if resp.StatusCode != 200 || !strings.Contains(page, "warden_findings_record") || !strings.Contains(page, "https://t.example/a") {
		t.Fatalf("approval page: %d\n%s", resp.StatusCode, page)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP: %q", csp)
	}
	if strings.Contains(page, "http://") && regexp.MustCompile(`<script[^>]+src="http`).MatchString(page) {
		t.Error("the page loads a script from elsewhere")
	}
	csrf := formCSRF(t, page)
	resp, _ = b.postForm(t, cs.origin+"/console/approvals/"+id, url.Values{"csrf": {csrf}, "decision": {"approve"}}, cs.origin)
	if resp.StatusCode != 200 {
		t.Fatalf("approve: %d", resp.StatusCode)
	}
	if body, _ := cs.callNoElicit(t, cs.token, "warden_findings_record", args); !strings.Contains(body, `"isError":false`) || !strings.Contains(body, `"id":"fnd_`) {
		t.Fatalf("retry after approval: %s", body)
	}
	// The link used again decides nothing.
	resp, _ = b.postForm(t, cs.origin+"/console/approvals/"+id, url.Values{"csrf": {csrf}, "decision": {"approve"}}, cs.origin)
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("replayed decision: %d, want 409", resp.StatusCode)
	}
	// The approval was once: the same call asks again; Deny refuses it.
	_, id2 := cs.callNoElicit(t, cs.token, "warden_findings_record", args)
	if id2 == "" || id2 == id {
		t.Fatalf("second call reused the approval (id %q)", id2)
	}
	_, page = b.get(t, cs.origin+"/console/approvals/"+id2)
	b.postForm(t, cs.origin+"/console/approvals/"+id2, url.Values{"csrf": {formCSRF(t, page)}, "decision": {"deny"}}, cs.origin)
	if body, _ := cs.callNoElicit(t, cs.token, "warden_findings_record", args); !strings.Contains(body, "approval_declined") {
		t.Errorf("retry after denial: %s", body)
	}
	// History says who decided.
	if _, list := b.get(t, cs.origin+"/console/approvals"); !strings.Contains(list, "local user") || !strings.Contains(list, "denied") {
		t.Errorf("history lacks the decisions:\n%s", list)
	}
	// The recorded finding is marked fixed; the act is audited.
	_, page = b.get(t, cs.origin+"/console/findings")
	m := regexp.MustCompile(`action="/console/findings/(fnd_[a-z0-9]+)/status"[^>]*>\s*<input type="hidden" name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no mark form on the findings page:\n%s", page)
	}
	resp, _ = b.postForm(t, cs.origin+"/console/findings/"+m[1]+"/status", url.Values{"csrf": {m[2]}, "status": {"fixed"}}, cs.origin)
	if resp.StatusCode != 200 {
		t.Fatalf("mark fixed: %d", resp.StatusCode)
	}
	if _, page = b.get(t, cs.origin+"/console/findings"); !strings.Contains(page, `<span class="status">fixed</span> by local user`) {
		t.Errorf("the finding is not shown fixed:\n%s", page)
	}
	_, activity := b.get(t, cs.origin+"/console/activity")
	for _, act := range []string{"console_approval_approved", "console_approval_denied", "console_finding_fixed", "warden_findings_record"} {
		if !strings.Contains(activity, act) {
			t.Errorf("the audit trail lacks %s", act)
		}
	}
}

// runCLI runs a warden command and returns its stdout and exit code.
func runCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb strings.Builder
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Logf("warden %s: %s", strings.Join(args, " "), errb.String())
	}
	return out.String(), code
}

// TestConsoleLinkForAnAPIKey: the operator mints a one-time link for an
// API key's owner; it signs in as that key, once, and decides that key's
// requests.
func TestConsoleLinkForAnAPIKey(t *testing.T) {
	dir := t.TempDir()
	cs := startConsoleServerIn(t, dir)
	out, code := runCLI(t, "credentials", "create", "--state-dir", dir, "--tenant", "acme", "--label", "ci-bot", "--json")
	if code != 0 {
		t.Fatal(out)
	}
	var created struct{ ID, Key string }
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Key == "" {
		t.Fatalf("create: %s", out)
	}
	_, id := cs.callNoElicit(t, created.Key, "warden_findings_record", `{"title":"t","severity":"low"}`)
	if id == "" {
		t.Fatal("no approval request for the API key's call")
	}
	out, code = runCLI(t, "credentials", "console-link", created.ID, "--state-dir", dir, "--json")
	if code != 0 {
		t.Fatal(out)
	}
	var minted struct{ Link string }
	_ = json.Unmarshal([]byte(out), &minted)
	u, err := url.Parse(minted.Link)
	if err != nil || u.Query().Get("code") == "" {
		t.Fatalf("link: %s", out)
	}
	b := newBrowser(t, cs.origin)
	b.signIn(t, cs.origin+"/console/signin?"+u.RawQuery)
	resp, page := b.get(t, cs.origin+"/console/approvals/"+id)
	if resp.StatusCode != 200 || !strings.Contains(page, "ci-bot") {
		t.Fatalf("the key's owner on its approval page: %d", resp.StatusCode)
	}
	// The local user's requests are not the key's.
	_, localID := cs.callNoElicit(t, cs.token, "warden_findings_record", `{"title":"t","severity":"low"}`)
	if resp, _ := b.get(t, cs.origin+"/console/approvals/"+localID); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the key's owner sees the local user's request: %d", resp.StatusCode)
	}
	// Used once.
	resp, _ = newBrowser(t, cs.origin).postForm(t, cs.origin+"/console/signin", url.Values{"code": {u.Query().Get("code")}}, cs.origin)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("the link used twice: %d, want 403", resp.StatusCode)
	}
	if _, code := runCLI(t, "credentials", "console-link", "nope", "--state-dir", dir); code == 0 {
		t.Error("a link for an unknown credential")
	}
}

// TestConsoleKey: on by default locally, off hosted; the key turns it
// either way, and with it off nothing under /console is served and a
// client that cannot ask gets approval_unavailable.
func TestConsoleKey(t *testing.T) {
	on, off := true, false
	for _, c := range []struct {
		name string
		cfg  Config
		want bool
	}{
		{"local", Config{Listen: "127.0.0.1:8787"}, true},
		{"local, console: false", Config{Listen: "127.0.0.1:8787", Console: &off}, false},
		{"hosted", Config{Listen: "0.0.0.0:8787", PublicURL: "https://mcp.example.com/mcp"}, false},
		{"hosted, console: true", Config{Listen: "0.0.0.0:8787", PublicURL: "https://mcp.example.com/mcp", Console: &on}, true},
	} {
		cfg, err := c.cfg.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.consoleOn(); got != c.want {
			t.Errorf("%s: console on = %v, want %v", c.name, got, c.want)
		}
	}
	e := &env{}
	cfg, derived, err := e.serveConfig(serveFlags{listen: "127.0.0.1:0", stateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Console = &off
	s, err := openServer(context.Background(), cfg, derived, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done; s.Close() }()
	if s.console != nil {
		t.Fatal("console: false still built the console")
	}
	origin := s.cfg.consoleOrigin()
	if resp, _ := get(t, origin+"/console/signin"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/console/signin with the console off: %d", resp.StatusCode)
	}
	tok, _ := s.ctl.local.Mint(auth.TokenSpec{Audience: s.cfg.PublicURL, Subject: "dev", Tenant: "local", Entitlements: []string{"*"}, Lifetime: time.Hour})
	if _, body := post(t, s.cfg.PublicURL, tok, "tools/call", `"name":"warden_findings_record","arguments":{"title":"t","severity":"low"},`); !strings.Contains(body, "approval_unavailable") {
		t.Errorf("a client that cannot ask, console off: %s", body)
	}
}
