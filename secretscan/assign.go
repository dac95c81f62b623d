package secretscan

import "strings"

// assignClass is what kind of name a generic assignment rule accepts.
type assignClass int

const (
	assignPassword assignClass = iota
	assignSecret
	assignToken
	assignAPIKey
	assignCredential
)

// assignment is one "name <sep> value" found around a keyword hit.
type assignment struct {
	nameStart, nameEnd int
	valStart, valEnd   int
	quoted             bool
	wsSep              bool // separated by whitespace only ("KEY value")
}

func isNameByte(b byte) bool { return isAlnum(b) || b == '_' || b == '-' || b == '.' }

// extractAssignment finds the identifier containing text[ks:ke] and the
// value assigned to it on the same line. It understands =, :, :=, =>, XML
// elements (<name>value</name>), quoted keys ("name": "value"), comma
// argument pairs ('NAME', 'value') and, strictly, whitespace ("NAME value").
// It is bounded: names up to 64 bytes each side, values up to 512 bytes.
func extractAssignment(text string, ks, ke int) (assignment, bool) {
	var a assignment
	n := len(text)
	ns := ks
	for ns > 0 && ks-ns < 64 && isNameByte(text[ns-1]) {
		ns--
	}
	ne := ke
	for ne < n && ne-ke < 64 && isNameByte(text[ne]) {
		ne++
	}
	a.nameStart, a.nameEnd = ns, ne
	i := ne
	keyQuoted := false
	if i < n && (text[i] == '"' || text[i] == '\'') && ns > 0 && text[ns-1] == text[i] {
		keyQuoted = true
		i++
	} else if i < n && (text[i] == '"' || text[i] == '\'' || text[i] == ']') {
		i++ // closing of ["name"] or a stray quote
	}
	j := skipBlanks(text, i, 16)
	xml := false
	switch {
	case j >= n:
		return a, false
	case strings.HasPrefix(text[j:], "=="), strings.HasPrefix(text[j:], "!="), strings.HasPrefix(text[j:], "://"), strings.HasPrefix(text[j:], "::"):
		return a, false
	case strings.HasPrefix(text[j:], ":="), strings.HasPrefix(text[j:], "=>"), strings.HasPrefix(text[j:], "->"):
		j += 2
	case text[j] == '=' || text[j] == ':':
		j++
	case text[j] == '>' && ns > 0 && text[ns-1] == '<':
		xml = true
		j++
	case text[j] == ',' && keyQuoted:
		j++
	case j > i && text[j] != '\n' && text[j] != '\r':
		a.wsSep = true
	default:
		return a, false
	}
	j = skipBlanks(text, j, 16)
	if j >= n {
		return a, false
	}
	q := text[j]
	if q == '"' || q == '\'' || q == '`' {
		a.quoted = true
		j++
		k := j
		for k < n && k-j < 512 && text[k] != q && text[k] != '\n' {
			if text[k] == '\\' && k+1 < n && text[k+1] != '\n' {
				k++
			}
			k++
		}
		if k >= n || text[k] != q {
			return a, false
		}
		a.valStart, a.valEnd = j, k
		return a, k > j
	}
	k := j
	for k < n && k-j < 512 {
		c := text[k]
		if c <= ' ' || c == ';' || c == ',' || c == ')' || c == ']' || c == '}' || c == '"' || c == '\'' || c == '<' || c == '&' || c == '(' || c == '[' {
			break
		}
		if xml && c == '<' {
			break
		}
		k++
	}
	// A value followed by a call or index is an expression, not a literal.
	if k < n && (text[k] == '(' || text[k] == '[') {
		return a, false
	}
	a.valStart, a.valEnd = j, k
	return a, k > j
}

func skipBlanks(text string, i, max int) int {
	for k := 0; i < len(text) && k < max && (text[i] == ' ' || text[i] == '\t'); k++ {
		i++
	}
	return i
}

// nameWords splits an identifier into lower-case words at _, -, . and
// lower-to-upper case changes: "dbPassword" -> [db password].
func nameWords(name string) []string {
	var words []string
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, strings.ToLower(name[start:end]))
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '-' || c == '.' {
			flush(i)
			start = i + 1
			continue
		}
		if i > start && c >= 'A' && c <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z' {
			flush(i)
			start = i
		}
	}
	flush(len(name))
	return words
}

// deniedLastWords, as the last word of a name, make it describe something
// other than the credential itself (its id, file, url, length, ...).
var deniedLastWords = map[string]bool{
	"id": true, "ids": true, "url": true, "uri": true, "endpoint": true, "path": true, "file": true,
	"filename": true, "dir": true, "name": true, "type": true, "length": true, "len": true, "size": true,
	"count": true, "prefix": true, "suffix": true, "format": true, "version": true, "header": true,
	"field": true, "hash": true, "algorithm": true, "alg": true, "enabled": true, "required": true,
	"min": true, "max": true, "limit": true, "regex": true, "pattern": true, "label": true, "hint": true,
	"placeholder": true, "description": true, "ttl": true, "timeout": true, "expiry": true,
	"expires": true, "expiration": true, "ref": true, "source": true, "policy": true, "rotation": true,
	"mode": true, "index": true, "schema": true, "table": true, "column": true, "event": true,
	"cache": true, "provider": true, "manager": true, "reset": true, "confirmation": true, "input": true,
	"form": true, "validation": true, "strength": true, "env": true, "var": true, "variable": true,
	"location": true, "store": true, "method": true, "usage": true, "secrets": true, "keys": true,
	"tokens": true, "passwords": true, "query": true, "param": true, "params": true, "arn": true,
	"at": true, "on": true, "by": true, "set": true, "changed": true, "updated": true, "created": true,
	"class": true, "kind": true, "spec": true, "template": true, "selector": true, "hashed": true,
	"digest": true, "checksum": true, "sha": true, "sha1": true, "sha256": true, "md5": true,
}

// deniedWords anywhere in a name make it a non-secret.
var deniedWords = map[string]bool{
	"public": true, "pub": true, "publishable": true, "publickey": true, "keyboard": true, "keyword": true,
	"keywords": true, "monkey": true, "donkey": true, "turkey": true, "hockey": true, "jockey": true,
	"keystore": true, "keychain": true, "keyring": true, "keyspace": true, "keypair": true, "keycode": true,
	"tokenizer": true, "tokenize": true, "csrf": true, "xsrf": true, "author": true, "authors": true,
	"authority": true, "authorization_endpoint": true, "passport": true, "bypass": true, "compass": true,
	"passthrough": true, "passenger": true, "passive": true, "encrypted": true, "sort": true, "primary": true,
	"foreign": true, "partition": true, "idempotency": true, "cache_key": true, "i18n": true,
	"translation": true, "lookup": true, "map": true, "hotkey": true, "shortcut": true, "next": true,
	"page": true, "pagination": true, "cursor": true, "continuation": true, "sync": true,
}

var passwordWords = map[string]bool{"password": true, "passwd": true, "pwd": true, "pass": true,
	"passphrase": true, "pw": true, "pword": true, "passwort": true, "contrasena": true}

var keyCompounds = map[string]bool{"apikey": true, "accesskey": true, "secretkey": true, "privatekey": true,
	"authkey": true, "appkey": true, "masterkey": true, "signingkey": true, "licensekey": true,
	"encryptionkey": true, "clientkey": true, "servicekey": true, "accountkey": true, "adminkey": true,
	"serverkey": true, "subscriptionkey": true, "consumerkey": true, "accesskeyid": false, "restkey": true,
	"developerkey": true, "devkey": true, "userkey": true, "webhookkey": true, "hmackey": true}

var keyQualifiers = map[string]bool{"api": true, "access": true, "secret": true, "private": true,
	"auth": true, "app": true, "master": true, "signing": true, "license": true, "encryption": true,
	"client": true, "service": true, "account": true, "admin": true, "server": true, "subscription": true,
	"consumer": true, "rest": true, "developer": true, "dev": true, "user": true, "webhook": true,
	"hmac": true, "x": true, "storage": true, "shared": true, "session": true, "jwt": true, "crypto": true}

// classifyName reports whether the identifier names a credential of class
// c, and whether the name alone is strong evidence (e.g. "api_key" rather
// than a bare "key").
func classifyName(name string, c assignClass) (ok, strong bool) {
	words := nameWords(name)
	if len(words) == 0 || len(words) > 10 {
		return false, false
	}
	for _, w := range words {
		if deniedWords[w] {
			return false, false
		}
	}
	if deniedLastWords[words[len(words)-1]] {
		return false, false
	}
	for i, w := range words {
		switch c {
		case assignPassword:
			if passwordWords[w] || strings.HasSuffix(w, "password") || strings.HasSuffix(w, "passwd") || strings.HasSuffix(w, "passphrase") {
				return true, true
			}
		case assignSecret:
			if w == "secret" || (strings.HasSuffix(w, "secret") && len(w) > 6) {
				return true, true
			}
		case assignToken:
			if w == "token" || (strings.HasSuffix(w, "token") && len(w) > 5) {
				return true, true
			}
		case assignAPIKey:
			if w == "apikey" || keyCompounds[w] {
				return true, true
			}
			if w == "key" {
				if i > 0 && keyQualifiers[words[i-1]] {
					return true, true
				}
				return true, false
			}
			if strings.HasSuffix(w, "key") && len(w) > 6 {
				return true, false // vendor-prefixed: "scrapingantkey"
			}
		case assignCredential:
			if w == "credential" || w == "credentials" || w == "creds" || w == "cred" || w == "auth" || w == "authkey" {
				return true, false
			}
		}
	}
	return false, false
}

var nonValues = map[string]bool{"true": true, "false": true, "null": true, "nil": true, "none": true,
	"undefined": true, "yes": true, "no": true, "on": true, "off": true, "required": true, "optional": true,
	"string": true, "str": true, "int": true, "bool": true, "boolean": true, "object": true, "any": true,
	"secret": true, "password": true, "token": true, "bearer": true, "basic": true, "self": true, "this": true}

// genericValueOK filters the value of a generic assignment. Passwords
// have a lower bar (weak human passwords are still leaks); keys, tokens and
// secrets must look machine-generated.
func genericValueOK(a assignment, text string, c assignClass, strongName bool) (float64, bool) {
	v := text[a.valStart:a.valEnd]
	lv := strings.ToLower(v)
	if len(v) < 6 || len(v) > 512 || nonValues[lv] || isPlaceholder(v) || isVersion(v) {
		return 0, false
	}
	switch v[0] {
	case '$', '%', '@', '!', '&', '*', '#', '{', '[', '(', '/', '.', '~', '-':
		if c != assignPassword || !a.quoted || v[0] == '$' || v[0] == '{' {
			return 0, false
		}
	}
	if strings.Contains(v, "://") {
		return 0, false // URLs are handled by the URL rules
	}
	if isUUID(v) {
		return 0, false
	}
	lower, upper, digit, other := charClasses(v)
	h := shannon(v)
	// Identifier-like: letters, '_' and '.' only, e.g. "config.dbPassword".
	if !digit && !a.quoted && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.") == "" {
		return 0, false
	}
	if strings.Count(v, " ") > 0 {
		return 0, false
	}
	if c == assignPassword {
		if len(v) < 6 || h < 2.0 {
			return 0, false
		}
		if !digit && !other && !(lower && upper) {
			return 0, false // a single lower- or upper-case word
		}
		if a.wsSep && (len(v) < 12 || !digit) {
			return 0, false
		}
		return h, true
	}
	minLen := 12
	if !strongName {
		minLen = 16
	}
	if a.wsSep {
		minLen = 16
	}
	if len(v) < minLen || h < 3.0 {
		return 0, false
	}
	if !(digit && (lower || upper)) && !(len(v) >= 20 && lower && upper && h >= 3.8) {
		return 0, false
	}
	// A long value with only hex digits and a hashy name was filtered by
	// the name; a dotted path or file name is not a secret.
	if strings.Count(v, ".") >= 1 && !strings.ContainsAny(v, "0123456789") {
		return 0, false
	}
	if strings.HasSuffix(lv, ".json") || strings.HasSuffix(lv, ".pem") || strings.HasSuffix(lv, ".key") || strings.HasSuffix(lv, ".txt") {
		return 0, false
	}
	return h, true
}
