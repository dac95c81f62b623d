package cli

import (
	"bytes"
	"context"
	"encoding/json"
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
