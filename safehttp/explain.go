package safehttp

// local lists the reasons Options.AllowPrivate lifts: addresses and names
// that stay on the machine or its own network. Everything else, cloud
// metadata included, stays refused.
var local = map[Reason]bool{
	ReasonLoopback:       true,
	ReasonPrivate:        true,
	ReasonShared:         true,
	ReasonLinkLocal:      true,
	ReasonLocalhost:      true,
	ReasonSingleLabel:    true,
	ReasonSpecialUseName: true,
	ReasonNonICANNTLD:    true,
}

// Local reports whether r refuses an address or name that is local to
// the machine or its network, the ones Options.AllowPrivate lets through.
func (r Reason) Local() bool { return local[r] }

var descriptions = map[Reason]string{
	ReasonPublic:         "a public address",
	ReasonInvalid:        "not an address",
	ReasonZone:           "an IPv6 address with a zone",
	ReasonUnspecified:    "the unspecified address",
	ReasonThisNetwork:    `a "this network" address`,
	ReasonLoopback:       "a loopback address",
	ReasonPrivate:        "a private-network address",
	ReasonShared:         "a carrier-grade NAT address",
	ReasonLinkLocal:      "a link-local address",
	ReasonMetadata:       "a cloud-metadata endpoint",
	ReasonProtocol:       "an IETF protocol address",
	ReasonDocumentation:  "a documentation address",
	ReasonBenchmarking:   "a benchmarking address",
	ReasonAS112:          "an AS112 address",
	ReasonAMT:            "an AMT relay address",
	ReasonRelay6to4:      "a 6to4 relay address",
	ReasonMulticast:      "a multicast address",
	ReasonBroadcast:      "the broadcast address",
	ReasonReserved:       "a reserved address",
	ReasonIPv4Mapped:     "an IPv4-mapped IPv6 address",
	ReasonIPv4Compat:     "an IPv4-compatible IPv6 address",
	ReasonNAT64:          "a NAT64 address",
	Reason6to4:           "a 6to4 address",
	ReasonTeredo:         "a Teredo address",
	ReasonDiscard:        "a discard-only address",
	ReasonSiteLocal:      "a site-local address",
	ReasonSRv6:           "an SRv6 address",
	ReasonNotGlobal:      "an IPv6 address outside the global unicast range",
	ReasonSpecial:        "a special-purpose address",
	ReasonLocalhost:      "a loopback name",
	ReasonSingleLabel:    "a name without a domain",
	ReasonSpecialUseName: "a special-use name that only resolves locally",
	ReasonNonICANNTLD:    "a name outside the public DNS",
	ReasonPortNotAllowed: "a port other than 80 and 443",
}

// Describe returns a short phrase for r, such as "a loopback address",
// to complete a sentence that says what was refused.
func (r Reason) Describe() string {
	if d, ok := descriptions[r]; ok {
		return d
	}
	return "not allowed (" + string(r) + ")"
}
