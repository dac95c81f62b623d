// The name lexicon: which identifiers name a credential of each class of
// generic rule, and which name something about one (its id, file, length).

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
				// weak name (the value rules then want a quoted value).
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
