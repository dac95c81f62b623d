package safehttp

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/errcode"
)

// publicResolver answers every name with one public address, so that
// fuzzing explores the URL layer rather than DNS.
type publicResolver struct{}

func (publicResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
}

// FuzzValidate is seeded with every input of testdata/ssrf_corpus.txt.
// Invariants: no panic; every error is an *errcode.Error with a known code; an
// accepted target is canonical (lowercase ASCII host, port 80/443, no
// user-info), every pinned address passes Classify, and validating the
// canonical URL again gives the same target.
func FuzzValidate(f *testing.F) {
	for _, row := range loadCorpus(f) {
		f.Add(row.input)
	}
	c := New(&Options{Resolver: publicResolver{}})
	f.Fuzz(func(t *testing.T, raw string) {
		tgt, err := c.Validate(context.Background(), raw)
		if err != nil {
			code := ErrorCode(err)
			if _, known := publicMessages[code]; !known || errcode.CodeOf(err) != string(code) {
				t.Fatalf("Validate(%q): unexpected error %#v", raw, err)
			}
			return
		}
		checkTarget(t, tgt)
		if strings.ContainsAny(tgt.Host, "%@/\\?# ") {
			t.Fatalf("host %q has URL metacharacters", tgt.Host)
		}
		again, err := c.Validate(context.Background(), tgt.URL.String())
		if err != nil {
			t.Fatalf("canonical URL %q of %q refused: %v", tgt.URL, raw, err)
		}
		if again.Host != tgt.Host || again.Port != tgt.Port || again.URL.String() != tgt.URL.String() {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, tgt.URL, again.URL)
		}
	})
}

// FuzzParseIPv4 checks the WHATWG IPv4 parser against net/netip on the
// dotted-decimal forms both accept, and that whatever it accepts has a
// last label endsInNumber recognises. It is seeded with the host of every
// corpus row as well as the notations below.
func FuzzParseIPv4(f *testing.F) {
	for _, row := range loadCorpus(f) {
		if u, err := url.Parse(row.input); err == nil && u.Hostname() != "" {
			f.Add(u.Hostname())
		}
	}
	for _, s := range []string{"127.0.0.1", "127.1", "0x7f.1", "0177.0.0.1", "2130706433", "0x", "1.2.3.4.5", "256.0.0.1", "08.0.0.1", "0x41414141A9FEA9FE", "4294967295", "4294967296", "0.0.0.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := parseIPv4(s)
		if ok && !endsInNumber(s) {
			t.Fatalf("parseIPv4(%q) = %v but endsInNumber is false", s, a)
		}
		if ok && !a.Is4() {
			t.Fatalf("parseIPv4(%q) = %v, not IPv4", s, a)
		}
		if n, err := netip.ParseAddr(s); err == nil && n.Is4() {
			if !ok || a != n {
				t.Fatalf("parseIPv4(%q) = %v, %v; netip says %v", s, a, ok, n)
			}
		}
		if ip := net.ParseIP(s); ip != nil && ip.To4() != nil && !strings.Contains(s, ":") {
			if !ok || a != netip.AddrFrom4([4]byte(ip.To4())) {
				t.Fatalf("parseIPv4(%q) = %v, %v; net.ParseIP says %v", s, a, ok, ip)
			}
		}
	})
}

// FuzzClassify: an address Classify allows must also be allowed by the
// code.dny.dev/ssrf tables and must not be anything the standard library
// calls loopback, private, link-local, multicast or unspecified.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"8.8.8.8", "127.0.0.1", "::1", "::ffff:8.8.8.8", "64:ff9b::808:808", "2606:4700:4700::1111", "168.63.129.16"} {
		b := netip.MustParseAddr(s).As16()
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var a netip.Addr
		switch len(b) {
		case 4:
			a = netip.AddrFrom4([4]byte(b))
		case 16:
			a = netip.AddrFrom16([16]byte(b))
		default:
			return
		}
		if Classify(a).Blocked() {
			return
		}
		if err := guardian.SafeAddr(a); err != nil {
			t.Fatalf("Classify allows %v, library denies: %v", a, err)
		}
		if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
			a.IsMulticast() || a.IsUnspecified() || a.IsInterfaceLocalMulticast() || a.Is4In6() || !a.IsGlobalUnicast() {
			t.Fatalf("Classify allows %v", a)
		}
	})
}
