package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/privacy"
	"github.com/warden-mcp/warden/tool"
)

const byteToken = "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"

// binaryWith is a few bytes of machine code and text around a token.
func binaryWith(tok string) []byte {
	b := []byte("\x7fELF\x02\x01\x01\x00\x48\x8b\x05\x00\x00\x00\x00config/settings.json\x00\x00")
	b = append(b, tok...)
	return append(b, "\x00\x00Usage: tool [options]\x00\x31\xc0\xc3"...)
}

func utf16le(s string) []byte {
	var b []byte
	for _, c := range []byte(s) {
		b = append(b, c, 0)
	}
	return b
}

// decodePieces decodes a rendering around its markers, a NUL for each.
func decodePieces(t *testing.T, s string, b64 bool) []byte {
	t.Helper()
	var out []byte
	for _, piece := range strings.Split(markerRE(s), "\x00") {
		var b []byte
		var err error
		if b64 {
			b, err = base64.StdEncoding.DecodeString(piece)
		} else {
			b, err = hex.DecodeString(strings.NewReplacer(" ", "", ":", "").Replace(piece))
		}
		if err != nil {
			t.Fatalf("piece %q of %q does not decode: %v", piece, s, err)
		}
		out = append(append(out, b...), 0)
	}
	return out[:len(out)-1]
}

// markerRE replaces every marker of s by a NUL.
func markerRE(s string) string {
	var sb strings.Builder
	for {
		i := strings.Index(s, "[REDACTED:")
		if i < 0 {
			return sb.String() + s
		}
		j := strings.IndexByte(s[i:], ']')
		sb.WriteString(s[:i])
		sb.WriteByte(0)
		s = s[i+j+1:]
	}
}

// A field of kind bytes loses the bytes of a credential however the bytes
// are rendered and wherever the credential starts; what is around it
// survives and still decodes; off and a value without one change nothing.
func TestFieldBytes(t *testing.T) {
	bal, off := newTest(t, Balanced), newTest(t, Off)
	bin := binaryWith(byteToken)
	wide := append([]byte("\x00\x01\x02"), utf16le("key="+byteToken+" end")...)
	for _, c := range []struct {
		name, value string
		b64         bool
	}{
		{"hex", hex.EncodeToString(bin), false},
		{"HEX", strings.ToUpper(hex.EncodeToString(bin)), false},
		{"spaced", spaced(hex.EncodeToString(bin), " "), false},
		{"colons", spaced(hex.EncodeToString(bin), ":"), false},
		{"base64", base64.StdEncoding.EncodeToString(bin), true},
		{"base64+1", base64.StdEncoding.EncodeToString(bin[1:]), true},
		{"base64+2", base64.StdEncoding.EncodeToString(bin[2:]), true},
		{"utf16", hex.EncodeToString(wide), false},
	} {
		got := bal.Field(privacy.Bytes, "data", c.value)
		if !strings.Contains(got, "[REDACTED:github_personal_access_token]") {
			t.Errorf("%s: no marker in %q", c.name, got)
			continue
		}
		dec := decodePieces(t, got, c.b64)
		if strings.Contains(string(dec), "wWPw5k4a") || strings.Contains(string(dec), "6LO0pINUx") ||
			strings.Contains(string(dec), string(utf16le("wWPw5k4a"))) {
			t.Errorf("%s: token bytes left: %q", c.name, dec)
		}
		if c.name != "utf16" && (!strings.Contains(string(dec), "config/settings.jso") || !strings.Contains(string(dec), "sage: tool [options]")) {
			t.Errorf("%s: the bytes around the token went: %q", c.name, dec)
		}
		if bal.Field(privacy.Bytes, "data", got) != got {
			t.Errorf("%s: not idempotent", c.name)
		}
		if off.Field(privacy.Bytes, "data", c.value) != c.value {
			t.Errorf("%s: off changed the value", c.name)
		}
	}
	for _, keep := range []string{
		hex.EncodeToString(binaryWith("not a token at all")),
		base64.StdEncoding.EncodeToString(binaryWith("version 1.2.3")),
		"48 8b 05 00 00 00 00", "", "not a rendering", "[REDACTED:secret]",
	} {
		if got := bal.Field(privacy.Bytes, "data", keep); got != keep {
			t.Errorf("Field(bytes, %q) = %q; want it unchanged", keep, got)
		}
	}
}

func spaced(h, sep string) string {
	var parts []string
	for i := 0; i < len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, sep)
}

// Bytes that end inside a credential after its prefix lose the tail from
// the prefix on: a window cut there shows no start of a token. A tail
// without a prefix is text like any other.
func TestFieldBytesPartialTail(t *testing.T) {
	bal := newTest(t, Balanced)
	for _, c := range []struct {
		bytes string
		cut   bool
	}{
		{"\x00\x00ghp_wWPw5k4aXc", true},
		{"settings\x00AKIAZ3MSJV4", true},
		{"\x00\x00xoxb-1234", true},
		{"\x00\x00ghp_", false}, // the prefix alone holds nothing
		{"Usage: tool [options]", false},
		{"\x00runtime.gcBgMarkWorker", false},
		{"\x00\x00wWPw5k4aXcaT4fNP", false}, // a tail: the reader's own context must cover it
	} {
		v := hex.EncodeToString([]byte(c.bytes))
		got := bal.Field(privacy.Bytes, "data", v)
		if cut := strings.HasSuffix(got, PartialMarker); cut != c.cut {
			t.Errorf("%q: %q", c.bytes, got)
		}
	}
}

// Bytes reports the credential's byte range in bytes that are not text,
// and HexWithout and Base64Without render around it.
func TestBytesSpans(t *testing.T) {
	bal := newTest(t, Balanced)
	bin := binaryWith(byteToken)
	at := strings.Index(string(bin), byteToken)
	spans := bal.Bytes(bin)
	if len(spans) != 1 || spans[0].Start != at || spans[0].End != at+len(byteToken) || spans[0].Type != "github_personal_access_token" {
		t.Fatalf("Bytes = %+v; want [%d, %d)", spans, at, at+len(byteToken))
	}
	h := HexWithout(bin, spans)
	if want := hex.EncodeToString(bin[:at]) + "[REDACTED:github_personal_access_token]" + hex.EncodeToString(bin[at+len(byteToken):]); h != want {
		t.Errorf("HexWithout = %q", h)
	}
	b64 := Base64Without(bin, spans)
	dec := decodePieces(t, b64, true)
	if strings.Contains(string(dec), "wWPw") || !strings.HasPrefix(string(dec), string(bin[:at/3*3])) {
		t.Errorf("Base64Without = %q (%q)", b64, dec)
	}
	if newTest(t, Off).Bytes(bin) != nil || HexWithout(bin, nil) != hex.EncodeToString(bin) ||
		Base64Without(bin, nil) != base64.StdEncoding.EncodeToString(bin) {
		t.Error("no spans must render as encoding/hex and encoding/base64 do")
	}
}

// The result pass decodes hex and base64 in any string of any tool's
// result, typed or not, so a third party's tool that renders bytes is
// covered too; a digest, an ID or a base64 blob without a credential is
// left alone.
func TestResultDecodesBytes(t *testing.T) {
	bal := newTest(t, Balanced)
	bin := binaryWith(byteToken)
	h := hex.EncodeToString(bin)
	b := base64.StdEncoding.EncodeToString(append([]byte{0xff, 0xfe, 0x00, 0x01}, bin...))
	structured, _ := json.Marshal(map[string]any{"dump": h, "raw": b, "sha256": strings.Repeat("9f86d081884c7d65", 4),
		"blob": base64.StdEncoding.EncodeToString(binaryWith("nothing here"))})
	res := &tool.Result{Content: []tool.Content{tool.Text("read: " + h + "\n"), tool.Text(string(structured))}, Structured: structured}
	out, err := bal.Result(res)
	if err != nil {
		t.Fatal(err)
	}
	all := out.Content[0].Text + out.Content[1].Text + string(out.Structured)
	for _, leak := range []string{hex.EncodeToString([]byte("wWPw5k4a")), "wWPw5k4a"} {
		if strings.Contains(all, leak) {
			t.Errorf("%q left in %s", leak, all)
		}
	}
	var m map[string]string
	if err := json.Unmarshal(out.Structured, &m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m["dump"], "[REDACTED:github_personal_access_token]") || !strings.Contains(m["raw"], "[REDACTED:github_personal_access_token]") ||
		!strings.Contains(out.Content[0].Text, "[REDACTED:github_personal_access_token]") {
		t.Errorf("no markers: %s", all)
	}
	if m["sha256"] != strings.Repeat("9f86d081884c7d65", 4) || m["blob"] != base64.StdEncoding.EncodeToString(binaryWith("nothing here")) {
		t.Errorf("what holds no credential changed: %v", m)
	}
	if red, spans := bal.Text("0x" + h); strings.Contains(red, "77575077") || len(spans) == 0 {
		t.Errorf("Text: %q %v", red, spans)
	}
}
