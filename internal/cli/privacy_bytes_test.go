package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// decodedPieces decodes a byte rendering that may hold markers: the hex
// or base64 between markers, concatenated with a NUL where a marker was.
func decodedPieces(t *testing.T, s string, b64 bool) []byte {
	t.Helper()
	var out []byte
	for s != "" {
		i := strings.Index(s, "[REDACTED:")
		piece := s
		if i >= 0 {
			piece = s[:i]
		}
		var b []byte
		var err error
		if b64 {
			b, err = base64.StdEncoding.DecodeString(piece)
		} else {
			b, err = hex.DecodeString(piece)
		}
		if err != nil {
			t.Fatalf("%q does not decode: %v", piece, err)
		}
		out = append(out, b...)
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			t.Fatalf("unterminated marker in %q", s)
		}
		out = append(out, 0)
		s = s[i+j+1:]
	}
	return out
}

// leaksPiece reports whether b holds any n consecutive bytes of secret.
func leaksPiece(b []byte, secret string, n int) bool {
	for i := 0; i+n <= len(secret); i++ {
		if bytes.Contains(b, []byte(secret[i:i+n])) {
			return true
		}
	}
	return false
}

// A token in a binary leaves through no byte rendering: memory_read's hex
// and base64 (wherever the token starts in the read), address_info's
// preview and search_bytes' matched bytes, in balanced and strict; off
// keeps every byte. A read window that cuts the token (its start or its
// end outside the window) returns none of the token's bytes either, so
// no sequence of small reads puts the token together again.
func TestPrivacyOnBinaryBytes(t *testing.T) {
	data := append([]byte("\x7fELF\x02\x01\x01\x00\x90\x90\x48\x8b\x05\x00\x00\x00\x00config/settings.json\x00\x00"), testToken...)
	data = append(data, "\x00\x00Usage: tool [options]\x00\x31\xc0\xc3"...)
	at := bytes.Index(data, []byte(testToken))
	end := at + len(testToken)
	for _, mode := range []string{"off", "balanced", "strict"} {
		call := wiredServer(t, mode, "", nil)
		openBlob(t, call, data)
		type read struct{ addr, n int }
		for _, r := range []read{
			{0, len(data)},       // the whole file: the token mid-read
			{at - 1, 48},         // one byte before the token
			{at, len(testToken)}, // exactly the token
			{at + 10, 20},        // inside the token: both ends cut
			{at - 8, 20},         // the token's start, cut at the end
			{end - 12, 20},       // the token's end, cut at the start
			{at + 3, 1},          // one byte of it
		} {
			args := `{"address":"` + hexAddr(r.addr) + `","length":` + strconv.Itoa(r.n) + `}`
			out := call("bininspect_memory_read", args)
			sc := structuredOf(t, out)
			hx, b64 := decodedPieces(t, sc["hex"].(string), false), decodedPieces(t, sc["base64"].(string), true)
			want := data[r.addr : r.addr+r.n]
			if mode == "off" {
				if !bytes.Equal(hx, want) || !bytes.Equal(b64, want) {
					t.Errorf("off: read %+v changed: %q %q", r, hx, b64)
				}
				continue
			}
			piece := 4
			if r.n < 8 {
				piece = 1
			}
			lo, hi := max(r.addr, at), min(r.addr+r.n, end)
			if lo < hi && hi-lo >= piece && (leaksPiece(hx, testToken[lo-at:hi-at], piece) || leaksPiece(b64, testToken[lo-at:hi-at], piece)) {
				t.Errorf("%s: read %+v returns token bytes: hex %q base64 %q", mode, r, hx, b64)
			}
			if r.addr == 0 && (!bytes.Contains(hx, []byte("config/settings.json")) || !bytes.Contains(hx, []byte("Usage: tool [options]"))) {
				t.Errorf("%s: the bytes around the token went too: %q", mode, hx)
			}
		}
		for _, p := range []int{at - 4, at + 20} {
			out := call("bininspect_address_info", `{"address":"`+hexAddr(p)+`","preview":64}`)
			pv := decodedPieces(t, structuredOf(t, out)["preview"].(string), false)
			if (mode == "off") != leaksPiece(pv, testToken, 4) {
				t.Errorf("%s: address_info preview at %#x: %q", mode, p, pv)
			}
		}
		out := call("bininspect_search_bytes", `{"text":"ghp_"}`)
		out2 := call("bininspect_search_bytes", `{"pattern":"70 5f `+strings.Repeat("?? ", 30)+`","address":"`+hexAddr(at+2)+`"}`)
		for _, o := range []string{out, out2} {
			// Balanced and strict list no match inside a token at all
			// (TestPrivacyOnSearchInsideTokens).
			items := structuredOf(t, o)["items"].([]any)
			if len(items) == 0 {
				if mode == "off" {
					t.Fatalf("%s: no match: %.400s", mode, o)
				}
				continue
			}
			b := decodedPieces(t, items[0].(map[string]any)["bytes"].(string), false)
			if (mode == "off") != leaksPiece(b, testToken, 4) {
				t.Errorf("%s: search match bytes %q", mode, b)
			}
		}
	}
}

func hexAddr(n int) string { return fmt.Sprintf("%#x", n) }

// Memory reads in address expressions return numbers, and a number
// cannot carry a marker: in balanced and strict every read whose bytes
// overlap a credential is refused (read_refused, as where reads are off),
// whatever its size and wherever it starts, so no sequence of .b, .w, .d
// or .q reads, or comparisons against them, spells a token out; reads
// beside it still answer. The check is memory_read's, so it holds in
// every tool's address parameters too. Off returns every value.
func TestPrivacyOnMemoryExpressions(t *testing.T) {
	data := append([]byte("\x7fELF\x02\x01\x01\x00\x90\x90\x48\x8b\x05\x00\x00\x00\x00config/settings.json\x00\x00"), testToken...)
	data = append(data, "\x00\x00Usage: tool [options]\x00\x31\xc0\xc3"...)
	at := bytes.Index(data, []byte(testToken))
	end := at + len(testToken)
	le := func(b []byte) uint64 {
		var v uint64
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	for _, mode := range []string{"off", "balanced", "strict"} {
		call := wiredServer(t, mode, "", nil)
		openBlob(t, call, data)
		for _, sz := range []struct {
			suffix string
			n      int
		}{{".b", 1}, {".w", 2}, {".d", 4}, {".q", 8}} {
			for a := at - 10; a+sz.n <= len(data) && a <= end+2; a++ {
				expr := "[" + hexAddr(a) + "]" + sz.suffix
				out := call("bininspect_eval", `{"expression":"`+expr+`"}`)
				overlaps := a < end && a+sz.n > at
				if mode == "off" || !overlaps {
					sc := structuredOf(t, out)
					if want := strconv.FormatUint(le(data[a:a+sz.n]), 10); sc["decimal"] != want {
						t.Errorf("%s: %s = %v, want %s", mode, expr, sc["decimal"], want)
					}
					continue
				}
				if !strings.Contains(out, `"isError":true`) || !strings.Contains(out, "credential") {
					t.Errorf("%s: %s was not refused: %.400s", mode, expr, out)
				}
				if sz.n >= 4 && (strings.Contains(out, strconv.FormatUint(le(data[a:a+sz.n]), 10)) || strings.Contains(out, fmt.Sprintf("%x", le(data[a:a+sz.n])))) {
					t.Errorf("%s: %s: the refusal carries the value: %.400s", mode, expr, out) // (a byte's value may match an address by chance)
				}
			}
		}
		// The same reads in other tools' address parameters: the value
		// read would show as the address read, described or searched from.
		for _, c := range []struct{ tool, args string }{
			{"bininspect_memory_read", `{"address":"[` + hexAddr(at+8) + `].d","length":1}`},
			{"bininspect_address_info", `{"address":"[` + hexAddr(at) + `].q","preview":0}`},
			{"bininspect_search_bytes", `{"text":"x","start":"[` + hexAddr(at+4) + `].w","length":"1"}`},
			{"bininspect_eval", `{"expression":"[` + hexAddr(at) + `].q == 0x` + fmt.Sprintf("%x", le(data[at:at+8])) + `"}`},
		} {
			out := call(c.tool, c.args)
			refused := strings.Contains(out, `"isError":true`) && strings.Contains(out, "credential")
			if refused == (mode == "off") {
				t.Errorf("%s: %s %s: %.400s", mode, c.tool, c.args, out)
			}
		}
	}
}

// A token glued to the word before it ("%zzghp_...", "tok_ghp_..."), as
// a Go binary packs its string literals, leaves through no field in
// balanced and strict: a strings listing, the string address_info finds,
// the bytes of memory_read and search_bytes, a decoded free text, the
// preview of a redaction, and a JSON member name; off keeps it.
func TestPrivacyOnGluedTokens(t *testing.T) {
	data := append([]byte("\x7fELF\x02\x01\x01\x00\x90\x90\xc3\x00\x00\x00config%zz"), testToken...)
	data = append(data, "\x00\x00tok_"...)
	data = append(data, testToken...)
	data = append(data, "_key\x00Usage: tool [options]\x00\x31\xc0\xc3"...)
	at := bytes.Index(data, []byte(testToken))
	b64 := base64.StdEncoding.EncodeToString([]byte("user=alice&abc" + testToken))
	for _, mode := range []string{"off", "balanced", "strict"} {
		call := wiredServer(t, mode, "", nil)
		openBlob(t, call, data)
		outs := map[string]string{
			"strings":        call("bininspect_strings", `{}`),
			"address_info":   call("bininspect_address_info", `{"address":"`+hexAddr(at+4)+`","preview":64}`),
			"memory_read":    call("bininspect_memory_read", `{"address":"0","length":`+strconv.Itoa(len(data))+`}`),
			"search_bytes":   call("bininspect_search_bytes", `{"pattern":"25 7a 7a `+strings.Repeat("?? ", len(testToken))+`"}`),
			"util_decode":    call("util_decode", `{"input":"`+b64+`"}`),
			"redact_preview": call("warden_redact_preview", `{"text":"{\"tok_`+testToken+`\":1}","kind":"json"}`),
		}
		for name, out := range outs {
			if strings.Contains(out, `"isError":true`) {
				t.Errorf("%s: %s failed: %.400s", mode, name, out)
				continue
			}
			var b []byte
			switch name {
			case "memory_read":
				b = decodedPieces(t, structuredOf(t, out)["hex"].(string), false)
			case "search_bytes":
				if items := structuredOf(t, out)["items"].([]any); len(items) > 0 {
					b = decodedPieces(t, items[0].(map[string]any)["bytes"].(string), false)
				} else if mode == "off" {
					t.Errorf("off: search_bytes found nothing")
				}
			}
			leaked := strings.Contains(out, testToken[8:16]) || leaksPiece(b, testToken, 8)
			if name == "redact_preview" {
				// The preview shows the input back only in off, where it
				// says nothing changes.
				leaked = strings.Contains(out, `"changed":false`)
			}
			if leaked != (mode == "off") {
				t.Errorf("%s: %s: leaked=%v: %.600s", mode, name, leaked, out)
			}
		}
	}
}

// A string's preview cut inside a token shows none of it, wherever the
// cut falls: otherwise preview_bytes one short of the token's end shows
// all of it but its last character, which the text pass cannot tell from
// other text. The same holds for the string address_info shows and
// triage's notable strings, in ASCII and UTF-16LE.
func TestPrivacyOnCutStrings(t *testing.T) {
	line := "https://api.example.com/v1?key=x " + testToken + " more text after it"
	wide := make([]byte, 0, 2*len(line))
	for _, c := range []byte(line) {
		wide = append(wide, c, 0)
	}
	data := append([]byte("\x7fELF\x02\x01\x01\x00\x90\x90\xc3\x00\x00\x00"), line...)
	data = append(append(append(data, "\x00\x00\x00\x00"...), wide...), "\x00\x00\x31\xc0\xc3"...)
	at := strings.Index(line, testToken)
	for _, mode := range []string{"off", "balanced", "strict"} {
		call := wiredServer(t, mode, "", nil)
		openBlob(t, call, data)
		var shown strings.Builder
		for n := at + 4; n <= len(line); n++ {
			shown.WriteString(call("bininspect_strings", `{"preview_bytes":`+strconv.Itoa(n)+`}`))
			shown.WriteString(call("bininspect_strings", `{"preview_bytes":`+strconv.Itoa(2*n)+`}`))
		}
		shown.WriteString(call("bininspect_address_info", `{"address":"0x20"}`))
		shown.WriteString(call("bininspect_triage", `{}`))
		out := shown.String()
		if leaked := strings.Contains(out, testToken[4:12]) || strings.Contains(out, testToken[len(testToken)-9:len(testToken)-1]); leaked != (mode == "off") {
			t.Errorf("%s: token pieces leaked=%v", mode, leaked)
		}
		if !strings.Contains(out, "more text after it") || !strings.Contains(out, "api.example.com/v1") && mode != "strict" {
			t.Errorf("%s: the text around the token went", mode)
		}
	}
}

// Disassembling a token's bytes as code hands them out as each
// instruction's bytes, and as the immediates and mnemonics decoded from
// them: in balanced and strict an instruction whose bytes hold part of a
// credential shows its marker instead, wherever the listing starts, and
// the code around it is listed as it is; off lists every instruction.
func TestPrivacyOnDisassembly(t *testing.T) {
	code := "\x55\x48\x89\xe5\x31\xc0\x5d\xc3" // push rbp; mov rbp, rsp; xor eax, eax; pop rbp; ret
	data := []byte(code + testToken + code)
	at := len(code)
	for _, mode := range []string{"off", "balanced", "strict"} {
		call := wiredServer(t, mode, "", nil)
		openBlob(t, call, data)
		for _, start := range []int{0, at, at + 5, at + 17} {
			out := call("bininspect_disassemble", `{"address":"`+hexAddr(start)+`","count":100}`)
			items := structuredOf(t, out)["items"].([]any)
			var all []byte
			for _, it := range items {
				m := it.(map[string]any)
				all = append(all, decodedPieces(t, m["bytes"].(string), false)...)
				addr, _ := strconv.ParseUint(strings.TrimPrefix(m["address"].(string), "0x"), 16, 64)
				n := len(m["bytes"].(string)) / 2
				over := int(addr) < at+len(testToken) && int(addr)+n > at
				if over && mode != "off" && !strings.Contains(m["text"].(string), "[REDACTED:") {
					t.Errorf("%s: from %#x: %v decodes token bytes: %v", mode, start, m["address"], m)
				}
			}
			if leaked := leaksPiece(all, testToken, 4); leaked != (mode == "off") {
				t.Errorf("%s: from %#x: token bytes leaked=%v: %.600s", mode, start, leaked, out)
			}
			if start == 0 && !strings.Contains(out, "push rbp") {
				t.Errorf("%s: the code before the token went: %.400s", mode, out)
			}
		}
	}
}

// Whether a pattern occurs inside a token is the token, a character at a
// time: in balanced and strict bininspect_search_bytes lists no match
// whose bytes overlap a credential (its count neither), as text, as
// bytes with wildcards or as UTF-16; matches elsewhere stand. Off finds
// them all.
func TestPrivacyOnSearchInsideTokens(t *testing.T) {
	wide := make([]byte, 0, 2*len(testToken))
	for _, c := range []byte(testToken) {
		wide = append(wide, c, 0)
	}
	data := append([]byte("\x7fELF\x02\x01\x01\x00\x90\x90\xc3\x00tok:"), testToken...)
	data = append(append(append(data, "\x00\x00"...), wide...), "\x00\x00wWPw5k4a elsewhere\x00\x31\xc0\xc3"...)
	for _, mode := range []string{"off", "balanced", "strict"} {
		call := wiredServer(t, mode, "", nil)
		openBlob(t, call, data)
		for _, c := range []struct {
			args        string
			off, hidden int // matches in off, and in balanced and strict
		}{
			{`{"text":"wWPw5k4a"}`, 2, 1},
			{`{"text":"k4aXcaT4"}`, 1, 0},
			{`{"text":"ghp_"}`, 1, 0},
			{`{"text":"INUx","utf16":true}`, 1, 0},
			{`{"pattern":"67 68 70 5f 77 ?? 50"}`, 1, 0},
			{`{"pattern":"31 c0 c3"}`, 1, 1},
		} {
			out := call("bininspect_search_bytes", c.args)
			sc := structuredOf(t, out)
			want := c.off
			if mode != "off" {
				want = c.hidden
			}
			if n := len(sc["items"].([]any)); n != want || int(sc["total"].(float64)) != want {
				t.Errorf("%s: %s: %d matches (total %v), want %d: %.400s", mode, c.args, n, sc["total"], want, out)
			}
		}
	}
}

// bininspect_strings' query is matched against what the listing would
// show: in balanced and strict a string whose only match lies inside a
// token is not listed or counted (else query ghp_w, ghp_wW... spells the
// token out); a match outside it still lists the string. Off matches the
// raw text.
func TestPrivacyOnStringsQuery(t *testing.T) {
	data := append([]byte("\x7fELF\x02\x01\x01\x00\x90\x90\xc3\x00config token "), testToken...)
	data = append(data, "\x00\x00wWPw5k4a elsewhere\x00\x31\xc0\xc3"...)
	for _, mode := range []string{"off", "balanced", "strict"} {
		call := wiredServer(t, mode, "", nil)
		openBlob(t, call, data)
		for _, c := range []struct {
			query       string
			off, hidden int
		}{
			{"wwpw5k4a", 2, 1}, {"ghp_wWPw5", 1, 0}, {"INUX", 1, 0}, {"config token", 1, 1}, {"elsewhere", 1, 1},
		} {
			out := call("bininspect_strings", `{"query":"`+c.query+`"}`)
			sc := structuredOf(t, out)
			want := c.off
			if mode != "off" {
				want = c.hidden
			}
			if n := len(sc["items"].([]any)); n != want || int(sc["total"].(float64)) != want {
				t.Errorf("%s: query %q: %d strings (total %v), want %d: %.400s", mode, c.query, n, sc["total"], want, out)
			}
		}
	}
}
