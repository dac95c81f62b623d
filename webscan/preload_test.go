package webscan

import (
	"strings"
	"testing"
)

func TestPreloadListBundled(t *testing.T) {
	n, source := PreloadListSize()
	if n < 50_000 {
		t.Fatalf("the bundled HSTS preload list has %d entries; scripts/refresh-hsts-preload.sh rebuilds it", n)
	}
	if !strings.Contains(source, "Chromium") {
		t.Errorf("source line %q does not name Chromium", source)
	}
	for _, c := range []struct {
		host, listed string
		sub          bool
	}{
		{"github.com", "github.com", true},
		{"API.GitHub.com.", "github.com", true}, // a parent listed with its subdomains
		{"paypal.com", "paypal.com", false},     // listed without subdomains
		{"www.paypal.com", "www.paypal.com", false},
		{"login.paypal.com", "", false}, // paypal.com does not cover it
		{"anything.dev", "dev", true},   // a preloaded top-level domain
		{"example.com", "", false},
		{"localhost", "", false},
		{"", "", false},
	} {
		got := LookupPreload(c.host)
		switch {
		case c.listed == "" && got != nil:
			t.Errorf("%q: listed as %+v, want unlisted", c.host, *got)
		case c.listed != "" && got == nil:
			t.Errorf("%q: unlisted, want %s", c.host, c.listed)
		case c.listed != "" && (got.Name != c.listed || got.IncludeSubDomains != c.sub):
			t.Errorf("%q: %+v, want %s (subdomains %v)", c.host, *got, c.listed, c.sub)
		}
	}
}

// BenchmarkPreloadLoad is the one-time cost of reading the bundled list,
// paid by a process's first website scan.
func BenchmarkPreloadLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		preloadMeta = ""
		loadPreload()
	}
}
