package redact

import (
	"bytes"
	"strings"

	"github.com/warden-mcp/warden/privacy"
)

// Header policy (privacy.Header): the header's name decides what its value
// is. Names compare case-insensitively.
//
//   - Authorization, Proxy-Authorization: the scheme stays when it is a
//     known one ("Bearer [REDACTED:credential]"), the rest goes.
//   - Cookie: every cookie keeps its name and loses its value
//     ("sid=[REDACTED:cookie]; theme=[REDACTED:cookie]").
//   - Set-Cookie: the cookie's value goes; its name and attributes (Path,
//     Secure, HttpOnly, SameSite, Expires...) stay, because a missing
//     flag is a finding. Strict also pseudonymizes the Domain attribute.
//   - Any other name containing token, secret, key, auth, session,
//     passw, pwd, signature, credential, cookie, csrf, xsrf, jwt or
//     bearer (X-Api-Key, X-Auth-Token, X-Amz-Security-Token,
//     X-Hub-Signature-256, Private-Token...), and DPoP: the whole value
//     becomes "[REDACTED:header]".
//   - Except these, which name or describe credentials without holding
//     one, and stay: WWW-Authenticate, Proxy-Authenticate,
//     Access-Control-Allow-Credentials, Access-Control-Allow-Headers,
//     Access-Control-Expose-Headers, Access-Control-Request-Headers,
//     Public-Key-Pins, Public-Key-Pins-Report-Only.
//   - Location, Content-Location, Referer, Origin,
//     Access-Control-Allow-Origin and HTTP/2's :path: the URL policy.
//   - Strict only: Host, X-Forwarded-Host and :authority get the host
//     pseudonym; X-Forwarded-For, X-Real-IP, X-Client-IP, True-Client-IP,
//     CF-Connecting-IP, X-Cluster-Client-IP and the for=, by= and host=
//     parameters of Forwarded get address pseudonyms.
//   - Everything else (Content-Type, Server, Strict-Transport-Security,
//     Content-Security-Policy, X-Frame-Options, ETag...) stays.

// HeaderMarker replaces a sensitive header's value.
const HeaderMarker = "[REDACTED:header]"

type headerClass int

const (
	hPlain headerClass = iota
	hSecret
	hAuthorization
	hCookie
	hSetCookie
	hURL
	hHost
	hAddrs
	hForwarded
)

// headerExact classifies header names (lower-case) exactly.
var headerExact = withPlain(map[string]headerClass{
	"authorization":                    hAuthorization,
	"proxy-authorization":              hAuthorization,
	"cookie":                           hCookie,
	"set-cookie":                       hSetCookie,
	"set-cookie2":                      hSetCookie,
	"dpop":                             hSecret,
	"www-authenticate":                 hPlain,
	"proxy-authenticate":               hPlain,
	"access-control-allow-credentials": hPlain,
	"access-control-allow-headers":     hPlain,
	"access-control-expose-headers":    hPlain,
	"access-control-request-headers":   hPlain,
	"public-key-pins":                  hPlain,
	"public-key-pins-report-only":      hPlain,
	"location":                         hURL,
	"content-location":                 hURL,
	"referer":                          hURL,
	"referrer":                         hURL,
	"origin":                           hURL,
	"access-control-allow-origin":      hURL,
	":path":                            hURL,
	"host":                             hHost,
	"x-forwarded-host":                 hHost,
	":authority":                       hHost,
	"x-forwarded-for":                  hAddrs,
	"x-real-ip":                        hAddrs,
	"x-client-ip":                      hAddrs,
	"true-client-ip":                   hAddrs,
	"cf-connecting-ip":                 hAddrs,
	"x-cluster-client-ip":              hAddrs,
	"forwarded":                        hForwarded,
}, commonPlain)

// commonPlain are frequent headers that hold nothing sensitive, answered
// by one lookup.
var commonPlain = []string{"content-type", "content-length", "content-encoding", "content-language",
	"content-disposition", "content-security-policy", "content-security-policy-report-only", "date",
	"server", "cache-control", "etag", "expires", "last-modified", "vary", "connection",
	"transfer-encoding", "accept", "accept-encoding", "accept-language", "accept-ranges", "user-agent",
	"strict-transport-security", "x-frame-options", "x-content-type-options", "referrer-policy",
	"permissions-policy", "x-xss-protection", "age", "via", "pragma", "x-powered-by", "x-request-id",
	"access-control-allow-methods", "access-control-max-age", "cross-origin-opener-policy",
	"cross-origin-embedder-policy", "cross-origin-resource-policy", "alt-svc", "retry-after", "link",
	"upgrade", "te", "trailer", "if-none-match", "if-modified-since", "range", "content-range",
	":method", ":scheme", ":status"}

func withPlain(m map[string]headerClass, plain []string) map[string]headerClass {
	for _, h := range plain {
		m[h] = hPlain
	}
	return m
}

var sensitiveHeaderWords = []string{"token", "secret", "key", "auth", "session", "passw", "pwd",
	"signature", "credential", "cookie", "csrf", "xsrf", "jwt", "bearer"}

// classifyHeader names what a header's value holds. It does not allocate
// for names up to 64 bytes.
func classifyHeader(name string) headerClass {
	var buf [64]byte
	var lower []byte
	if len(name) <= len(buf) {
		lower = buf[:len(name)]
	} else {
		lower = make([]byte, len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	if c, ok := headerExact[string(lower)]; ok {
		return c
	}
	for _, w := range sensitiveHeaderWords {
		if bytes.Contains(lower, []byte(w)) {
			return hSecret
		}
	}
	return hPlain
}

// redactHeader applies the header policy to one value.
func (r *Redactor) redactHeader(name, value string) string {
	if value == "" {
		return value
	}
	switch classifyHeader(name) {
	case hSecret:
		return HeaderMarker
	case hAuthorization:
		return authorization(value)
	case hCookie:
		return r.cookies(value, false)
	case hSetCookie:
		return r.cookies(value, true)
	case hURL:
		return r.redactURL(value)
	case hHost:
		if r.mode == Strict {
			return r.pseudo.hostPort(trimOWS(value))
		}
	case hAddrs:
		if r.mode == Strict {
			return r.addrList(value)
		}
	case hForwarded:
		if r.mode == Strict {
			return r.forwarded(value)
		}
	}
	return value
}

// authSchemes are the HTTP authentication schemes whose name is kept
// (lower-case).
var authSchemes = map[string]bool{
	"basic": true, "bearer": true, "digest": true, "negotiate": true, "ntlm": true,
	"kerberos": true, "token": true, "dpop": true, "aws4-hmac-sha256": true, "hoba": true,
	"mutual": true, "scram-sha-1": true, "scram-sha-256": true, "vapid": true,
	"privatetoken": true, "gnap": true, "apikey": true, "oauth": true, "mac": true,
	"hawk": true, "sso-key": true, "splunk": true, "ssws": true, "klaviyo-api-key": true,
}

// authorization keeps a known scheme and removes the credentials.
func authorization(v string) string {
	credMarker := markerFor(privacy.Credential)
	scheme, rest, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !authSchemes[strings.ToLower(scheme)] {
		return credMarker
	}
	if !ok || strings.TrimSpace(rest) == "" {
		return v // a scheme alone holds no credential
	}
	out := scheme + " " + credMarker
	if out == v {
		return v
	}
	return out
}

// cookieAttrs are the Set-Cookie attribute names (lower-case).
var cookieAttrs = map[string]bool{
	"expires": true, "max-age": true, "domain": true, "path": true, "secure": true,
	"httponly": true, "samesite": true, "partitioned": true, "priority": true,
	"comment": true, "version": true, "port": true, "discard": true, "commenturl": true,
}

// cookies removes cookie values from a Cookie header (name=value pairs
// separated by ';') or a Set-Cookie header (a name=value pair, then
// attributes; several cookies flattened into one value with ',' are
// recognized too). Names and attributes stay.
func (r *Redactor) cookies(v string, set bool) string {
	marker := markerFor(privacy.Cookie)
	var b strings.Builder
	changed := false
	first := true
	for seg := range strings.SplitSeq(v, ";") {
		if !first {
			b.WriteByte(';')
		}
		out := seg
		switch {
		case !set || first:
			out = cookiePair(seg, marker)
		default:
			out = r.cookieAttr(seg, marker)
		}
		if out != seg {
			changed = true
		}
		b.WriteString(out)
		first = false
	}
	if !changed {
		return v
	}
	return b.String()
}

// cookiePair redacts the value of " name=value" keeping the spacing; a
// segment without "=" is a value alone.
func cookiePair(seg, marker string) string {
	lead := len(seg) - len(strings.TrimLeft(seg, " \t"))
	body := seg[lead:]
	if body == "" {
		return seg
	}
	if i := strings.IndexByte(body, '='); i >= 0 {
		if val := strings.TrimSpace(body[i+1:]); val == "" || val == marker {
			return seg
		}
		return seg[:lead+i+1] + marker
	}
	if strings.TrimSpace(body) == marker {
		return seg
	}
	return seg[:lead] + marker
}

// cookieAttr handles a Set-Cookie segment after the first: an attribute,
// or an attribute followed by ", name=value" (the next cookie of a
// flattened list; a date's "Wed, 21 Oct" has no "=" after its comma).
func (r *Redactor) cookieAttr(seg, marker string) string {
	if i := strings.LastIndexByte(seg, ','); i >= 0 {
		after := seg[i+1:]
		if k, _, ok := strings.Cut(after, "="); ok && !cookieAttrs[strings.ToLower(strings.TrimSpace(k))] {
			return r.cookieAttr(seg[:i], marker) + "," + cookiePair(after, marker)
		}
	}
	if r.mode != Strict {
		return seg
	}
	k, val, ok := strings.Cut(seg, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(k), "domain") {
		return seg
	}
	host := strings.TrimSpace(val)
	dot := strings.HasPrefix(host, ".")
	ps := r.pseudo.host(strings.TrimPrefix(host, "."))
	if ps == strings.TrimPrefix(host, ".") {
		return seg
	}
	if dot {
		ps = "." + ps
	}
	return k + "=" + ps
}

// addrList pseudonymizes a comma-separated list of addresses
// (X-Forwarded-For).
func (r *Redactor) addrList(v string) string {
	parts := strings.Split(v, ",")
	changed := false
	for i, p := range parts {
		a := trimOWS(p)
		if ps := r.pseudo.hostPort(a); ps != a {
			lead := strings.Index(p, a)
			parts[i] = p[:lead] + ps + p[lead+len(a):]
			changed = true
		}
	}
	if !changed {
		return v
	}
	return strings.Join(parts, ",")
}

// forwarded pseudonymizes the for=, by= and host= parameters of an RFC
// 7239 Forwarded header.
func (r *Redactor) forwarded(v string) string {
	var b strings.Builder
	changed := false
	for i, elem := range strings.Split(v, ",") {
		if i > 0 {
			b.WriteByte(',')
		}
		for j, pair := range strings.Split(elem, ";") {
			if j > 0 {
				b.WriteByte(';')
			}
			out := pair
			if k, val, ok := strings.Cut(pair, "="); ok {
				switch strings.ToLower(strings.TrimSpace(k)) {
				case "for", "by", "host":
					raw := strings.Trim(strings.TrimSpace(val), `"`)
					if ps := r.pseudo.hostPort(raw); ps != raw {
						out = k + "=" + `"` + ps + `"`
					}
				}
			}
			if out != pair {
				changed = true
			}
			b.WriteString(out)
		}
	}
	if !changed {
		return v
	}
	return b.String()
}

// trimOWS trims HTTP's optional white space: spaces and tabs.
func trimOWS(s string) string { return strings.Trim(s, " \t") }
