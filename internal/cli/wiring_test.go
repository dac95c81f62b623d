package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/tool/tooltest"
)

// The production wiring must refuse loopback and metadata targets: no
// configuration reaches the fetcher's test allowances.
func TestProductionWiringRefusesPrivateTargets(t *testing.T) {
	if edition != "full" {
		t.Skip("the lean edition has no website scan")
	}
	w, err := wire(wireOptions{logger: discardLogger(), stateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{"http://127.0.0.1/", "http://localhost/", "http://[::1]/", "http://169.254.169.254/", "http://10.0.0.1/", "http://0x7f000001/"} {
		rep, err := tooltest.Invoke(context.Background(), w.reg, "microdefend_scan_website", `{"url":"`+url+`"}`, nil)
		if err != nil {
			t.Fatal(err)
		}
		code := rep.Result.ErrorCode()
		if !strings.HasPrefix(code, "blocked_") {
			t.Errorf("%s: %q, want a blocked_ code", url, code)
		}
	}
}

func TestWiredToolsPassTheHarness(t *testing.T) {
	w, err := wire(wireOptions{logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"keysweep_scan_text"}
	if edition == "full" {
		names = append(names, "microdefend_scan_website")
	}
	for _, name := range names {
		if _, ok := w.reg.Lookup(name); !ok {
			t.Errorf("%s is not served", name)
		}
	}
	tooltest.Check(t, w.reg, &tooltest.Options{RequirePrivacy: true})
}

func TestEditionSelectsTools(t *testing.T) {
	w, err := wire(wireOptions{logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	_, hasSite := w.reg.Lookup("microdefend_scan_website")
	if edition == "lean" && hasSite {
		t.Error("the lean edition serves a tool that sends traffic")
	}
	if edition == "full" && !hasSite {
		t.Error("the full edition lacks the website scan")
	}
}
