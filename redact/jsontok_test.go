package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tokenize runs the tokenizer and returns its strings, decoded, with
// invalid UTF-8 replaced rune by rune as encoding/json decodes it.
func tokenize(doc []byte) ([]string, error) {
	tz := &tokenizer{src: doc, maxStrings: 1 << 30}
	if err := tz.run(); err != nil {
		return nil, err
	}
	out := make([]string, len(tz.toks))
	for i := range tz.toks {
		out[i] = string([]rune(string(tz.value(&tz.toks[i]))))
	}
	return out, nil
}

// checkTokenizer compares the tokenizer with encoding/json on doc: the
// same verdict, and on valid JSON the same strings in the same order.
func checkTokenizer(t *testing.T, doc []byte) {
	t.Helper()
	got, err := tokenize(doc)
	valid := json.Valid(doc)
	if (err == nil) != valid {
		if err == errTooDeep {
			return // deeper than maxDepth: refused on purpose
		}
		t.Fatalf("tokenizer says %v, json.Valid says %v, on %q", err, valid, doc)
	}
	if !valid {
		return
	}
	want, err := jsonStrings(doc)
	if err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if len(want) == 0 {
		want = nil
	}
	if len(got) == 0 {
		got = nil
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("strings of %q (-encoding/json +tokenizer):\n%s", doc, diff)
	}
}

var tokenizerSeeds = []string{
	`{}`, `[]`, `""`, `"x"`, `0`, `-0.5e+10`, `true`, `null`, ` { "a" : [ 1 , "b" , { } ] } `,
	`{"a":"b","c":{"d":["e","f",{"g":null}]},"h":-1.25E-3}`,
	`"esc \" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u20ac \ud83d\ude00 \ud800 \udc00x \ud800\u0041"`,
	`"\u0022\u005c\u005C"`,
	"\"raw \xff\xfe bytes\"",
	"\"ünïcödé \u2028\"",
	`{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `{,}`, `[1 2]`, `01`, `1.`, `.5`, `1e`, `-`, `+1`, `tru`, `nul`,
	`"unterminated`, `"bad \x escape"`, "\"ctl \x01\"", `{"a":1}}`, `[[]`, `{} {}`, ``, ` `,
	`{"a":"\u12"}`, `"\u00zz"`, `[` + strings.Repeat(`"abcdefgh",`, 20) + `"x"]`,
	`"0123456789abcdef0123456789abcdef\"0123456789abcdef"`,
}

func TestTokenizerMatchesEncodingJSON(t *testing.T) {
	for _, s := range tokenizerSeeds {
		checkTokenizer(t, []byte(s))
	}
	// Nesting: up to maxDepth is read; deeper is refused.
	deep := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if _, err := tokenize([]byte(deep)); err != nil {
		t.Errorf("depth %d: %v", maxDepth, err)
	}
	if _, err := tokenize([]byte("[" + deep + "]")); err != errTooDeep {
		t.Errorf("depth %d: %v", maxDepth+1, err)
	}
}

func TestTokenizerFlags(t *testing.T) {
	tz := &tokenizer{src: []byte(`{"a":"x","b":["y"],"c":{"d":"z\"q"},"e":1}`), maxStrings: 100}
	if err := tz.run(); err != nil {
		t.Fatal(err)
	}
	type tok struct {
		Val   string
		Flags uint8
		Obj   int32
	}
	var got []tok
	for i := range tz.toks {
		k := &tz.toks[i]
		obj := int32(-1)
		if k.flags&fName != 0 {
			obj = k.obj
		}
		got = append(got, tok{string(tz.value(k)), k.flags, obj})
	}
	want := []tok{
		{"a", fName, 0}, {"x", fMember, -1},
		{"b", fName, 0}, {"y", 0, -1},
		{"c", fName, 0}, {"d", fName, 1}, {`z"q`, fMember | fArena | fComplex, -1},
		{"e", fName, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
}

func TestPlain8(t *testing.T) {
	for c := range 256 {
		b := []byte("abcdefgh")
		for pos := range 8 {
			b2 := append([]byte(nil), b...)
			b2[pos] = byte(c)
			x := uint64(0)
			for i := 7; i >= 0; i-- {
				x = x<<8 | uint64(b2[i])
			}
			want := c >= 0x20 && c != '"' && c != '\\'
			if plain8(x) != want {
				t.Fatalf("plain8 with %#x at %d = %v", c, pos, !want)
			}
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range tokenizerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkTokenizer(t, doc)
	})
}

// appendJSONString writes what encoding/json writes.
func TestAppendJSONStringIsMarshal(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\s`, "\x00\x01\b\f\n\r\t\x1f\x7f", "<a href='x'>&amp;</a>", "\u2028\u2029",
		"ünïcödé 😀", "bad \xff\xfe utf8 \xc3", "[REDACTED:github_personal_access_token]", "host-3f9a1c2b7d00.invalid"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("appendJSONString(%q) = %s; want %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add("a\"<\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("appendJSONString(%q) = %s; want %s", s, got, want)
		}
	})
}
