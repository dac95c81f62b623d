package safehttp

import (
	"fmt"
	"net/netip"
	"testing"

	"code.dny.dev/ssrf"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		addr string
		want Reason
	}{
		// IPv4 special-purpose ranges and their edges.
		{"0.0.0.0", ReasonUnspecified},
		{"0.1.2.3", ReasonThisNetwork},
		{"0.255.255.255", ReasonThisNetwork},
		{"1.0.0.0", ReasonPublic},
		{"10.0.0.1", ReasonPrivate},
		{"10.255.255.255", ReasonPrivate},
		{"11.0.0.1", ReasonPublic},
		{"100.63.255.255", ReasonPublic},
		{"100.64.0.1", ReasonShared},
		{"100.127.255.254", ReasonShared},
		{"100.128.0.1", ReasonPublic},
		{"127.0.0.1", ReasonLoopback},
		{"127.0.0.0", ReasonLoopback},
		{"127.255.255.255", ReasonLoopback},
		{"169.254.0.1", ReasonLinkLocal},
		{"169.254.169.253", ReasonLinkLocal},
		{"172.15.255.255", ReasonPublic},
		{"172.16.0.1", ReasonPrivate},
		{"172.31.255.255", ReasonPrivate},
		{"172.32.0.0", ReasonPublic},
		{"192.0.0.8", ReasonProtocol},
		{"192.0.0.170", ReasonProtocol},
		{"192.0.2.1", ReasonDocumentation},
		{"192.31.196.1", ReasonAS112},
		{"192.52.193.1", ReasonAMT},
		{"192.88.99.1", ReasonRelay6to4},
		{"192.167.255.255", ReasonPublic},
		{"192.168.1.1", ReasonPrivate},
		{"192.169.0.1", ReasonPublic},
		{"192.175.48.1", ReasonAS112},
		{"198.17.255.255", ReasonPublic},
		{"198.18.0.1", ReasonBenchmarking},
		{"198.19.255.255", ReasonBenchmarking},
		{"198.20.0.1", ReasonPublic},
		{"198.51.100.1", ReasonDocumentation},
		{"203.0.113.1", ReasonDocumentation},
		{"223.255.255.255", ReasonPublic},
		{"224.0.0.1", ReasonMulticast},
		{"239.255.255.250", ReasonMulticast},
		{"240.0.0.1", ReasonReserved},
		{"254.255.255.255", ReasonReserved},
		{"255.255.255.255", ReasonBroadcast},
		{"1.1.1.1", ReasonPublic},
		{"8.8.8.8", ReasonPublic},
		{"93.184.215.14", ReasonPublic},
		// Cloud metadata.
		{"169.254.169.254", ReasonMetadata},
		{"169.254.170.2", ReasonMetadata},
		{"fd00:ec2::254", ReasonMetadata},
		{"100.100.100.200", ReasonMetadata},
		{"168.63.129.16", ReasonMetadata},
		{"168.63.129.17", ReasonPublic},
		{"192.0.0.192", ReasonMetadata},
		// IPv6.
		{"::", ReasonUnspecified},
		{"::1", ReasonLoopback},
		{"::ffff:127.0.0.1", ReasonIPv4Mapped},
		{"::ffff:8.8.8.8", ReasonIPv4Mapped},
		{"::ffff:169.254.169.254", ReasonIPv4Mapped},
		{"::127.0.0.1", ReasonIPv4Compat},
		{"::8.8.8.8", ReasonIPv4Compat},
		{"64:ff9b::7f00:1", ReasonNAT64},
		{"64:ff9b::808:808", ReasonNAT64},
		{"64:ff9b:1::a9fe:a9fe", ReasonNAT64},
		{"100::1", ReasonDiscard},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", ReasonTeredo},
		{"2001:2::1", ReasonBenchmarking},
		{"2001:10::1", ReasonProtocol},
		{"2001:db8::1", ReasonDocumentation},
		{"2002:7f00:1::1", Reason6to4},
		{"2002:a9fe:a9fe::1", Reason6to4},
		{"2620:4f:8000::1", ReasonAS112},
		{"3fff::1", ReasonDocumentation},
		{"5f00::1", ReasonSRv6},
		{"fc00::1", ReasonPrivate},
		{"fdff:ffff::1", ReasonPrivate},
		{"fe80::1", ReasonLinkLocal},
		{"febf::1", ReasonLinkLocal},
		{"fec0::1", ReasonSiteLocal},
		{"ff02::1", ReasonMulticast},
		{"ff05::1:3", ReasonMulticast},
		{"4000::1", ReasonNotGlobal},
		{"1::1", ReasonNotGlobal},
		{"fe80::1%eth0", ReasonZone},
		{"2001:4860:4860::8888", ReasonPublic},
		{"2606:4700:4700::1111", ReasonPublic},
		{"2a00:1450:4001::1", ReasonPublic},
		{"3ffe::1", ReasonPublic},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			got := Classify(netip.MustParseAddr(tt.addr))
			if got != tt.want {
				t.Errorf("Classify(%s) = %q, want %q", tt.addr, got, tt.want)
			}
		})
	}
	if got := Classify(netip.Addr{}); got != ReasonInvalid {
		t.Errorf("Classify(zero) = %q, want %q", got, ReasonInvalid)
	}
}

// TestClassifyCoversIANATables proves that every range the IANA-generated
// tables of code.dny.dev/ssrf deny is also refused by Classify, at its first,
// last and middle address, so a future table update cannot silently widen
// what we allow.
func TestClassifyCoversIANATables(t *testing.T) {
	prefixes := append([]netip.Prefix{}, ssrf.IPv4DeniedPrefixes...)
	prefixes = append(prefixes, ssrf.IPv6DeniedPrefixes...)
	for _, p := range prefixes {
		first := p.Masked().Addr()
		for _, a := range []netip.Addr{first, lastAddr(p), first.Next()} {
			if r := Classify(a); !r.Blocked() {
				t.Errorf("Classify(%s) in %s = %q, want blocked", a, p, r)
			}
		}
	}
}

// TestClassifyAgreesWithGuardian checks that Classify never allows what the
// library denies, over a sweep of addresses.
func TestClassifyAgreesWithGuardian(t *testing.T) {
	g := ssrf.New(ssrf.WithAnyPort())
	for i := 0; i < 256; i++ {
		for _, s := range []string{"%d.0.0.1", "%d.255.255.254", "192.%d.0.1", "198.%d.0.1", "100.%d.0.1"} {
			a := netip.MustParseAddr(fmt.Sprintf(s, i))
			if g.SafeAddr(a) != nil && !Classify(a).Blocked() {
				t.Errorf("library denies %s, Classify allows it", a)
			}
		}
		a6 := netip.AddrFrom16([16]byte{byte(i), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
		if g.SafeAddr(a6) != nil && !Classify(a6).Blocked() {
			t.Errorf("library denies %s, Classify allows it", a6)
		}
	}
}

func TestEmbedded(t *testing.T) {
	tests := []struct {
		addr, want string // want "" = not an embedding form
	}{
		{"::ffff:127.0.0.1", "127.0.0.1"},
		{"::127.0.0.1", "127.0.0.1"},
		{"64:ff9b::a9fe:a9fe", "169.254.169.254"},
		{"2002:7f00:1::1", "127.0.0.1"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.2.45"},
		{"2001:4860:4860::8888", ""},
		{"8.8.8.8", ""},
	}
	for _, tt := range tests {
		got, ok := Embedded(netip.MustParseAddr(tt.addr))
		if (tt.want == "") == ok || (ok && got.String() != tt.want) {
			t.Errorf("Embedded(%s) = %v, %v; want %q", tt.addr, got, ok, tt.want)
		}
	}
}

func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	bits := p.Bits()
	for i := range b {
		for j := 0; j < 8; j++ {
			if i*8+j >= bits {
				b[i] |= 1 << (7 - j)
			}
		}
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

func BenchmarkClassify(b *testing.B) {
	addrs := []netip.Addr{
		netip.MustParseAddr("93.184.215.14"),
		netip.MustParseAddr("2606:4700:4700::1111"),
		netip.MustParseAddr("127.0.0.1"),
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Classify(addrs[i%len(addrs)])
	}
}
