// The value filter of the generic assignment rules.

package secretscan

import "strings"

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
