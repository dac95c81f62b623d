package policy

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// Scope says where network tools may go: host names matched exactly or,
// written "*.example.org", any name under a suffix. Exclude wins over
// include; an empty include list admits every target (the SSRF rules of the
// tools themselves still apply).
type Scope struct {
	include, exclude []hostPattern
}

type hostPattern struct {
	host   string // normalised
	suffix bool   // "*.host": names under host, not host itself
}

// NewScope parses include and exclude lists.
func NewScope(include, exclude []string) (*Scope, error) {
	s := &Scope{}
	for _, list := range []struct {
		name string
		in   []string
		out  *[]hostPattern
	}{{"tools.scope.include", include, &s.include}, {"tools.scope.exclude", exclude, &s.exclude}} {
		for _, e := range list.in {
			p, err := parsePattern(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", list.name, err)
			}
			*list.out = append(*list.out, p)
		}
	}
	return s, nil
}

func parsePattern(e string) (hostPattern, error) {
	raw := strings.TrimSpace(e)
	p := hostPattern{}
	if rest, ok := strings.CutPrefix(raw, "*."); ok {
		p.suffix, raw = true, rest
	}
	if strings.ContainsAny(raw, "*/:@ ") {
		return p, fmt.Errorf("%q is not a host name or *.suffix", e)
	}
	h, err := normaliseHost(raw)
	if err != nil {
		return p, fmt.Errorf("%q: %w", e, err)
	}
	p.host = h
	return p, nil
}

// normaliseHost lower-cases a host, drops one trailing dot and converts an
// internationalised name to its ASCII form; IP literals are kept as they
// are written canonically.
func normaliseHost(h string) (string, error) {
	h = strings.TrimSuffix(strings.TrimSpace(h), ".")
	if h == "" {
		return "", errors.New("empty host")
	}
	if ip := net.ParseIP(strings.Trim(h, "[]")); ip != nil {
		return ip.String(), nil
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", errors.New("not a valid host name")
	}
	return strings.ToLower(a), nil
}

// TargetHost reads the host a target argument names: a URL
// ("https://example.com/x") or a bare host, with or without a port.
func TargetHost(target string) (string, error) {
	t := strings.TrimSpace(target)
	if t == "" {
		return "", errors.New("empty target")
	}
	if strings.Contains(t, "://") {
		u, err := url.Parse(t)
		if err != nil || u.Hostname() == "" {
			return "", errors.New("the target URL has no host")
		}
		return normaliseHost(u.Hostname())
	}
	if h, _, err := net.SplitHostPort(t); err == nil {
		t = h
	}
	if strings.ContainsAny(t, "/?#@ ") {
		return "", errors.New("the target is neither a URL nor a host name")
	}
	return normaliseHost(t)
}

// Allows reports whether a normalised host is in scope.
func (s *Scope) Allows(host string) bool { return s.Refusal(host) == "" }

// Refusal says why a normalised host is out of scope and what would admit
// it, for the operator: a host an exclude entry names can be reached only
// by taking that entry out (exclude wins, so adding the host to include
// changes nothing); a host no include entry names, by adding one. It is
// empty for a host in scope.
func (s *Scope) Refusal(host string) string {
	for _, p := range s.exclude {
		if p.matches(host) {
			return "the target " + host + " is excluded by this server's tools.scope.exclude entry " + p.String() +
				", which wins over include; only an operator removing that entry admits it"
		}
	}
	if len(s.include) == 0 {
		return ""
	}
	for _, p := range s.include {
		if p.matches(host) {
			return ""
		}
	}
	return "the target " + host + " is outside this server's scope; an operator can add it to tools.scope.include"
}

// String is the pattern as configuration writes it.
func (p hostPattern) String() string {
	if p.suffix {
		return "*." + p.host
	}
	return p.host
}

// Restricted reports whether the scope narrows anything at all.
func (s *Scope) Restricted() bool { return len(s.include) > 0 || len(s.exclude) > 0 }

func (p hostPattern) matches(host string) bool {
	if p.suffix {
		return strings.HasSuffix(host, "."+p.host)
	}
	return host == p.host
}
