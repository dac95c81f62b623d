package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/warden-mcp/warden/finding"
)

// chromium finds Debian's Chromium, or skips: .ci/run installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (.ci/run installs Debian's); the browser test of the console skips")
	return ""
}

// newChrome starts a headless Chromium with a fresh profile, and returns
// a context bounded for the test's steps.
func newChrome(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	// The first run starts the browser, under a context without a
	// deadline (a deadline there would end the browser).
	if err := chromedp.Do(ctx); err != nil {
		cancelC()
		cancelA()
		t.Fatalf("chromium did not start: %v", err)
	}
	tctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	return tctx
}

// shot saves a screenshot of the page for docs/console.md when
// WARDEN_CONSOLE_SCREENSHOTS names a directory.
func shot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("WARDEN_CONSOLE_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100) /* 100: PNG */)
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Error(err)
	}
}

// text reads an element's text.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// TestConsoleInABrowser drives Chromium: the person signs in with the
// one-time link, sees a pending call from a client that cannot elicit
// appear live, approves it (the retried call runs), denies another (its
// retry gets approval_declined), and the findings page shows markup as
// text and runs none of it.
func TestConsoleInABrowser(t *testing.T) {
	cs := startConsoleServer(t)
	ctx := newChrome(t)
	args := `{"title":"<img src=x onerror=\"window.pwned=1\">Open redirect","severity":"high","target":"https://t.example/a"}`
	_, id := cs.callNoElicit(t, cs.token, "warden_findings_record", args)
	if id == "" {
		t.Fatal("no approval request")
	}
	pending := func(id string) chromedp.CSS { return chromedp.CSS(`#pending a[href="/console/approvals/` + id + `"]`) }
	if err := chromedp.Do(ctx,
		chromedp.Navigate(cs.localLink(t)),
		chromedp.Click(chromedp.CSS("#signin-link")),
		chromedp.WaitVisible(pending(id)),
	); err != nil {
		t.Fatalf("sign-in: %v", err)
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasSuffix(loc, "/console/approvals") {
		t.Errorf("after sign-in the browser is at %s", loc)
	}
	shot(t, ctx, "approvals")
	if err := chromedp.Do(ctx, chromedp.Click(pending(id)), chromedp.WaitVisible(chromedp.CSS("#approve"))); err != nil {
		t.Fatalf("approval page: %v", err)
	}
	if tool := text(t, ctx, "#tool"); tool != "warden_findings_record" {
		t.Errorf("the page names tool %q", tool)
	}
	shot(t, ctx, "approval")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("#outcome"))); err != nil {
		t.Fatalf("approve: %v", err)
	}
	if outcome := text(t, ctx, "#outcome"); !strings.HasPrefix(outcome, "Approved") {
		t.Errorf("after approving: %q", outcome)
	}
	if body, _ := cs.callNoElicit(t, cs.token, "warden_findings_record", args); !strings.Contains(body, `"isError":false`) {
		t.Fatalf("the retried call after approval: %s", body)
	}

	// A new request appears live on the open list; Deny refuses its retry.
	if err := chromedp.Do(ctx, chromedp.Navigate(cs.origin+"/console/approvals"), chromedp.WaitReady(chromedp.CSS("#pending-h"))); err != nil {
		t.Fatal(err)
	}
	_, id2 := cs.callNoElicit(t, cs.token, "warden_findings_record", args)
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(pending(id2)), // through server-sent events: the page was loaded before the request
		chromedp.Click(pending(id2)),
		chromedp.WaitVisible(chromedp.CSS("#deny")),
		chromedp.Click(chromedp.CSS("#deny")),
		chromedp.WaitVisible(chromedp.CSS("#outcome")),
	); err != nil {
		t.Fatalf("deny: %v", err)
	}
	if outcome := text(t, ctx, "#outcome"); !strings.HasPrefix(outcome, "Denied") {
		t.Errorf("after denying: %q", outcome)
	}
	if body, _ := cs.callNoElicit(t, cs.token, "warden_findings_record", args); !strings.Contains(body, "approval_declined") {
		t.Errorf("the retried call after denial: %s", body)
	}

	// Findings: filtered, markup shown as text, no script of it run.
	if err := cs.s.ctl.store.RecordFinding(t.Context(), finding.Finding{ID: finding.NewID(), Tenant: "local", Credential: "dev",
		Title: "Verbose banner", Severity: "low", Target: "https://t.example/b", Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(cs.origin+"/console/findings"),
		chromedp.WaitVisible(chromedp.CSS("#f-sev")),
		chromedp.SetValue(chromedp.CSS("#f-sev"), "high"),
		chromedp.Submit(chromedp.CSS("#f-sev")),
		chromedp.WaitVisible(chromedp.CSS("#findings")),
	); err != nil {
		t.Fatalf("findings: %v", err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#findings tbody tr").length`))
	if err != nil {
		t.Fatal(err)
	}
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.pwned === 1 || document.querySelector("#findings img") !== null`))
	if err != nil {
		t.Fatal(err)
	}
	if title := text(t, ctx, "#findings summary"); rows != 1 || !strings.Contains(title, "<img src=x") || pwned {
		t.Errorf("findings filtered to high: %d rows, title %q, markup ran: %v", rows, title, pwned)
	}
	shot(t, ctx, "findings")
	for _, p := range []string{"activity", "views", "settings"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(cs.origin+"/console/"+p), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		shot(t, ctx, p)
	}
}
