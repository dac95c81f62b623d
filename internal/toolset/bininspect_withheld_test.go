package toolset

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/redact"
)

// TestBytesFollowMemoryRead: where bininspect_memory_read is off for the
// caller, the other tools do not hand out the same bytes: memory reads in
// address expressions are refused, and the byte preview of address_info
// and the matched bytes of search_bytes are withheld with a warning. What
// needs no bytes still answers.
func TestBytesFollowMemoryRead(t *testing.T) {
	for _, allowed := range []bool{true, false} {
		b := newViews(t, BinaryOptions{MemoryRead: func(context.Context) bool { return allowed }})
		s := newServer(t, b)
		ctx := as(alice)
		s.must(ctx, "bininspect_open", `{"data_base64":"`+rawARM(1)+`","format":"raw","arch":"arm64","base":"0x1000"}`)

		eval := s.call(ctx, "bininspect_eval", `{"expression":"[0x1000].d"}`)
		info := s.call(ctx, "bininspect_address_info", `{"address":"0x1000","preview":8}`)
		search := s.call(ctx, "bininspect_search_bytes", `{"pattern":"c0 03 ?? ??"}`)
		plain := s.call(ctx, "bininspect_eval", `{"expression":"0x1000+4"}`)
		if plain.code != "" || plain.str("hex") != "0x1004" {
			t.Errorf("allowed=%v: an expression without reads: %s", allowed, plain.raw)
		}
		if allowed {
			if eval.code != "" || eval.str("hex") != "0xd503201f" {
				t.Errorf("read allowed: eval: %s", eval.raw)
			}
			if info.str("preview") != "1f2003d5c0035fd6" || info.warned(WarnBytesWithheld) {
				t.Errorf("read allowed: address_info: %s", info.raw)
			}
			if items := search.items(); len(items) != 1 || items[0]["bytes"] != "c0035fd6" {
				t.Errorf("read allowed: search_bytes: %s", search.raw)
			}
			continue
		}
		if eval.code == "" || !strings.Contains(eval.message, "memory reads ([...]) are turned off") {
			t.Errorf("read off: eval read memory: %s", eval.raw)
		}
		if info.code != "" || info.str("preview") != "" || !info.warned(WarnBytesWithheld) || info.str("perm") == "" {
			t.Errorf("read off: address_info: %s", info.raw)
		}
		if items := search.items(); len(items) != 1 || items[0]["bytes"] != "" || items[0]["address"] != "0x1004" || !search.warned(WarnBytesWithheld) {
			t.Errorf("read off: search_bytes: %s", search.raw)
		}
	}
}

// TestExpressionReadsFollowPrivacy: a memory read in an address
// expression whose bytes hold part of a credential is refused where
// BinaryOptions.Privacy is balanced, and where it is unset (balanced by
// default); a privacy mode of off reads it.
func TestExpressionReadsFollowPrivacy(t *testing.T) {
	data := append([]byte("\x00\x01\x02\x03\x04\x05\x06\x07"), "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\x00\xc3"...)
	blob := base64.StdEncoding.EncodeToString(data)
	off, err := redact.New(&redact.Options{Mode: redact.Off})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		privacy func(context.Context) *redact.Redactor
		refused bool
	}{
		{"unset", nil, true},
		{"nil redactor", func(context.Context) *redact.Redactor { return nil }, true},
		{"off", func(context.Context) *redact.Redactor { return off }, false},
	} {
		s := newServer(t, newViews(t, BinaryOptions{Privacy: c.privacy}))
		ctx := as(alice)
		s.must(ctx, "bininspect_open", `{"data_base64":"`+blob+`","format":"raw","arch":"x86-64","base":"0x1000"}`)
		secret := s.call(ctx, "bininspect_eval", `{"expression":"[0x1010].q"}`)
		beside := s.call(ctx, "bininspect_eval", `{"expression":"[0x1000].q"}`)
		if beside.code != "" || beside.str("hex") != "0x706050403020100" {
			t.Errorf("%s: a read beside the token: %s", c.name, beside.raw)
		}
		if refused := secret.code != "" && strings.Contains(secret.message, "credential"); refused != c.refused {
			t.Errorf("%s: a read of the token: %s", c.name, secret.raw)
		}
	}
}
