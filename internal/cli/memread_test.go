package cli

import (
	"strings"
	"testing"

	"github.com/warden-mcp/warden/auth"
)

// TestMemoryReadSwitchGovernsRawBytes: raw reads of a file's bytes in
// every tool follow whether bininspect_memory_read may run for the
// caller: turned off in tools.disable, or not among the caller's
// entitlements, memory reads in address expressions are refused and
// address_info's preview is withheld.
func TestMemoryReadSwitchGovernsRawBytes(t *testing.T) {
	narrow := auth.Principal{Subject: "nina", Credential: "cred-nina-1", Tenant: "acme",
		Entitlements: []string{"bininspect_open", "bininspect_eval", "bininspect_address_info"}}
	for _, c := range []struct {
		name    string
		disable []string
		p       auth.Principal
		reads   bool
	}{
		{"on", nil, alice, true},
		{"disabled", []string{"bininspect_memory_read"}, alice, false},
		{"not entitled", nil, narrow, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cfg Config
			cfg.Tools.Disable = c.disable
			call, _ := nativeServer(t, cfg)
			if r := parseToolReply(t, call(c.p, "bininspect_open", `{"data_base64":"`+snippet+`","format":"raw","arch":"arm64","base":"0x1000"}`)); r.code != "" {
				t.Fatalf("open: %s", r.raw)
			}
			eval := parseToolReply(t, call(c.p, "bininspect_eval", `{"expression":"[0x1000].d"}`))
			info := parseToolReply(t, call(c.p, "bininspect_address_info", `{"address":"0x1000","preview":4}`))
			if c.reads {
				if eval.str("hex") != "0xd503201f" || info.str("preview") != "1f2003d5" {
					t.Errorf("reads allowed: eval %s\naddress_info %s", eval.raw, info.raw)
				}
				return
			}
			if eval.code == "" || !strings.Contains(eval.msg, "memory reads ([...]) are turned off") {
				t.Errorf("eval read memory: %s", eval.raw)
			}
			if info.code != "" || info.str("preview") != "" || !strings.Contains(info.raw, "bytes_withheld") {
				t.Errorf("address_info showed bytes: %s", info.raw)
			}
		})
	}
}
