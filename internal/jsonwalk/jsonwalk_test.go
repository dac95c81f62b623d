package jsonwalk

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

type member struct{ key, val string }

func members(t *testing.T, b string) []member {
	t.Helper()
	var out []member
	if err := EachMember([]byte(b), func(k, v []byte) error {
		out = append(out, member{string(k), string(v)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEachMember(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []member
	}{
		{`{}`, nil},
		{` { } `, nil},
		{`{"a":1}`, []member{{`"a"`, `1`}}},
		{"{ \"a\" :\t\"x,}\" ,\n\"b\":[1,{\"c\":\"]\"}],\"a\":null}", []member{{`"a"`, `"x,}"`}, {`"b"`, `[1,{"c":"]"}]`}, {`"a"`, `null`}}},
		{`{"esc\"aped":"q\\\"","n":-1.5e+3,"t":true}`, []member{{`"esc\"aped"`, `"q\\\""`}, {`"n"`, `-1.5e+3`}, {`"t"`, `true`}}},
		{`{"deep":{"x":{"y":[[],{}]}}}`, []member{{`"deep"`, `{"x":{"y":[[],{}]}}`}}},
	} {
		if got := members(t, c.in); !slices.Equal(got, c.want) {
			t.Errorf("EachMember(%s) = %q, want %q", c.in, got, c.want)
		}
	}
	stop := errors.New("stop")
	n := 0
	err := EachMember([]byte(`{"a":1,"b":2,"c":3}`), func(k, v []byte) error {
		n++
		if string(k) == `"b"` {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("an error from fn did not stop the walk: %v after %d", err, n)
	}
}

func TestEachElement(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`[]`, nil},
		{` [ 1 , "two" ,{"3":[3]}, [ ] ,null ] `, []string{`1`, `"two"`, `{"3":[3]}`, `[ ]`, `null`}},
		{`["]","\\",","]`, []string{`"]"`, `"\\"`, `","`}},
	} {
		var got []string
		_ = EachElement([]byte(c.in), func(i int, v []byte) error {
			if i != len(got) {
				t.Errorf("%s: index %d for element %d", c.in, i, len(got))
			}
			got = append(got, string(v))
			return nil
		})
		if !slices.Equal(got, c.want) {
			t.Errorf("EachElement(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestUnquote(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`"plain"`, "plain", true},
		{`""`, "", true},
		{`"a\nb\u00e9\"\\"`, "a\nb\u00e9\"\\", true},
		{`"\ud83d\ude00"`, "\U0001F600", true},
		{"\"bad\xff\"", "bad\uFFFD", true}, // invalid UTF-8 is replaced, as encoding/json does
		{`"unterminated`, "", false},
		{`plain`, "", false},
		{`"`, "", false},
		{`"\x"`, "", false},
	} {
		got, ok := Unquote([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("Unquote(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestKindAndNull(t *testing.T) {
	for in, want := range map[string]string{``: "nothing", `"s"`: "string", `{}`: "object", `[]`: "array",
		`true`: "boolean", `false`: "boolean", `null`: "null", `-1`: "number", `0.5`: "number"} {
		if got := Kind([]byte(in)); got != want {
			t.Errorf("Kind(%q) = %q, want %q", in, got, want)
		}
	}
	if !IsNull([]byte("null")) || IsNull([]byte(" null")) || IsNull([]byte("nul")) || IsNull(nil) {
		t.Error("IsNull")
	}
}

func TestSkip(t *testing.T) {
	for _, c := range []struct {
		in   string
		from int
		want int
	}{
		{`"ab\"c" ,`, 0, 7},
		{`  123,`, 0, 5},
		{`{"a":[1,"}"]} x`, 0, 13},
		{`[[[]]]`, 1, 5},
		{`"open`, 0, 5},  // unterminated: stays in bounds
		{`{"a":[`, 0, 6}, // unterminated: stays in bounds
		{`   `, 0, 3},    // nothing but space
		{`"\`, 0, 3},     // an escape at the very end
	} {
		if got := SkipValue([]byte(c.in), c.from); got != c.want {
			t.Errorf("SkipValue(%q, %d) = %d, want %d", c.in, c.from, got, c.want)
		}
	}
}

func TestDepth(t *testing.T) {
	for _, c := range []struct {
		in          string
		limit, want int
	}{
		{`1`, 10, 0},
		{`{"a":"[[[["}`, 10, 1},
		{`[[{"a":[]}],[]]`, 10, 4},
		{strings.Repeat("[", 50) + strings.Repeat("]", 50), 10, 11}, // stops once past the limit
	} {
		if got := Depth([]byte(c.in), c.limit); got != c.want {
			t.Errorf("Depth(%q, %d) = %d, want %d", c.in, c.limit, got, c.want)
		}
	}
}

// FuzzWalk holds the walkers to encoding/json on valid JSON, and to
// staying in bounds on anything else.
func FuzzWalk(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":1,"b":[true,null,"x"],"c":{"d":"\u00e9\\\""}}`, `[1,[2,[3]],{"k":"v"}]`,
		`"str\"ing"`, `{"a":1,"a":2}`, ` { "sp" : [ ] } `, `{"a":`, `[`, `"\`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// In bounds, whatever the input.
		if i := SkipValue(b, 0); i < 0 || i > len(b)+1 {
			t.Fatalf("SkipValue out of bounds: %d of %d", i, len(b))
		}
		_ = Depth(b, 64)
		Unquote(b)
		if !json.Valid(b) {
			return
		}
		trimmed := bytes.TrimSpace(b)
		if end := SkipSpace(b, SkipValue(b, 0)); end != len(b) {
			t.Fatalf("SkipValue stopped at %d of %d in %q", end, len(b), b)
		}
		switch Kind(trimmed) {
		case "object":
			checkObject(t, trimmed)
		case "array":
			var want []json.RawMessage
			if err := json.Unmarshal(trimmed, &want); err != nil {
				t.Fatal(err)
			}
			var got [][]byte
			_ = EachElement(trimmed, func(_ int, v []byte) error { got = append(got, v); return nil })
			if len(got) != len(want) {
				t.Fatalf("%d elements, encoding/json %d, in %q", len(got), len(want), b)
			}
			for i := range got {
				if !sameJSON(got[i], want[i]) {
					t.Fatalf("element %d: %q, encoding/json %q", i, got[i], want[i])
				}
			}
		case "string":
			var want string
			_ = json.Unmarshal(trimmed, &want)
			if got, ok := Unquote(trimmed); !ok || got != want {
				t.Fatalf("Unquote(%q) = %q %v, encoding/json %q", trimmed, got, ok, want)
			}
		}
	})
}

// checkObject compares EachMember's members with encoding/json's tokens,
// in order and with repeats.
func checkObject(t *testing.T, b []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	var want []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		want = append(want, member{tok.(string), string(v)})
	}
	var got []member
	_ = EachMember(b, func(k, v []byte) error {
		key, ok := Unquote(k)
		if !ok {
			t.Fatalf("key %q does not unquote", k)
		}
		got = append(got, member{key, string(v)})
		return nil
	})
	if len(got) != len(want) {
		t.Fatalf("%d members, encoding/json %d, in %q", len(got), len(want), b)
	}
	for i := range got {
		if got[i].key != want[i].key || !sameJSON([]byte(got[i].val), []byte(want[i].val)) {
			t.Fatalf("member %d: %q, encoding/json %q", i, got[i], want[i])
		}
	}
}

func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}
