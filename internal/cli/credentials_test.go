package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestCredentialsEndToEnd: an API key created with warden credentials
// serves requests, shows in the list without its key, and is refused once
// revoked (here at once, by a server started after the revocation).
func TestCredentialsEndToEnd(t *testing.T) {
	state := t.TempDir()
	run := func(args ...string) (string, int) {
		var out bytes.Buffer
		code := Run(context.Background(), append([]string{"credentials"}, append(args, "--state-dir", state)...), nil, &out, io.Discard)
		return out.String(), code
	}
	out, code := run("create", "--tenant", "acme", "--entitle", "keysweep", "--label", "ci", "--json")
	if code != 0 {
		t.Fatalf("create: exit %d %s", code, out)
	}
	var created struct{ ID, Key, Tenant, Status string }
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.ID == "" || !strings.HasPrefix(created.Key, "wdn_") || created.Tenant != "acme" {
		t.Fatalf("create printed %q (%v)", out, err)
	}
	if out, code := run("create", "--json"); code == 0 {
		t.Errorf("create without --tenant succeeded: %s", out)
	}

	url, _, stop := startServe(t, "--state-dir", state)
	resp, body := post(t, url, created.Key, "tools/call", `"name":"keysweep_scan_text","arguments":{"text":"nothing"},`)
	if resp.StatusCode != 200 || !strings.Contains(body, `\"status\":\"completed\"`) {
		t.Errorf("call with the API key: %d %.300s", resp.StatusCode, body)
	}
	_, body = post(t, url, created.Key, "tools/list", "")
	if strings.Contains(body, "microdefend") {
		t.Errorf("the key lists tools beyond its entitlements: %.300s", body)
	}
	stop()

	out, _ = run("list", "--json")
	if !strings.Contains(out, created.ID) || strings.Contains(out, created.Key) || strings.Contains(out, `"key"`) {
		t.Errorf("list: %s", out)
	}
	if out, code := run("revoke", created.ID); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %d %s", code, out)
	}
	if _, code := run("revoke", "0000000000000000"); code == 0 {
		t.Error("revoking an unknown id succeeded")
	}
	url, _, stop = startServe(t, "--state-dir", state)
	defer stop()
	resp, body = post(t, url, created.Key, "tools/list", "")
	if resp.StatusCode != 401 || !strings.Contains(body, "credential_binding_failed") {
		t.Errorf("revoked key: %d %s", resp.StatusCode, body)
	}
}
