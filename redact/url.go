package redact

import (
	"strings"
)

// URL policy (privacy.URL, and URL-valued headers such as Location and
// Referer). The URL is split by hand following RFC 3986's generic syntax,
// never parsed and re-serialized, so what the policy keeps stays byte for
// byte as it was (net/url would re-escape it) and nothing fails to parse:
//
//   - userinfo ("user:password@") is dropped entirely;
//   - every non-empty query value becomes "REDACTED" and the keys stay; a
//     bare query segment without "=" stays when it reads as a flag
//     (letters, "_", "-", ".", "[" or "]"; up to 64 bytes), else it is a
//     value and becomes "REDACTED";
//   - a non-empty fragment becomes "REDACTED" (OAuth's implicit flow puts
//     tokens there);
//   - scheme, host, port and path stay in Balanced; Strict replaces the
//     host with its pseudonym (the port stays), the path of a file: URL
//     with its path pseudonym, and the addresses of a mailto: URL with
//     theirs.
//
// The query marker has no brackets because RFC 3986 allows none there: a
// redacted URL stays a URL for a strict parser.

// QueryMarker replaces a URL query value or fragment.
const QueryMarker = "REDACTED"

// redactURL applies the URL policy of mode to v. v is returned unchanged
// (and not copied) when the policy removes nothing.
func (r *Redactor) redactURL(v string) string {
	rest := v
	frag, hasFrag := "", false
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		frag, hasFrag = rest[i+1:], true
		rest = rest[:i]
	}
	query, hasQuery := "", false
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		query, hasQuery = rest[i+1:], true
		rest = rest[:i]
	}
	scheme := ""
	if n := schemeLen(rest); n > 0 {
		scheme = rest[:n+1] // with ':'
		rest = rest[n+1:]
	}
	authority, hasAuth := "", false
	if strings.HasPrefix(rest, "//") {
		end := strings.IndexByte(rest[2:], '/')
		if end < 0 {
			end = len(rest) - 2
		}
		authority, hasAuth = rest[2:2+end], true
		rest = rest[2+end:]
	}
	path := rest

	changed := false
	if hasAuth {
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			authority = authority[at+1:]
			changed = true
		}
		if r.mode == Strict {
			if h := r.pseudo.hostPort(authority); h != authority {
				authority, changed = h, true
			}
		}
	}
	if r.mode == Strict {
		switch strings.ToLower(scheme) {
		case "file:":
			if p := r.pseudo.path(path); p != path {
				path, changed = p, true
			}
		case "mailto:":
			if p := r.mailtoAddrs(path); p != path {
				path, changed = p, true
			}
		}
	}
	if hasQuery {
		if q, ok := redactQuery(query); ok {
			query, changed = q, true
		}
	}
	if hasFrag && frag != "" && frag != QueryMarker {
		frag, changed = QueryMarker, true
	}
	if !changed {
		return v
	}
	var b strings.Builder
	b.Grow(len(v) + 16)
	b.WriteString(scheme)
	if hasAuth {
		b.WriteString("//")
		b.WriteString(authority)
	}
	b.WriteString(path)
	if hasQuery {
		b.WriteByte('?')
		b.WriteString(query)
	}
	if hasFrag {
		b.WriteByte('#')
		b.WriteString(frag)
	}
	return b.String()
}

// schemeLen returns the length of the scheme at the start of s (without
// the ':'), or 0: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":".
func schemeLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isLetter(c):
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			return i
		default:
			return 0
		}
	}
	return 0
}

// redactQuery replaces every non-empty value of a query string. ok is
// false when nothing changed; then nothing was allocated.
func redactQuery(q string) (string, bool) {
	if !queryChanges(q) {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	for i := 0; ; i++ {
		part, more, found := strings.Cut(q, "&")
		q = more
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(queryPart(part))
		if !found {
			return b.String(), true
		}
	}
}

func queryChanges(q string) bool {
	for {
		part, more, found := strings.Cut(q, "&")
		if queryPart(part) != part {
			return true
		}
		if !found {
			return false
		}
		q = more
	}
}

// queryPart redacts one "key=value" segment (without allocating when it
// keeps it).
func queryPart(part string) string {
	if i := strings.IndexByte(part, '='); i >= 0 {
		if v := part[i+1:]; v != "" && v != QueryMarker {
			return part[:i+1] + QueryMarker
		}
		return part
	}
	if part != "" && part != QueryMarker && !flagLike(part) {
		return QueryMarker
	}
	return part
}

// flagLike reports whether a bare query segment reads as a flag name
// ("debug", "wsdl", "amp") rather than a value ("3f9a...", "a@b.c").
func flagLike(s string) bool {
	if len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && c != '_' && c != '-' && c != '.' && c != '[' && c != ']' {
			return false
		}
	}
	return true
}

// mailtoAddrs pseudonymizes the comma-separated addresses of a mailto:
// URL's path.
func (r *Redactor) mailtoAddrs(p string) string {
	if p == "" {
		return p
	}
	parts := strings.Split(p, ",")
	for i, a := range parts {
		if a != "" {
			parts[i] = r.pseudo.email(a)
		}
	}
	return strings.Join(parts, ",")
}
