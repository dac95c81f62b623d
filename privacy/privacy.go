// Package privacy is the one vocabulary of privacy kinds: what a string a
// tool returns (or an argument it takes) holds, so that a server's privacy
// mode knows what to do with it.
//
// A tool author names a kind in a struct tag (`privacy:"url"`); the SDK
// (package tool) refuses an unknown one at registration and publishes it as
// x-warden-privacy in the tool's schemas; the privacy engine (package
// redact) decides, per mode, what each kind becomes. Both read the names
// from here, so neither can know a kind the other does not.
//
// The package is a leaf: it imports nothing of the module.
package privacy

// The privacy kinds. On a slice or a map the kind applies to its elements;
// for a map, the key is passed along as the value's name.
const (
	// Secret is a secret of any kind: a key, a token, a password.
	Secret = "secret"
	// Credential is login material: a user name, a password, an API key,
	// a login token, a private key.
	Credential = "credential"
	// Cookie is a cookie value; the name passed with it is the cookie's
	// name, which is kept.
	Cookie = "cookie"
	// Header is an HTTP header value; the name passed with it is the
	// header's name, which decides whether the value is sensitive.
	Header = "header"
	// URL is a URL, absolute or relative: its userinfo and query values
	// may be sensitive.
	URL = "url"
	// Host is a host name, optionally with a port ("host:port",
	// "[v6]:port") or a leading wildcard label ("*.example.com").
	Host = "host"
	// IP is an IP address, v4 or v6, optionally with a port.
	IP = "ip"
	// Email is an e-mail address, optionally "Name <addr>".
	Email = "email"
	// Path is a local file path (POSIX, Windows or UNC).
	Path = "path"
	// Bytes is bytes rendered as hex ("6768705f", "67 68 70 5f", "67:68")
	// or base64.
	Bytes = "bytes"
	// Plain declares that a string holds nothing sensitive: only the
	// server's pass over every string of a result applies to it.
	Plain = "plain"
)

var kinds = []string{Secret, Credential, Cookie, Header, URL, Host, IP, Email, Path, Bytes, Plain}

// Kinds lists the privacy kinds, in the order of this documentation.
func Kinds() []string { return append([]string(nil), kinds...) }

// Known reports whether k is a privacy kind.
func Known(k string) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// Redacts reports whether a string of kind k is one a privacy mode may
// change: a kind other than plain (and other than none at all).
func Redacts(k string) bool { return k != "" && k != Plain }
