package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTokenRefusesBadTTLAndEntitlements(t *testing.T) {
	state := t.TempDir()
	for _, c := range []struct {
		args []string
		want string // in stderr; "" means success
	}{
		{[]string{"--ttl", "0"}, "--ttl 0s: a token lives more than 0s and at most 24h0m0s"},
		{[]string{"--ttl", "-5m"}, "--ttl -5m0s"},
		{[]string{"--ttl", "25h"}, "at most 24h0m0s"},
		{[]string{"--entitle", "keysweeep"}, `--entitle "keysweeep" names no tool this build serves; name a tool (`},
		{[]string{"--entitle", "keysweep", "--entitle", "nope_*"}, `--entitle "nope_*"`},
		{[]string{"--entitle", ""}, "--entitle: a token without entitlements can call nothing"},
		{[]string{"--ttl", "30m", "--entitle", "keysweep"}, ""},
		{[]string{"--entitle", "keysweep_*"}, ""},
		{[]string{"--entitle", "keysweep_scan_text"}, ""},
		{[]string{"--entitle", "*"}, ""},
	} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), append([]string{"token", "--state-dir", state, "--json"}, c.args...), nil, &out, &errb)
		if c.want == "" {
			if code != 0 {
				t.Errorf("%v: exit %d: %s", c.args, code, errb.String())
			}
			continue
		}
		if code != ExitError || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errb.String(), ExitError, c.want)
		}
		if out.Len() != 0 {
			t.Errorf("%v: a refused token was printed: %s", c.args, out.String())
		}
	}
}

func TestTokenTTLIsHonoured(t *testing.T) {
	var out bytes.Buffer
	if code := Run(context.Background(), []string{"token", "--state-dir", t.TempDir(), "--ttl", "30m", "--json"}, nil, &out, &bytes.Buffer{}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var v struct {
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if d := time.Until(v.ExpiresAt); d < 28*time.Minute || d > 31*time.Minute {
		t.Errorf("expires in %v, want about 30m", d)
	}
}

// Two servers sharing a state directory on different ports each leave
// their own development token, named by port: the second to start does
// not replace the first one's with a token the first refuses.
func TestServeTokenFilePerListener(t *testing.T) {
	state := t.TempDir()
	url1, tok1, stop1 := startServe(t, "--state-dir", state)
	defer stop1()
	url2, tok2, stop2 := startServe(t, "--state-dir", state)
	defer stop2()
	for _, c := range []struct{ url, token string }{{url1, tok1}, {url2, tok2}} {
		port := strings.TrimSuffix(c.url[strings.LastIndex(c.url, ":")+1:], "/mcp")
		b, err := os.ReadFile(filepath.Join(state, "dev-token-"+port))
		if err != nil {
			t.Fatalf("the server on %s left no token file: %v", c.url, err)
		}
		if got := strings.TrimSpace(string(b)); got != c.token {
			t.Errorf("dev-token-%s holds another server's token", port)
		}
		if resp, _ := post(t, c.url, strings.TrimSpace(string(b)), "tools/list", ""); resp.StatusCode != 200 {
			t.Errorf("the token file of %s is refused by it: %d", c.url, resp.StatusCode)
		}
	}
	if _, err := os.Stat(filepath.Join(state, "dev-token")); err == nil {
		t.Error("a shared dev-token file was written")
	}
}

// warden token mints for the listener it is told about (--port, --listen
// or the configuration), and says so when it was told about none while
// the state directory shows servers on other ports.
func TestTokenNamesItsListener(t *testing.T) {
	state := t.TempDir()
	cfgPath := filepath.Join(t.TempDir(), "warden.yaml")
	if err := os.WriteFile(cfgPath, []byte("listen: 127.0.0.1:9100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	audience := func(args ...string) (aud, stderr string, code int) {
		var out, errb bytes.Buffer
		code = Run(context.Background(), append([]string{"token", "--state-dir", state, "--json"}, args...), nil, &out, &errb)
		var v struct {
			Audience string `json:"audience"`
		}
		_ = json.Unmarshal(out.Bytes(), &v)
		return v.Audience, errb.String(), code
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "http://127.0.0.1:8787/mcp"},
		{[]string{"--port", "9000"}, "http://127.0.0.1:9000/mcp"},
		{[]string{"--listen", "127.0.0.1:9001"}, "http://127.0.0.1:9001/mcp"},
		{[]string{"--config", cfgPath}, "http://127.0.0.1:9100/mcp"},
		{[]string{"--config", cfgPath, "--port", "9002"}, "http://127.0.0.1:9002/mcp"},
	} {
		if got, stderr, code := audience(c.args...); code != 0 || got != c.want {
			t.Errorf("%v: audience %q (exit %d, %s), want %q", c.args, got, code, stderr, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--port", "9000", "--listen", "127.0.0.1:9000"}, "--listen and --port both name the server"},
		{[]string{"--port", "70000"}, "--port 70000: want a port from 1 to 65535"},
	} {
		if _, stderr, code := audience(c.args...); code != ExitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, stderr, c.want)
		}
	}

	// A server on port 9000 left its token here: a token for the default
	// listener says which flag reaches that server.
	if err := os.WriteFile(filepath.Join(state, "dev-token-9000"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := audience()
	if code != 0 || !strings.Contains(stderr, "this token is for http://127.0.0.1:8787/mcp; this state directory also has development tokens of servers on port 9000: for one of them, pass --port 9000") {
		t.Errorf("no note of the other server (exit %d): %q", code, stderr)
	}
	if _, stderr, _ = audience("--port", "9000"); stderr != "" {
		t.Errorf("a named listener got a note: %q", stderr)
	}
}

func TestPruneTokenFiles(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	write := func(name string, age time.Duration) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keep := write("dev-token-8787", 30*time.Hour)
	old := write("dev-token-40123", 13*time.Hour)
	fresh := write("dev-token-40124", time.Hour)
	other := write("dev-token-notes", 30*time.Hour)
	pruneTokenFiles(dir, keep, 12*time.Hour, now)
	for p, want := range map[string]bool{keep: true, old: false, fresh: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
	if got := tokenFilePorts(dir); !slices.Equal(got, []int{8787, 40124}) {
		t.Errorf("ports %v", got)
	}
}
