package cli

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/finding"
)

// signInToken signs b in by pasting a token, as a hosted API key's owner
// would.
func (b *browser) signInToken(t *testing.T, token string) {
	t.Helper()
	resp, _ := b.postForm(t, b.origin+"/console/signin", url.Values{"token": {token}}, b.origin)
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/console/approvals" {
		t.Fatalf("token sign-in: %d at %s", resp.StatusCode, resp.Request.URL)
	}
}

// TestConsoleHostile: ids of another tenant or caller, replayed links,
// forged forms, a rebound Host, and markup in findings and arguments.
func TestConsoleHostile(t *testing.T) {
	cs := startConsoleServer(t)
	args := `{"title":"<script>alert(1)</script>","severity":"low","target":"https://t.example/\"><img src=x onerror=alert(2)>"}`
	_, id := cs.callNoElicit(t, cs.token, "warden_findings_record", args)
	if id == "" {
		t.Fatal("no approval request")
	}
	page := cs.origin + "/console/approvals/" + id

	t.Run("AnotherTenantSeesNothing", func(t *testing.T) {
		b := newBrowser(t, cs.origin)
		b.signInToken(t, cs.mint(t, "other", "mallory"))
		if resp, _ := b.get(t, page); resp.StatusCode != http.StatusNotFound {
			t.Errorf("another tenant's approval page: %d, want 404", resp.StatusCode)
		}
		// Its own CSRF token for the id does not help either.
		resp, _ := b.postForm(t, page, url.Values{"csrf": {"x"}, "decision": {"approve"}}, cs.origin)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("another tenant's decision: %d, want 404", resp.StatusCode)
		}
		if _, list := b.get(t, cs.origin+"/console/approvals"); strings.Contains(list, id) {
			t.Error("another tenant's list shows the request")
		}
	})
	t.Run("AnotherCallerOfTheTenantCannotDecide", func(t *testing.T) {
		b := newBrowser(t, cs.origin)
		b.signInToken(t, cs.mint(t, "local", "alice")) // another credential of the same tenant
		if resp, _ := b.get(t, page); resp.StatusCode != http.StatusNotFound {
			t.Errorf("another caller's approval page: %d, want 404", resp.StatusCode)
		}
	})
	t.Run("ReplayedSignInLink", func(t *testing.T) {
		link := cs.localLink(t)
		newBrowser(t, cs.origin).signIn(t, link)
		b := newBrowser(t, cs.origin)
		u, _ := url.Parse(link)
		resp, _ := b.postForm(t, cs.origin+"/console/signin", url.Values{"code": {u.Query().Get("code")}}, cs.origin)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("a sign-in link used twice: %d, want 403", resp.StatusCode)
		}
		if resp, _ := b.get(t, page); resp.Request.URL.Path != "/console/signin" {
			t.Error("the second use of a link signed in")
		}
	})
	t.Run("ForgedForms", func(t *testing.T) {
		b := newBrowser(t, cs.origin)
		b.signIn(t, cs.localLink(t))
		_, body := b.get(t, page)
		csrf := formCSRF(t, body)
		other := newBrowser(t, cs.origin)
		other.signIn(t, cs.localLink(t))
		_, otherBody := other.get(t, page)
		for _, c := range []struct {
			name, csrf, origin string
		}{
			{"no Origin", csrf, ""},
			{"foreign Origin", csrf, "https://evil.example"},
			{"rebound-name Origin", csrf, strings.Replace(cs.origin, "127.0.0.1", "evil.example", 1)},
			{"no CSRF token", "", cs.origin},
			{"another session's token", formCSRF(t, otherBody), cs.origin},
		} {
			resp, _ := b.postForm(t, page, url.Values{"csrf": {c.csrf}, "decision": {"approve"}}, c.origin)
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s: %d, want 403", c.name, resp.StatusCode)
			}
		}
		if _, body := b.get(t, page); !strings.Contains(body, `id="approve"`) {
			t.Error("a forged form decided the request")
		}
		// A tampered session cookie is no session.
		u, _ := url.Parse(cs.origin + "/console/")
		for _, c := range b.c.Jar.Cookies(u) {
			c.Value = strings.Replace(c.Value, ".", "x.", 1)
			b.c.Jar.SetCookies(u, []*http.Cookie{c})
		}
		if resp, _ := b.get(t, page); resp.Request.URL.Path != "/console/signin" {
			t.Error("a tampered cookie was taken for a session")
		}
	})
	t.Run("ReboundHost", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, page, nil)
		req.Host = strings.Replace(strings.TrimPrefix(cs.origin, "http://"), "127.0.0.1", "rebound.example", 1)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("a rebound Host: %d, want 403", resp.StatusCode)
		}
	})
	t.Run("MarkupIsText", func(t *testing.T) {
		st := cs.s.ctl.store
		for _, f := range []finding.Finding{
			{ID: finding.NewID(), Tenant: "local", Credential: "dev", Title: `<script>alert(3)</script>`, Severity: "high",
				Target: `https://x.example/"><svg onload=alert(4)>`, Evidence: `</pre><script>alert(5)</script>`, SourceTool: "<b>tool</b>", Created: time.Now()},
			{ID: finding.NewID(), Tenant: "other", Credential: "mallory", Title: "other tenant's secret finding", Severity: "critical", Created: time.Now()},
		} {
			if err := st.RecordFinding(t.Context(), f); err != nil {
				t.Fatal(err)
			}
		}
		b := newBrowser(t, cs.origin)
		b.signIn(t, cs.localLink(t))
		for _, u := range []string{page, cs.origin + "/console/findings", cs.origin + "/console/findings/export?format=html"} {
			_, body := b.get(t, u)
			for _, bad := range []string{"<script>alert", "<img src=x", "<svg onload", "<b>tool"} {
				if strings.Contains(body, bad) {
					t.Errorf("%s holds markup %q unescaped", u, bad)
				}
			}
			if strings.Contains(body, "other tenant's secret finding") {
				t.Errorf("%s shows another tenant's finding", u)
			}
		}
		_, body := b.get(t, cs.origin+"/console/findings")
		if !strings.Contains(body, "&lt;script&gt;alert(3)&lt;/script&gt;") {
			t.Error("the finding's title is not shown as text")
		}
		// Another tenant's finding cannot be marked, whatever the form.
		other, _ := st.ListFindings(t.Context(), finding.Filter{Tenant: "other", Limit: 1})
		_, page := b.get(t, cs.origin+"/console/findings")
		csrf := formCSRF(t, page)
		resp, _ := b.postForm(t, cs.origin+"/console/findings/"+other[0].ID+"/status", url.Values{"csrf": {csrf}, "status": {"fixed"}}, cs.origin)
		if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusNotFound {
			t.Errorf("marking another tenant's finding: %d", resp.StatusCode)
		}
		if got, _ := st.FindingStatuses(t.Context(), "other", []string{other[0].ID}); len(got) != 0 {
			t.Errorf("another tenant's finding was marked: %+v", got)
		}
		// A tenant named in the URL changes nothing.
		_, body = b.get(t, cs.origin+"/console/findings/export?format=json&tenant=other")
		if strings.Contains(body, "other tenant") || !strings.Contains(body, "alert(3)") {
			t.Errorf("export with tenant=other: %s", body)
		}
	})
}

// TestConsoleViewsEscapeFileNames: a binary whose file name is markup is
// listed on the Binary views page as text, to its own credential only.
func TestConsoleViewsEscapeFileNames(t *testing.T) {
	root := t.TempDir()
	name := `<img src=x onerror=alert(7)>.bin`
	if err := os.WriteFile(filepath.Join(root, name), []byte("\x00\x01\x02\x03 raw bytes of no known format"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := startConsoleServerIn(t, t.TempDir(), root)
	_, body := post(t, cs.mcp, cs.token, "tools/call", `"name":"bininspect_open","arguments":{"path":`+strconv.Quote(filepath.Join(root, name))+`,"format":"raw","arch":"x86-64"},`)
	if !strings.Contains(body, `"isError":false`) {
		t.Fatalf("open: %s", body)
	}
	b := newBrowser(t, cs.origin)
	b.signInToken(t, cs.token)
	_, page := b.get(t, cs.origin+"/console/views")
	if strings.Contains(page, "<img src=x") || !strings.Contains(page, "&lt;img src=x onerror=alert(7)&gt;.bin") {
		t.Errorf("the file name is not text on the page:\n%s", page)
	}
	other := newBrowser(t, cs.origin)
	other.signInToken(t, cs.mint(t, "other", "mallory"))
	if _, page := other.get(t, cs.origin+"/console/views"); strings.Contains(page, "alert(7)") {
		t.Error("another tenant sees the view")
	}
}
