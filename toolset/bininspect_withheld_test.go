package toolset

import (
	"context"
	"strings"
	"testing"
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
