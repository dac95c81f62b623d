package safehttp

import (
	"net/netip"

	"code.dny.dev/ssrf"
)

// Reason says why an address or host name is refused. Values are stable
// snake_case identifiers meant for logs and tests; they are not shown to end
// users (the public message comes from the error [Code]).
type Reason string

// Address reasons returned by [Classify]. ReasonPublic is the only one that
// permits a connection.
const (
	ReasonPublic        Reason = "public"          // globally routable unicast: allowed
	ReasonInvalid       Reason = "invalid"         // the zero netip.Addr
	ReasonZone          Reason = "zone"            // IPv6 address carrying a zone id
	ReasonUnspecified   Reason = "unspecified"     // 0.0.0.0, ::
	ReasonThisNetwork   Reason = "this_network"    // 0.0.0.0/8
	ReasonLoopback      Reason = "loopback"        // 127.0.0.0/8, ::1
	ReasonPrivate       Reason = "private"         // RFC 1918, fc00::/7
	ReasonShared        Reason = "shared"          // 100.64.0.0/10 (CGNAT)
	ReasonLinkLocal     Reason = "link_local"      // 169.254.0.0/16, fe80::/10
	ReasonMetadata      Reason = "cloud_metadata"  // cloud instance metadata endpoints
	ReasonProtocol      Reason = "ietf_protocol"   // 192.0.0.0/24, 2001::/23
	ReasonDocumentation Reason = "documentation"   // TEST-NETs, 2001:db8::/32, 3fff::/20
	ReasonBenchmarking  Reason = "benchmarking"    // 198.18.0.0/15, 2001:2::/48
	ReasonAS112         Reason = "as112"           // AS112 anycast and direct delegation
	ReasonAMT           Reason = "amt"             // 192.52.193.0/24
	ReasonRelay6to4     Reason = "6to4_relay"      // 192.88.99.0/24
	ReasonMulticast     Reason = "multicast"       // 224.0.0.0/4, ff00::/8
	ReasonBroadcast     Reason = "broadcast"       // 255.255.255.255
	ReasonReserved      Reason = "reserved"        // 240.0.0.0/4
	ReasonIPv4Mapped    Reason = "ipv4_mapped"     // ::ffff:0:0/96
	ReasonIPv4Compat    Reason = "ipv4_compatible" // ::/96 (deprecated embedding)
	ReasonNAT64         Reason = "nat64"           // 64:ff9b::/96, 64:ff9b:1::/48
	Reason6to4          Reason = "6to4"            // 2002::/16
	ReasonTeredo        Reason = "teredo"          // 2001::/32
	ReasonDiscard       Reason = "discard"         // 100::/64
	ReasonSiteLocal     Reason = "site_local"      // fec0::/10 (deprecated)
	ReasonSRv6          Reason = "srv6"            // 5f00::/16
	ReasonNotGlobal     Reason = "not_global"      // IPv6 outside 2000::/3 not named above
	ReasonSpecial       Reason = "special_purpose" // other IANA special-purpose entries
)

// Blocked reports whether r refuses a connection.
func (r Reason) Blocked() bool { return r != ReasonPublic }

type rangeRule struct {
	prefix netip.Prefix
	reason Reason
}

// metadataAddrs are cloud instance-metadata and host-channel endpoints. Most
// already sit inside a denied range; they are named first so that logs say
// what was attempted. 168.63.129.16 (Azure WireServer) is a public address
// that the IANA tables do not cover.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, DigitalOcean, OpenStack, ...
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task credentials
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IMDS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("168.63.129.16"),   // Azure WireServer
	netip.MustParseAddr("192.0.0.192"),     // Oracle Cloud
}

// v4Rules names the IPv4 ranges. Order matters only for overlapping entries
// (the narrower one comes first). Anything the code.dny.dev/ssrf IANA tables
// deny that is not named here is still denied as ReasonSpecial.
var v4Rules = []rangeRule{
	{netip.MustParsePrefix("0.0.0.0/32"), ReasonUnspecified},
	{netip.MustParsePrefix("0.0.0.0/8"), ReasonThisNetwork},
	{netip.MustParsePrefix("10.0.0.0/8"), ReasonPrivate},
	{netip.MustParsePrefix("100.64.0.0/10"), ReasonShared},
	{netip.MustParsePrefix("127.0.0.0/8"), ReasonLoopback},
	{netip.MustParsePrefix("169.254.0.0/16"), ReasonLinkLocal},
	{netip.MustParsePrefix("172.16.0.0/12"), ReasonPrivate},
	{netip.MustParsePrefix("192.0.0.0/24"), ReasonProtocol},
	{netip.MustParsePrefix("192.0.2.0/24"), ReasonDocumentation},
	{netip.MustParsePrefix("192.31.196.0/24"), ReasonAS112},
	{netip.MustParsePrefix("192.52.193.0/24"), ReasonAMT},
	{netip.MustParsePrefix("192.88.99.0/24"), ReasonRelay6to4},
	{netip.MustParsePrefix("192.168.0.0/16"), ReasonPrivate},
	{netip.MustParsePrefix("192.175.48.0/24"), ReasonAS112},
	{netip.MustParsePrefix("198.18.0.0/15"), ReasonBenchmarking},
	{netip.MustParsePrefix("198.51.100.0/24"), ReasonDocumentation},
	{netip.MustParsePrefix("203.0.113.0/24"), ReasonDocumentation},
	{netip.MustParsePrefix("224.0.0.0/4"), ReasonMulticast},
	{netip.MustParsePrefix("255.255.255.255/32"), ReasonBroadcast},
	{netip.MustParsePrefix("240.0.0.0/4"), ReasonReserved},
}

// v6Rules names the IPv6 ranges, narrowest first where they overlap. Every
// address outside 2000::/3 is refused even when no rule names it.
var v6Rules = []rangeRule{
	{netip.MustParsePrefix("::/128"), ReasonUnspecified},
	{netip.MustParsePrefix("::1/128"), ReasonLoopback},
	{netip.MustParsePrefix("::ffff:0:0/96"), ReasonIPv4Mapped},
	{netip.MustParsePrefix("::/96"), ReasonIPv4Compat},
	{netip.MustParsePrefix("64:ff9b::/96"), ReasonNAT64},
	{netip.MustParsePrefix("64:ff9b:1::/48"), ReasonNAT64},
	{netip.MustParsePrefix("100::/64"), ReasonDiscard},
	{netip.MustParsePrefix("2001::/32"), ReasonTeredo},
	{netip.MustParsePrefix("2001:2::/48"), ReasonBenchmarking},
	{netip.MustParsePrefix("2001:db8::/32"), ReasonDocumentation},
	{netip.MustParsePrefix("2001::/23"), ReasonProtocol},
	{netip.MustParsePrefix("2002::/16"), Reason6to4},
	{netip.MustParsePrefix("2620:4f:8000::/48"), ReasonAS112},
	{netip.MustParsePrefix("3fff::/20"), ReasonDocumentation},
	{netip.MustParsePrefix("5f00::/16"), ReasonSRv6},
	{netip.MustParsePrefix("fc00::/7"), ReasonPrivate},
	{netip.MustParsePrefix("fe80::/10"), ReasonLinkLocal},
	{netip.MustParsePrefix("fec0::/10"), ReasonSiteLocal},
	{netip.MustParsePrefix("ff00::/8"), ReasonMulticast},
}

// guardian holds the IANA-generated deny tables of code.dny.dev/ssrf; it is
// consulted after the named rules so that a range it knows and we do not is
// still refused. Its port and network checks are not used here.
var nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")

var guardian = ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork())

// Classify decides whether a connection to addr may be made. It is a pure
// function: no DNS, no sockets, no configuration. IPv4-mapped IPv6 addresses
// are refused as such (callers that resolved a name call Unmap first, so a
// mapped address only arrives here when someone spelled it out). Embedded
// forms (mapped, IPv4-compatible, NAT64, 6to4, Teredo) are refused whatever
// they embed, because a gateway may forward them to the embedded address.
func Classify(addr netip.Addr) Reason {
	if !addr.IsValid() {
		return ReasonInvalid
	}
	if addr.Zone() != "" {
		return ReasonZone
	}
	for _, m := range metadataAddrs {
		if addr == m {
			return ReasonMetadata
		}
	}
	if addr.Is4() {
		for _, r := range v4Rules {
			if r.prefix.Contains(addr) {
				return r.reason
			}
		}
	} else {
		for _, r := range v6Rules {
			if r.prefix.Contains(addr) {
				return r.reason
			}
		}
		if !ssrf.IPv6GlobalUnicast.Contains(addr) {
			return ReasonNotGlobal
		}
	}
	if guardian.SafeAddr(addr) != nil {
		return ReasonSpecial
	}
	return ReasonPublic
}

// Embedded returns the IPv4 address carried inside an IPv6 address of one of
// the embedding forms (mapped, IPv4-compatible, well-known NAT64 prefix, 6to4,
// Teredo), for
// logging what an embedded literal pointed at. ok is false for other
// addresses.
func Embedded(addr netip.Addr) (v4 netip.Addr, ok bool) {
	if !addr.Is6() {
		return netip.Addr{}, false
	}
	b := addr.As16()
	last4 := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	if nat64WellKnown.Contains(addr.WithZone("")) {
		return last4, true
	}
	switch Classify(addr.WithZone("")) {
	case ReasonIPv4Mapped, ReasonIPv4Compat:
		return last4, true
	case Reason6to4:
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	case ReasonTeredo:
		// The client address is stored inverted in the last 32 bits.
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), true
	}
	return netip.Addr{}, false
}
