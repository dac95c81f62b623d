// Value shapes: pure predicates over a candidate value (a file name, a
// dotted reference, a camelCase identifier, a host, a passphrase) that the
// value rules of assign_values.go are made of.

package secretscan

import "strings"

// symbolLeadOK accepts a password that starts with a symbol unless it
// reads as a Windows variable (%X%), a home path (~/), or a YAML tag or
// anchor (!name, &name, *name: the symbol followed by letters only).
func symbolLeadOK(v string) bool {
	if v[0] == '%' && v[len(v)-1] == '%' || strings.HasPrefix(v, "~/") {
		return false
	}
	_, _, digit, other := charClasses(v[1:])
	return digit || other
}

// qualifiedName reports whether v is a dotted identifier path such as
// "asn1.ObjectIdentifier" or "os.Args".
func qualifiedName(v string) bool {
	if strings.IndexByte(v, '.') < 0 {
		return false
	}
	for rest := v; ; {
		p, tail, more := strings.Cut(rest, ".")
		if p == "" || len(p) > 24 || !(p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z' || p[0] == '_') {
			return false
		}
		for i := 1; i < len(p); i++ {
			if !isAlnum(p[i]) && p[i] != '_' {
				return false
			}
		}
		if !more {
			return true
		}
		rest = tail
	}
}

// namesCredential reports whether an identifier-shaped value has a word
// that says what it would hold: a variable called testRSAPrivateKey or
// api_token, not a key.
func namesCredential(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isAlnum(v[i]) && v[i] != '_' {
			return false
		}
	}
	found := false
	eachWord(v, func(w string) bool {
		found = credentialWord(w) || strings.EqualFold(w, "pass")
		return !found
	})
	return found
}

// fileExts are the extensions that make a dotted word a file name.
var fileExts = map[string]bool{"h": true, "c": true, "cc": true, "cpp": true, "hpp": true, "go": true,
	"js": true, "mjs": true, "cjs": true, "ts": true, "py": true, "rb": true, "java": true, "kt": true,
	"rs": true, "php": true, "cs": true, "sh": true, "txt": true, "md": true, "json": true, "yml": true,
	"yaml": true, "toml": true, "ini": true, "conf": true, "cfg": true, "xml": true, "html": true,
	"css": true, "pem": true, "crt": true, "csr": true, "key": true, "der": true, "p12": true,
	"pfx": true, "jks": true, "db": true, "sqlite": true, "log": true, "lock": true, "sum": true}

// fileName reports whether s is a file name: one or more name parts and a
// known extension ("fgetspent.c", "pwd.h", "id_rsa.pub" is not: pub is
// not listed).
func fileName(s string) bool {
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || !fileExts[s[dot+1:]] {
		return false
	}
	for i := 0; i < dot; i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

// sourceFileName is fileName for names: a source or text file ("pwd.h",
// "passwords.txt"), not a key file, whose name may well label a key
// ("front.key.<value>").
func sourceFileName(s string) bool {
	dot := strings.LastIndexByte(s, '.')
	if dot < 0 {
		return false
	}
	switch s[dot+1:] {
	case "pem", "crt", "csr", "key", "der", "p12", "pfx", "jks":
		return false
	}
	return fileName(s)
}

// comparison reports whether v holds "==" followed by an operand, as in
// "e===401?a:b"; base64 padding ("...q==", "...q==\\") does not count.
func comparison(v string) bool {
	for i := strings.Index(v, "=="); i >= 0; {
		j := i
		for j < len(v) && v[j] == '=' {
			j++
		}
		if j < len(v) && (isAlnum(v[j]) || strings.IndexByte("?(\"'`", v[j]) >= 0) {
			return true
		}
		k := strings.Index(v[j:], "==")
		if k < 0 {
			return false
		}
		i = j + k
	}
	return false
}

// constantName reports whether v is an upper-case SNAKE_CASE name.
func constantName(v string) bool {
	if strings.IndexByte(v, '_') < 0 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'A' && c <= 'Z' || isDigit(c) || c == '_') {
			return false
		}
	}
	return true
}

// numberLiteral reports whether v is an integer literal of code: digits
// with an optional sign, or 0x and hexadecimal digits.
func numberLiteral(v string) bool {
	v = strings.TrimPrefix(v, "-")
	hex := len(v) > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')
	if hex {
		v = v[2:]
	}
	if v == "" || hex && len(v) > 16 || !hex && len(v) > 19 {
		return false // wider than 64 bits: a key in hex, not a constant
	}
	for i := 0; i < len(v); i++ {
		if !(isDigit(v[i]) || hex && isHex(v[i])) {
			return false
		}
	}
	return true
}

// registryPath reports whether v is a Windows path of words:
// "Software\\Policies\\Microsoft" (each part a capitalised word).
func registryPath(v string) bool {
	if !strings.Contains(v, `\\`) {
		return false
	}
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '\\' })
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if len(p) < 2 || p[0] < 'A' || p[0] > 'Z' || !hasVowel(p[1:]) {
			return false
		}
		for i := 1; i < len(p); i++ {
			if !(p[i] >= 'a' && p[i] <= 'z' || p[i] >= 'A' && p[i] <= 'Z' || isDigit(p[i]) || p[i] == ' ') {
				return false
			}
		}
	}
	return true
}

// memberTimesNumber reports whether v is "x.y*1024": a member multiplied
// by a number.
func memberTimesNumber(v string) bool {
	i := strings.IndexByte(v, '*')
	if i <= 0 || strings.IndexByte(v[:i], '.') <= 0 || i+1 == len(v) {
		return false
	}
	for _, c := range []byte(v[i+1:]) {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// camelIdentifier reports whether v reads as a camelCase or CamelCase
// identifier of three or more words: "ClientCapabilities2026Schema",
// "scramSHA256PlusName", "SmartCardAssociatedECDHKey". A word is a
// lower-case start or a title-case word of three letters or more with a
// vowel, or an acronym of two to six capitals; a word may end in up to
// four digits; at least half the words are spelled out. Random tokens and
// typed stand-ins ("ABCD1234EFGH5678") break into short, vowel-less or
// capital-only pieces.
func camelIdentifier(v string) bool {
	words, spelled := 0, 0 // spelled: words that are not acronyms
	long := false          // a spelled word of four letters or more
	i := 0
	for i < len(v) {
		j := i
		switch {
		case v[i] >= 'a' && v[i] <= 'z':
			if i > 0 {
				return false // lower case only opens the name
			}
			for j < len(v) && v[j] >= 'a' && v[j] <= 'z' {
				j++
			}
			if j-i < 3 || !hasVowel(v[i:j]) {
				return false
			}
			spelled++
			long = long || j-i >= 4
		case v[i] >= 'A' && v[i] <= 'Z':
			k := i
			for k < len(v) && v[k] >= 'A' && v[k] <= 'Z' {
				k++
			}
			if k-i >= 2 && (k == len(v) || v[k] < 'a' || v[k] > 'z') {
				if k-i > 6 {
					return false
				}
				j = k // an acronym: "SHA", "ECDH" before "Key"
				break
			}
			if k-i >= 2 {
				k-- // "ECDHKey": the last capital opens the next word
				if k-i > 6 {
					return false
				}
				j = k
				break
			}
			j = k
			for j < len(v) && v[j] >= 'a' && v[j] <= 'z' {
				j++
			}
			if j-i < 3 || !hasVowel(v[i+1:j]) {
				return false
			}
			spelled++
			long = long || j-i >= 4
		default:
			return false
		}
		d := j
		for j < len(v) && isDigit(v[j]) {
			j++
		}
		if j-d > 4 {
			return false
		}
		words++
		i = j
	}
	return words >= 3 && spelled*2 >= words && long
}

// camelNamesCredential reports whether a camelCase value names a
// credential in one of its words ("SmartCardAssociatedECDHKey"): a quoted
// constant about a key, where "WhiteHorseKnightDawn" may be a secret.
func camelNamesCredential(v string) bool {
	for _, w := range [...]string{"key", "secret", "token", "password", "passwd", "credential", "auth"} {
		if i := indexFold(v, w); i == 0 || i > 0 && v[i] >= 'A' && v[i] <= 'Z' {
			return true // a word of its own: at the start or after a case change
		}
	}
	return false
}

// hasVowel reports whether w has a lower-case vowel (capitals are often
// acronyms or random).
func hasVowel(w string) bool { return strings.ContainsAny(w, "aeiouy") }

// structTag reports whether v is a Go struct tag: `json:"name,omitempty"`.
func structTag(v string) bool {
	i := strings.Index(v, `:"`)
	if i <= 0 {
		return false
	}
	for k := 0; k < i; k++ {
		if v[k] < 'a' || v[k] > 'z' {
			return false
		}
	}
	return true
}

// lowerWord reports whether w is a non-empty run of lower-case letters.
func lowerWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return w != ""
}

// lettersDotsUnderscores reports whether v holds only letters, '_' and '.'.
func lettersDotsUnderscores(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// shortWord reports whether w is letters then at most three digits
// ("base64"), or at most four digits alone.
func shortWord(w string) bool {
	i := 0
	for i < len(w) && (w[i] >= 'a' && w[i] <= 'z' || w[i] >= 'A' && w[i] <= 'Z') {
		i++
	}
	d := len(w) - i
	for ; i < len(w); i++ {
		if !isDigit(w[i]) {
			return false
		}
	}
	if d == len(w) {
		return d > 0 && d <= 4
	}
	return d <= 3
}

// describesCredential reports whether v is a phrase of short words
// (letters, then at most three digits: "base64", "sha256"), one of which
// names a credential: "my-idp-secret", "base64-encoded-public-key",
// "client_secret_basic". Generated keys and tokens have random segments.
func describesCredential(v string) bool {
	segs, named, ok := 0, false, true
	eachWord(v, func(w string) bool {
		segs++
		if len(w) > 12 || !shortWord(w) {
			ok = false
			return false
		}
		named = named || credentialWord(w)
		return true
	})
	return ok && named && segs >= 2
}

// hostOrPath reports whether v reads as a host name or a path below one
// ("github.com/golang/x", "api.example.org").
func hostOrPath(v string) bool {
	host, _, _ := strings.Cut(v, "/")
	dot := strings.LastIndexByte(host, '.')
	if dot < 0 {
		return false
	}
	tld := host[dot+1:]
	if len(tld) < 2 || len(tld) > 6 {
		return false
	}
	for i := 0; i < len(tld); i++ {
		if tld[i] < 'a' || tld[i] > 'z' {
			return false
		}
	}
	prev := byte('.')
	for i := 0; i < len(host); i++ {
		c := host[i]
		switch {
		case c == '.':
			if prev == '.' {
				return false // empty label
			}
		case c >= 'a' && c <= 'z' || isDigit(c) || c == '-':
		default:
			return false
		}
		prev = c
	}
	return host[0] != '.'
}

// identifierLike reports whether v reads as a compound identifier such as
// "ConnectionString_B2B" or "CLIENT_TRAFFIC_SECRET_0" rather than random
// characters: two or more segments split by _ - . that are letters with at
// most one digit, or short numbers.
func identifierLike(v string, h float64) bool {
	if h >= 4.0 {
		return false
	}
	segs := strings.FieldsFunc(v, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(segs) < 2 {
		return false
	}
	for _, seg := range segs {
		digits := 0
		for i := 0; i < len(seg); i++ {
			if isDigit(seg[i]) {
				digits++
			}
		}
		if digits > 1 && !(digits == len(seg) && digits <= 4) {
			return false
		}
	}
	return true
}

// newRelicLicenseShape reports whether v, ending in NRAL, has the shape of
// a New Relic license key: 36 lower-case hexadecimal digits before the
// suffix, or a region prefix ("eu01xx") and 30 of them.
func newRelicLicenseShape(v string) bool {
	if len(v) != 40 {
		return false
	}
	body := v[:36]
	if body[4] == 'x' && body[5] == 'x' && body[0] >= 'a' && body[0] <= 'z' && body[1] >= 'a' && body[1] <= 'z' && isDigit(body[2]) && isDigit(body[3]) {
		body = body[6:]
	}
	for i := 0; i < len(body); i++ {
		if !(isDigit(body[i]) || body[i] >= 'a' && body[i] <= 'f') {
			return false
		}
	}
	return true
}

// awsSecretShape reports whether v has the shape of an AWS secret access
// key: exactly 40 characters of A-Z a-z 0-9 / +.
func awsSecretShape(v string) bool {
	if len(v) != 40 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isAlnum(v[i]) && v[i] != '/' && v[i] != '+' {
			return false
		}
	}
	return true
}

// passphraseUIWords mark a quoted phrase as interface text (a label, a
// prompt, a translation) rather than a passphrase.
var passphraseUIWords = map[string]bool{"enter": true, "your": true, "the": true, "new": true,
	"confirm": true, "current": true, "old": true, "type": true, "please": true, "password": true,
	"passwort": true, "passe": true, "contraseña": true, "here": true, "a": true, "to": true,
	"is": true, "of": true, "for": true, "not": true, "invalid": true, "wrong": true, "required": true}

// passphrase reports whether a quoted value with blanks reads as a short
// passphrase: two to four words, none of them interface words, at most
// 48 bytes, and none of the characters of settings, paths or templates.
func passphrase(v string) bool {
	if len(v) > 48 || strings.ContainsAny(v, "=:/\\@$%{}<>[]") {
		return false // settings ("host=db user=x"), paths, templates
	}
	words := strings.Fields(v)
	if len(words) < 2 || len(words) > 4 {
		return false
	}
	for _, w := range words {
		if passphraseUIWords[strings.ToLower(w)] {
			return false
		}
	}
	return true
}
