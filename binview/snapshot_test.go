package binview

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/errcode"
)

// A snapshot round-trips exactly, and a View built from it answers as
// the one built in process.
func TestSnapshotRoundTrip(t *testing.T) {
	for _, p := range []string{
		"/lib/x86_64-linux-gnu/libc.so.6",
		goFixture(t, "go-linux-amd64-stripped", "linux", "amd64", "-s -w"),
		goFixture(t, "go-windows-amd64-stripped", "windows", "amd64", "-s -w"),
	} {
		data := readFile(t, p)
		a, err := Analyze(context.Background(), data, nil)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := a.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		b, err := UnmarshalAnalysis(enc)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(a, b); d != "" {
			t.Errorf("round trip (-want +got):\n%s", d)
		}
		enc2, _ := b.MarshalBinary()
		if !bytes.Equal(enc, enc2) {
			t.Error("encoding is not stable")
		}
		v1, _ := New(p, data, a, nil)
		v2, err := New(p, data, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(v1.Triage(), v2.Triage()); d != "" {
			t.Errorf("triage differs:\n%s", d)
		}
		if _, err := New(p, data[:len(data)-1], b, nil); errcode.CodeOf(err) != CodeInvalidSnapshot {
			t.Errorf("New with other bytes: %v", err)
		}
	}
}

func TestSnapshotRejects(t *testing.T) {
	data := []byte("0123456789abcdef")
	a, err := Analyze(context.Background(), data, &Options{Format: FormatRaw, Arch: ArchX86})
	if err != nil {
		t.Fatal(err)
	}
	good, _ := a.MarshalBinary()
	mutate := func(f func(*Analysis)) []byte {
		c, _ := UnmarshalAnalysis(good)
		f(c)
		b, _ := c.MarshalBinary()
		return b
	}
	cases := map[string][]byte{
		"empty":          nil,
		"no header":      []byte("{}"),
		"other version":  []byte(strings.Replace(string(good), fmt.Sprintf("snapshot/%d\n", EngineVersion), "snapshot/999\n", 1)),
		"unknown field":  []byte(strings.Replace(string(good), fmt.Sprintf(`"version":%d`, EngineVersion), fmt.Sprintf(`"version":%d,"extra":true`, EngineVersion), 1)),
		"trailing":       append(append([]byte{}, good...), []byte("{}")...),
		"segment beyond": mutate(func(c *Analysis) { c.Segments[0].FileSize = 1 << 40 }),
		"negative off":   mutate(func(c *Analysis) { c.Sections[0].Offset = -1 }),
		"wrapping":       mutate(func(c *Analysis) { c.Segments[0].Addr = ^uint64(0) }),
		"bad entropy":    mutate(func(c *Analysis) { c.Sections[0].Entropy = 9 }),
		"bits":           mutate(func(c *Analysis) { c.Bits = 7 }),
	}
	for name, b := range cases {
		if _, err := UnmarshalAnalysis(b); errcode.CodeOf(err) != CodeInvalidSnapshot {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ReadAnalysis(bytes.NewReader(good), int64(len(good)-1)); errcode.CodeOf(err) != CodeInvalidSnapshot {
		t.Errorf("over the read cap: %v", err)
	}
	if _, err := ReadAnalysis(bytes.NewReader(good), 0); err != nil {
		t.Errorf("ReadAnalysis: %v", err)
	}
}

func TestCacheKey(t *testing.T) {
	var nilOpts *Options
	if nilOpts.CacheKey() != (&Options{}).CacheKey() {
		t.Error("nil and zero options differ")
	}
	if (&Options{}).CacheKey() != (&Options{MaxSymbols: DefaultMaxSymbols, Timeout: 1}).CacheKey() {
		t.Error("defaults or a time limit change the key")
	}
	if (&Options{}).CacheKey() == (&Options{MaxSymbols: 5}).CacheKey() {
		t.Error("a list limit does not change the key")
	}
	if (&Options{Arch: ArchARM64}).CacheKey() != (&Options{}).CacheKey() {
		t.Error("an arch option without a raw format changes the key")
	}
}
