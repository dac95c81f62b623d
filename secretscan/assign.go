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
	compare            bool // compared with ==/!= or stated in prose ("is")
	embedded           bool // value glued to the name: "vendor-secret-<value>"
	commaSep           bool // ("NAME", "value") argument pair
	tight              bool // NAME=value with no blanks around "=" (.env, INI)
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
	if ns > 0 && text[ns-1] == '/' {
		return a, false // a path component: /etc/passwd
	}
	// A value glued to the name: "vendor-secret-<value>", "vendorPRIVATE.<value>".
	p := ke
	for p < ne && (text[p] >= 'a' && text[p] <= 'z' || text[p] >= 'A' && text[p] <= 'Z') {
		p++
	}
	if p < ne && (text[p] == '-' || text[p] == '.') && ne-(p+1) >= 16 {
		rest := text[p+1 : ne]
		if _, _, digit, _ := charClasses(rest); digit {
			a.nameEnd = p
			a.valStart, a.valEnd = p+1, ne
			a.wsSep, a.embedded = true, true
			return a, true
		}
	}
	i := ne
	keyQuoted := false
	if q, w := quoteAt(text, i); w > 0 {
		// closing quote of "name", \"name\" (JSON inside a string) or ['name']
		if q2, w2 := quoteBefore(text, ns); w2 == w && q2 == q {
			keyQuoted = true
		}
		i += w
	}
	if i < n && text[i] == ']' {
		i++
	}
	j := skipBlanks(text, i, 16)
	xml := false
	compare := false
	switch {
	case j >= n:
		return a, false
	case strings.HasPrefix(text[j:], "==="), strings.HasPrefix(text[j:], "!=="):
		j += 3
		compare = true
	case strings.HasPrefix(text[j:], "=="), strings.HasPrefix(text[j:], "!="):
		j += 2
		compare = true
	case strings.HasPrefix(text[j:], "://"), strings.HasPrefix(text[j:], "::"):
		return a, false
	case j > i && (strings.HasPrefix(text[j:], "is ") || strings.HasPrefix(text[j:], "is:")):
		j += 2
		compare = true // prose: "the password is 'x'"
	case strings.HasPrefix(text[j:], ":="), strings.HasPrefix(text[j:], "=>"), strings.HasPrefix(text[j:], "->"):
		j += 2
	case text[j] == '=' || text[j] == ':':
		a.tight = j == ne && text[j] == '=' && j+1 < n && text[j+1] != ' ' && text[j+1] != '\t'
		j++
	case text[j] == '>' && ns > 0 && text[ns-1] == '<':
		xml = true
		j++
	case text[j] == ',' && keyQuoted && argumentStart(text, ns):
		a.commaSep = true
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
	q, qw := quoteAt(text, j)
	if (compare || a.commaSep) && qw == 0 {
		return a, false // comparisons, prose and argument pairs count only with a literal
	}
	a.compare = compare
	// "Password:" at the end of a string literal: the quote after the
	// separator closes the literal the name is in.
	if qw > 0 && !keyQuoted {
		if q2, w2 := quoteBefore(text, ns); w2 == qw && q2 == q {
			return a, false
		}
	}
	if qw > 0 {
		a.quoted = true
		j += qw
		k := j
		for k < n && k-j < 512 && text[k] != '\n' {
			if q2, w2 := quoteAt(text, k); w2 == qw && q2 == q {
				break
			}
			if qw == 1 && text[k] == '\\' && k+1 < n && text[k+1] != '\n' {
				k++
			}
			k++
		}
		if k >= n || text[k] == '\n' || k-j >= 512 {
			return a, false
		}
		a.valStart, a.valEnd = j, k
		return a, k > j
	}
	k := j
	for k < n && k-j < 512 {
		c := text[k]
		if c == '&' && queryParamAt(text, k+1) {
			break // "?password=x&user=y"
		}
		if c == ';' && k > j && semicolonEnds(text, k) {
			break // "x; y" statement end, "Password=x;Database=y" field end
		}
		if c <= ' ' || c == ',' || c == ')' || c == ']' || c == '}' || c == '"' || c == '\'' || c == '`' || c == '<' || c == '(' || c == '[' || c == '{' {
			break
		}
		if xml && c == '<' {
			break
		}
		k++
	}
	// A value followed by a call, index or composite literal is an
	// expression, not a literal.
	if k < n && (text[k] == '(' || text[k] == '[' || text[k] == '{') {
		return a, false
	}
	a.valStart, a.valEnd = j, k
	return a, k > j
}

// argumentStart reports whether the quoted name whose text starts at ns
// opens an argument ("f('password', 'x')", "['token', 'x']") rather than
// being the value of something else ("type: 'password', value: x").
func argumentStart(text string, ns int) bool {
	p := ns
	if p > 0 && (text[p-1] == '"' || text[p-1] == '\'' || text[p-1] == '`') {
		p--
	}
	for p > 0 && (text[p-1] == ' ' || text[p-1] == '\t') {
		p--
	}
	return p > 0 && (text[p-1] == '(' || text[p-1] == '[' || text[p-1] == ',' || text[p-1] == '{')
}

// quoteAt reports the quote character at text[i] and the width of the
// quote token: 1 for a plain quote, more for one escaped by a run of
// backslashes (\" inside a string literal, \\\" two levels deep). Width 0:
// no quote at i.
func quoteAt(text string, i int) (byte, int) {
	k := i
	for k < len(text) && k-i < 8 && text[k] == '\\' {
		k++
	}
	if k < len(text) && (text[k] == '"' || text[k] == '\'' || text[k] == '`' && k == i) {
		return text[k], k - i + 1
	}
	return 0, 0
}

// quoteBefore is quoteAt for the quote token that ends just before end.
func quoteBefore(text string, end int) (byte, int) {
	if end == 0 {
		return 0, 0
	}
	q := text[end-1]
	if q != '"' && q != '\'' && q != '`' {
		return 0, 0
	}
	k := end - 1
	for k > 0 && end-1-k < 8 && text[k-1] == '\\' {
		k--
	}
	return q, end - k
}

// semicolonEnds reports whether the ';' at text[k] ends an unquoted
// value: it does before blanks or the end of the line, and before another
// "name=" field; inside a token ("j6u;5i7VLi") it is part of the value.
func semicolonEnds(text string, k int) bool {
	for i := k + 1; i < len(text) && i-k < 256; i++ {
		switch text[i] {
		case ' ', '\t', '\n', '\r':
			return i == k+1
		case '=':
			return true
		}
	}
	return true
}

// queryParamAt reports whether text[i:] starts with "name=" (a URL
// query parameter after '&').
func queryParamAt(text string, i int) bool {
	k := i
	for k < len(text) && k-i < 64 && (isAlnum(text[k]) || text[k] == '_' || text[k] == '-' || text[k] == '.') {
		k++
	}
	return k > i && k < len(text) && text[k] == '='
}

func skipBlanks(text string, i, max int) int {
	for k := 0; i < len(text) && k < max && (text[i] == ' ' || text[i] == '\t'); k++ {
		i++
	}
	return i
}

// maxNameWords bounds the words of an identifier that classifyName reads.
const maxNameWords = 10

// nameWords splits an identifier into lower-case words at _, -, . and
// lower-to-upper case changes ("dbPassword" -> [db password]) into buf,
// returning how many it wrote (-1 when there are more than maxNameWords).
// The words are slices of one lower-cased copy of name.
func nameWords(name string, buf *[maxNameWords]string) int {
	lname := strings.ToLower(name) // no allocation when already lower case
	n, start := 0, 0
	flush := func(end int) bool {
		if end > start {
			if n == maxNameWords {
				return false
			}
			buf[n] = lname[start:end]
			n++
		}
		return true
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '-' || c == '.' {
			if !flush(i) {
				return -1
			}
			start = i + 1
			continue
		}
		if i > start && c >= 'A' && c <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z' {
			if !flush(i) {
				return -1
			}
			start = i
		}
	}
	if !flush(len(name)) {
		return -1
	}
	return n
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

// passQualifiers are the words that make a trailing "pass" mean password.
var passQualifiers = map[string]bool{"db": true, "smtp": true, "user": true, "admin": true, "root": true,
	"mysql": true, "redis": true, "ftp": true, "sftp": true, "ldap": true, "mail": true, "proxy": true,
	"app": true, "api": true, "basic": true, "auth": true, "login": true, "sql": true, "pg": true,
	"postgres": true, "mongo": true, "amqp": true, "rabbitmq": true, "vpn": true, "wifi": true,
	"keystore": true, "ssl": true, "tls": true, "jks": true, "p12": true, "imap": true, "pop": true,
	"database": true, "service": true, "account": true, "default": true, "master": true, "bind": true}

var passwordWords = map[string]bool{"password": true, "passwd": true, "pwd": true,
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
	var buf [maxNameWords]string
	nw := nameWords(name, &buf)
	if nw <= 0 {
		return false, false
	}
	words := buf[:nw]
	for _, w := range words {
		if deniedWords[w] {
			return false, false
		}
	}
	if last := strings.TrimRight(words[len(words)-1], "0123456789"); deniedLastWords[last] {
		return false, false // also "keySize768"
	}
	for i, w := range words {
		switch c {
		case assignPassword:
			if w == "pass" {
				// "pass" is ambiguous ("--- PASS:", renderPass): db_pass,
				// SMTP_PASS and the like name a password; a bare PASS is a
				// weak name (genericValueOK then wants a quoted value).
				if i > 0 && passQualifiers[words[i-1]] && i == len(words)-1 {
					return true, true
				}
				if len(words) == 1 {
					return true, false
				}
				continue
			}
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
				if !aboutKey(words, i) {
					return true, false
				}
				continue // "KeyAlgoECDSA256", "KEY_CACHE_SECONDS": about a key, not one
			}
			if strings.HasSuffix(w, "key") && len(w) > 6 && !aboutKey(words, i) {
				return true, false // vendor-prefixed: "scrapingantkey"
			}
			if w == "access" || w == "private" || strings.HasSuffix(w, "access") || strings.HasSuffix(w, "private") {
				return true, false // "vendor ACCESS <value>", "vendorPRIVATE <value>"
			}
		case assignCredential:
			if w == "credential" || w == "credentials" || w == "creds" || w == "cred" || w == "auth" || w == "authkey" {
				return true, false
			}
		}
	}
	return false, false
}

// aboutKeyWords, after "key" in a name, make the name describe something
// about a key (its algorithm, check, cache, exchange) rather than hold one;
// other words after it (FIREBASE_KEY_JSON, KEY_MATERIAL, MAPS_KEY_ANDROID)
// do not.
var aboutKeyWords = map[string]bool{"algo": true, "algorithm": true, "algorithms": true,
	"exchange": true, "check": true, "agree": true, "trans": true, "func": true, "blob": true,
	"options": true, "option": true, "property": true, "conversion": true, "pair": true,
	"ring": true, "bits": true, "info": true, "mgmt": true, "management": true, "metadata": true,
	"meta": true, "auth": true, "thumbprint": true, "fingerprint": true, "pub": true,
	"curve": true, "derivation": true, "wrap": true, "wrapping": true, "schedule": true,
	"seconds": true, "interval": true, "purge": true, "lifetime": true, "items": true,
	"code": true, "codes": true, "press": true, "down": true, "up": true, "event": true,
	"handler": true, "listener": true, "map": true, "mapping": true, "binding": true,
	"bindings": true, "values": true, "list": true, "set": true, "const": true,
	"constant": true, "magic": true, "mode": true, "error": true, "errors": true, "exists": true,
	"missing": true, "not": true, "found": true, "invalid": true, "usage": true, "use": true,
	"string": true, "str": true, "bag": true, "meshing": true, "agreement": true, "encipherment": true,
	"identifier": true, "ident": true, "cbc": true, "ecb": true, "gcm": true, "des": true, "hint": true}

// aboutKey reports whether a word after words[i] ("key") makes the name
// describe a key rather than hold one.
func aboutKey(words []string, i int) bool {
	for _, w := range words[i+1:] {
		w = strings.TrimRight(w, "0123456789")
		if aboutKeyWords[w] || deniedLastWords[w] {
			return true
		}
	}
	return false
}

var nonValues = map[string]bool{"true": true, "false": true, "null": true, "nil": true, "none": true,
	"undefined": true, "yes": true, "no": true, "on": true, "off": true, "required": true, "optional": true,
	"string": true, "str": true, "int": true, "bool": true, "boolean": true, "object": true, "any": true,
	"secret": true, "password": true, "token": true, "bearer": true, "basic": true, "self": true, "this": true}

// genericValueOK filters the value of a generic assignment. Passwords
// (and quoted secrets) have a lower bar, since weak human-chosen values are
// still leaks; keys and tokens must look machine-generated.
func genericValueOK(a assignment, text string, c assignClass, strongName bool) (float64, bool) {
	v := text[a.valStart:a.valEnd]
	if len(v) < 6 || len(v) > 512 {
		return 0, false
	}
	if a.wsSep && c == assignAPIKey {
		switch text[a.nameStart:a.nameEnd] {
		case "private", "access", "protected":
			return 0, false // a declaration: "private _authorizationServerUrl?;"
		}
	}
	if c != assignPassword && describesCredential(v) {
		return 0, false // "my-idp-secret", "client_secret_basic": words about a credential
	}
	if !a.quoted && !a.tight && (comparison(v) || strings.Contains(v, "&&") || strings.Contains(v, "||") || strings.Contains(v, "=>")) {
		return 0, false // an expression: "e===401?..." (NAME=value lines are literals)
	}
	if a.wsSep && strings.IndexByte(v, '\\') >= 0 {
		return 0, false // words of a string with escapes: "KEY column\x00Cannot"
	}
	if fileName(v) && (c != assignPassword || !strings.ContainsAny(v, "0123456789")) || sourceFileName(text[a.nameStart:a.nameEnd]) {
		return 0, false // "fgetspent.c"; "pwd.h:108:1:"
	}
	if c != assignPassword && camelIdentifier(v) && (!a.quoted && !a.tight || a.compare || camelNamesCredential(v)) {
		return 0, false // a code reference: "ClientCapabilities2026Schema", "SmartCardAssociatedECDHKey"
	}
	if !a.quoted && !a.tight && numberLiteral(v) && (c != assignPassword || v[0] == '-' || constDeclaration(text, a.nameStart)) {
		return 0, false // a constant: "-2146893773", "LOGON_ZERO_PASSWORD_BUFFER = 2147483648"
	}
	if structTag(v) || strings.HasPrefix(v, "urn:") {
		return 0, false // json:"token,omitempty"; urn:ietf:params:oauth:token-type:jwt
	}
	if c != assignPassword && (registryPath(v) || !a.quoted && !a.tight && memberTimesNumber(v)) {
		return 0, false // a Windows path ("Software\\Policies"), an expression ("map.pc*1024")
	}
	if i := strings.LastIndexByte(v, '.'); i > 0 && qualifiedName(v) && namesCredential(v[i+1:]) && (!a.tight || lowerWord(v[:strings.IndexByte(v, '.')])) {
		return 0, false // a reference, in minified code even as NAME=value: "this._password=s._password"
	}
	if c == assignPassword && (indexFold(v, "password") >= 0 || indexFold(v, "passwd") >= 0) && (constantName(v) || strings.Count(v, ".") >= 2) {
		return 0, false // "PCP_CHANGEPASSWORD", "com.lyndir.masterpassword": names about a password
	}
	switch v[0] {
	case '#', '.':
		// A comment or a path when unquoted; a CSS selector ("#id",
		// ".class") when quoted unless it has a digit like a password.
		// A tight NAME=value (.env, INI) counts as quoted here.
		if c != assignPassword || !a.quoted && !a.tight || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.IndexAny(v, "0123456789") < 0 {
			return 0, false
		}
	case '/', '{', '[', '(', '<', '$':
		return 0, false // path, template, reference
	case '%', '~', '@', '&', '*', '!', ';', '?':
		// A password may start with a symbol; a reference, path, YAML tag
		// or anchor may too: "%APPDATA%", "~/.key", "!vault", "&default".
		if c != assignPassword || !symbolLeadOK(v) {
			return 0, false
		}
	}
	// A password set beside a user name ("user = alice" / "password =
	// open_sesame") is a login even when the value is a bare word or a
	// short passphrase; alone, such a value reads as a variable or prose.
	// Looked up only for values that need it: it reads up to 400 bytes.
	login := func() bool { return c == assignPassword && strongName && userAssignedNear(text, a.nameStart) }
	if strings.IndexByte(v, ' ') >= 0 && !(a.quoted && passphrase(v) && login()) {
		return 0, false
	}
	// Cheap structural rejections first; the placeholder automaton and
	// the entropy come last.
	if !a.quoted && !a.tight && !a.embedded && (qualifiedName(v) && (c != assignPassword || !strings.ContainsAny(v, "0123456789")) || namesCredential(v)) {
		return 0, false // a variable or field reference: asn1.ObjectIdentifier, testRSAPrivateKey
	}
	if hostOrPath(v) || isVersion(v) {
		return 0, false
	}
	lv := strings.ToLower(v)
	if nonValues[lv] && !(c == assignPassword && lv == "secret") || knownTestValues[v] || isPlaceholder(v) {
		return 0, false
	}
	if c != assignPassword && placeholderWords[lv] || lv == "secret" {
		return 0, false
	}
	if c == assignPassword && (placeholderWords[lv] && lv != "secret" || strings.HasPrefix(lv, "password")) {
		return 0, false
	}
	if strings.HasPrefix(lv, "arn:") || strings.Contains(v, "://") {
		return 0, false // ARNs and URLs are not secrets (URL rules handle credentials)
	}
	name := strings.ToLower(text[a.nameStart:a.nameEnd])
	if lv == name || len(name) >= 10 && strings.Contains(lv, name) || len(lv) >= 6 && strings.Contains(name, lv) {
		return 0, false // value repeats its own name, or a part of it ("PGSSLPASSWORD": "sslpassword")
	}
	if namesAWSSecretKey(name) && !awsSecretShape(v) {
		return 0, false // the name fixes the format, and the value is not of it
	}
	if strings.HasSuffix(v, "NRAL") && !newRelicLicenseShape(v) {
		return 0, false // New Relic's suffix fixes the format: "a1b2c3...NRAL" is a stand-in
	}
	lower, upper, digit, other := charClasses(v)
	h := shannon(v)
	lettersOnly := !digit && !other
	if strings.ContainsRune(v, '/') && !digit && !upper {
		return 0, false // a path
	}
	if isUUID(v) {
		// Many APIs issue UUID keys and tokens; a UUID under a plain
		// identifier name (request_id, trace_id) never gets here.
		if !(strongName || c == assignAPIKey) || c == assignCredential || a.wsSep {
			return 0, false
		}
		return h, true
	}
	// Identifier-like: letters, '_' and '.' only, e.g. "config.dbPassword".
	if !digit && !a.quoted && !a.tight && lettersDotsUnderscores(v) && !login() {
		return 0, false
	}
	if c != assignPassword && !a.quoted {
		if i := strings.IndexByte(v, '='); i >= 0 && strings.Trim(v[i:], "=") != "" && strings.IndexByte(v, '/') >= 0 {
			return 0, false // "Key=mediumType/Elem=int32": more assignments, not a value
		}
	}
	if a.commaSep && !strongName {
		return 0, false // ("pass", "host") argument lists need an unambiguous name
	}
	if c == assignPassword || (c == assignSecret && a.quoted && (digit || other)) {
		if h < 1.5 || c == assignPassword && !strongName && !a.quoted {
			return 0, false
		}
		if a.wsSep && (len(v) < 12 || !digit) {
			return 0, false
		}
		if a.commaSep && lettersOnly {
			return 0, false // {"password", "publickey"}: a list of words, not a login
		}
		if lettersOnly && !a.quoted && !a.tight && !(lower && upper) && !login() {
			return 0, false
		}
		return h, true
	}
	minLen := 12
	if !strongName || a.wsSep {
		minLen = 16
	}
	if len(v) < minLen || h < 3.0 {
		return 0, false
	}
	switch {
	case digit && (lower || upper):
	case len(v) >= 20 && h >= 4.0:
	case len(v) >= 20 && lower && upper && h >= 3.8:
	default:
		return 0, false
	}
	if identifierLike(v, h) {
		return 0, false
	}
	if strings.Count(v, ".") >= 1 && !digit {
		return 0, false
	}
	if strings.HasSuffix(lv, ".json") || strings.HasSuffix(lv, ".pem") || strings.HasSuffix(lv, ".key") || strings.HasSuffix(lv, ".txt") {
		return 0, false
	}
	return h, true
}

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

// credentialWords name a credential, as one word of an identifier.
var credentialWords = [...]string{"key", "keys", "secret", "token", "password", "passwd", "pwd", "credential", "credentials", "apikey"}

// credentialWord reports whether w is one of credentialWords, ignoring
// case.
func credentialWord(w string) bool {
	for _, c := range credentialWords {
		if strings.EqualFold(w, c) {
			return true
		}
	}
	return false
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

// constDeclaration reports whether the line holding text[nameStart]
// declares a constant: it starts with const, #define or var.
func constDeclaration(text string, nameStart int) bool {
	ls := strings.LastIndexByte(text[:nameStart], '\n') + 1
	line := strings.TrimLeft(text[ls:nameStart], " \t")
	return strings.HasPrefix(line, "const ") || strings.HasPrefix(line, "#define ") || strings.HasPrefix(line, "# define ") || strings.HasPrefix(line, "var ")
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
func hasVowel(w string) bool { return strings.IndexAny(w, "aeiouy") >= 0 }

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

// eachWord calls fn with the words of an identifier (split like
// nameWords, original case, no allocation) until fn returns false.
func eachWord(name string, fn func(string) bool) {
	start := 0
	for i := 0; i <= len(name); i++ {
		split := i == len(name)
		if !split {
			c := name[i]
			if c == '_' || c == '-' || c == '.' {
				split = true
			} else if i > start && c >= 'A' && c <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z' {
				if !fn(name[start:i]) {
					return
				}
				start = i
				continue
			}
		}
		if split {
			if i > start && !fn(name[start:i]) {
				return
			}
			start = i + 1
		}
	}
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

// namesAWSSecretKey reports whether a lower-cased name is that of an AWS
// secret access key (AWS_SECRET_ACCESS_KEY, aws_secret_key,
// secret_access_key), whose format is fixed: 40 characters of base64.
func namesAWSSecretKey(name string) bool {
	var buf [160]byte
	n := buf[:0]
	for i := 0; i < len(name) && len(n) < len(buf); i++ {
		if c := name[i]; c != '_' && c != '-' && c != '.' {
			n = append(n, c)
		}
	}
	return indexFold(string(n), "secretaccesskey") >= 0 || indexFold(string(n), "awssecret") >= 0
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

// nonSecretLastWords, besides deniedLastWords, end names that hold a
// vendor's public identifiers rather than its credentials.
var nonSecretLastWords = map[string]bool{"domain": true, "subdomain": true, "host": true,
	"hostname": true, "region": true, "org": true, "organization": true, "tenant": true,
	"email": true, "username": true, "user": true, "project": true, "workspace": true}

// namesNonSecret reports whether the identifier holding the keyword at
// text[ks:ke] is a name whose last word says it holds something other
// than a credential: "AUTH0_CLIENT_ID", "okta_domain", "sentryUrl". A
// keyword that is not part of a name (prose, a URL) says nothing.
func namesNonSecret(text string, ks, ke int) bool {
	ns, ne := ks, ke
	for ns > 0 && ks-ns < 64 && isNameByte(text[ns-1]) && text[ns-1] != '.' {
		ns--
	}
	for ne < len(text) && ne-ke < 64 && isNameByte(text[ne]) && text[ne] != '.' {
		ne++
	}
	if ne == ke {
		return false // the keyword ends the name: "auth0 = ...", "Okta: ..."
	}
	var buf [maxNameWords]string
	nw := nameWords(text[ns:ne], &buf)
	if nw < 2 {
		return false
	}
	last := strings.TrimRight(buf[nw-1], "0123456789")
	return deniedLastWords[last] || nonSecretLastWords[last]
}

// nearbyStart returns where the text near pos begins: the start of pos's
// line or of one of the three lines before it, at most 400 bytes back.
func nearbyStart(text string, pos int) int {
	start := pos
	for lines := 0; start > 0 && pos-start < 400; start-- {
		if text[start-1] == '\n' {
			if lines++; lines > 3 {
				break
			}
		}
	}
	return start
}

// anonymousLogin reports whether the user set on the password's line or
// on one of the three lines before it is "anonymous": the password of an
// anonymous (FTP) login is by convention an e-mail address or any word,
// not a secret (RFC 1635).
func anonymousLogin(text string, nameStart int) bool {
	start := nearbyStart(text, nameStart)
	region := text[start:nameStart]
	for {
		i := indexFold(region, "anonymous")
		if i < 0 {
			return false
		}
		ls := strings.LastIndexByte(region[:i], '\n') + 1
		if before := region[ls:i]; indexFold(before, "user") >= 0 || indexFold(before, "login") >= 0 {
			return true
		}
		region = region[i+len("anonymous"):]
	}
}

// userAssignedNear reports whether a user name is assigned on the
// password's line, before it, or on one of the three lines above:
// "user = alice", "$user = \"mg1021\";", "username: bob".
func userAssignedNear(text string, nameStart int) bool {
	start := nearbyStart(text, nameStart)
	// Backwards from the password, one byte compare per position.
	for i := nameStart - 4; i >= start; i-- {
		if text[i]|0x20 != 'u' || text[i+1]|0x20 != 's' || text[i+2]|0x20 != 'e' || text[i+3]|0x20 != 'r' {
			continue
		}
		if i > 0 && isAlnum(text[i-1]) && !(text[i] == 'U' && text[i-1] >= 'a' && text[i-1] <= 'z') {
			continue // "superuser", "setuser"; "db_user" and "dbUser" name a user
		}
		if !statementStart(text, i) {
			continue // "user=x" inside a connection string or a sentence
		}
		k := i + 4
		if k+4 <= nameStart && strings.EqualFold(text[k:k+4], "name") {
			k += 4
		}
		if k < nameStart && (text[k] == '"' || text[k] == '\'') {
			k++
		}
		for k < nameStart && (text[k] == ' ' || text[k] == '\t') {
			k++
		}
		if k < nameStart && (text[k] == '=' || text[k] == ':') && (k+1 >= len(text) || text[k+1] != '=') {
			return true
		}
	}
	return false
}

// statementStart reports whether the identifier holding text[i] opens a
// statement: first on its line after blanks (and an optional quote, for
// keys such as "user": ..., or export, set, ENV or a YAML dash), or after
// '$', '{', ';' or ','.
func statementStart(text string, i int) bool {
	p := i
	for p > 0 && i-p < 64 && isNameByte(text[p-1]) {
		p--
	}
	if p > 0 && (text[p-1] == '"' || text[p-1] == '\'') {
		p--
	}
	if p > 0 && text[p-1] == '$' {
		return true
	}
	for p > 0 && (text[p-1] == ' ' || text[p-1] == '\t') {
		p--
	}
	// A shell or Dockerfile keyword, or a YAML list dash, may come first.
	for _, kw := range [...]string{"export", "set", "ENV", "declare", "local", "readonly", "-"} {
		if p >= len(kw) && text[p-len(kw):p] == kw && p < i && (p == len(kw) || !isNameByte(text[p-len(kw)-1])) {
			p -= len(kw)
			for p > 0 && (text[p-1] == ' ' || text[p-1] == '\t') {
				p--
			}
			break
		}
	}
	return p == 0 || strings.IndexByte("\n\r{;,", text[p-1]) >= 0
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

// indexFold is strings.Index ignoring ASCII case; sub must be lower case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return i
		}
	}
	return -1
}
