package toolset

import (
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/viewstore"
)

// A view handle comes from the client: opening one never panics, and
// only a handle this key sealed opens.
func FuzzViewHandle(f *testing.F) {
	h, err := newHandles(make([]byte, 32))
	if err != nil {
		f.Fatal(err)
	}
	v := viewstore.View{ID: strings.Repeat("ab", 16), Caller: strings.Repeat("cd", 16), SHA256: strings.Repeat("ef", 32),
		Options: []byte(`{"load":{}}`), Opened: time.Unix(1700000000, 0)}
	good, err := h.seal(v)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(handlePrefix)
	f.Add("bv1_" + strings.Repeat("A", 200))
	f.Add("main")
	f.Fuzz(func(t *testing.T, s string) {
		hd, err := h.open(s)
		if err != nil {
			return
		}
		if s != good {
			t.Fatalf("a handle this test never sealed opened: %q", s)
		}
		if !hd.matches(v) {
			t.Fatal("the sealed view does not match its handle")
		}
	})
}

// data_base64 and blob references come from the client: decoding never
// panics and never yields more than the cap.
func FuzzSourceArgs(f *testing.F) {
	for _, s := range []string{"", "AAAA", "AAA=", "-_-_", "not base64", "sha256:" + strings.Repeat("0", 64), "sha256:" + strings.Repeat("G", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := decodeData(s); err == nil && (len(b) == 0 || len(b) > MaxDataBytes) {
			t.Fatalf("decoded %d bytes", len(b))
		}
		if sha, ok := parseBlobRef(s); ok && len(sha) != 64 {
			t.Fatalf("blob reference %q", sha)
		}
	})
}
