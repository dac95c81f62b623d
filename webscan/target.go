package webscan

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/warden-mcp/warden/errcode"
)

// target is a validated scan target.
type target struct {
	// URL is the normalised URL that was asked for.
	URL *url.URL
	// Host is the host name or IP literal, without brackets or port.
	Host string
	// ExplicitPort is the port given in the URL, or "" for the default.
	ExplicitPort string
}

// parseTarget checks the syntax of a scan target. It does not resolve or
// classify addresses: that is the injected HTTP client's job (the SSRF
// policy), so a target accepted here may still be refused by it.
func parseTarget(raw string) (target, error) {
	var t target
	if len(raw) > maxURLLength {
		return t, errcode.New(CodeURLTooLong, "the URL is longer than 2048 bytes")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return t, errcode.Wrap(CodeInvalidTarget, "the URL cannot be parsed", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return t, errcode.New(CodeInvalidScheme, "only http and https URLs can be scanned")
	}
	if u.User != nil {
		return t, errcode.New(CodeCredentialsInURL, "the URL must not contain credentials")
	}
	host := u.Hostname()
	if host == "" || strings.Contains(host, "%") {
		return t, errcode.New(CodeInvalidTarget, "the URL has no valid host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return t, errcode.New(CodeInvalidTarget, "the URL has an invalid port")
		}
		if !(u.Scheme == "http" && n == 80) && !(u.Scheme == "https" && n == 443) {
			t.ExplicitPort = strconv.Itoa(n)
		}
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" {
		return t, errcode.New(CodeInvalidTarget, "the URL has no valid host")
	}
	u.Host = host
	if strings.Contains(host, ":") {
		u.Host = "[" + host + "]"
	}
	if t.ExplicitPort != "" {
		u.Host = net.JoinHostPort(host, t.ExplicitPort)
	}
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" {
		u.Path = "/"
	}
	t.URL, t.Host = u, host
	return t, nil
}

// withScheme returns the target's URL on scheme at its default port.
func (t target) withScheme(scheme string) *url.URL {
	u := *t.URL
	u.Scheme = scheme
	if t.ExplicitPort == "" {
		u.Host = t.URL.Host
	}
	return &u
}

// tlsAddr is the host:port the TLS probes dial.
func (t target) tlsAddr() string {
	if t.URL.Scheme == "https" && t.ExplicitPort != "" {
		return net.JoinHostPort(t.Host, t.ExplicitPort)
	}
	return net.JoinHostPort(t.Host, "443")
}
