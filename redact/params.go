package redact

import (
	"strings"

	"github.com/warden-mcp/warden/privacy"
)

// Named parameters: the fields of a form, a JSON object or a multipart
// body, whose names say what they hold. A field whose name means a
// credential is a credential, whatever its value looks like: KeySweep
// finds strong secrets by their shape, but password=hunter2 is a
// password too.

// CredentialMarker replaces the value of a field whose name means a
// credential.
const CredentialMarker = "[REDACTED:credential]"

// credentialWords are the parts of a field name that mean a credential,
// matched anywhere in the lower-cased name; credentialNames the names
// that do only as a whole word (between separators, or alone): "pin" is a
// credential, "spinner" is not.
var (
	credentialWords = []string{"passw", "pwd", "passphrase", "secret", "token", "apikey", "api_key", "api-key",
		"accesskey", "access_key", "privatekey", "private_key", "credential", "session", "csrf", "xsrf", "jwt",
		"bearer", "signature", "cookie", "mfa", "2fa"}
	credentialNames = map[string]bool{"pass": true, "pin": true, "otp": true, "key": true, "auth": true, "sid": true,
		"totp": true, "cvv": true, "cvc": true, "ssn": true}
)

// CredentialName reports whether a form, JSON or multipart field name
// means a credential: it holds passw, pwd, passphrase, secret, token,
// apikey, api_key, accesskey, privatekey, credential, session, csrf,
// xsrf, jwt, bearer, signature, cookie, mfa or 2fa, or one of its words
// (split at anything but letters and digits, and at lower-to-upper case
// changes) is pass, pin, otp, totp, key, auth, sid, cvv, cvc or ssn.
// "password", "api_key", "X-CSRF-Token", "userPin" and "key" do;
// "author", "keyboard", "spinner" and "next" do not.
func CredentialName(name string) bool {
	lower := strings.ToLower(name)
	for _, w := range credentialWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	start := 0
	for i := 0; i <= len(name); i++ {
		boundary := i == len(name) || !isLetter(name[i]) && !isDigit(name[i]) ||
			i > 0 && name[i] >= 'A' && name[i] <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z'
		if !boundary {
			continue
		}
		if i > start && credentialNames[lower[start:i]] {
			return true
		}
		start = i
		if i < len(name) && !isLetter(name[i]) && !isDigit(name[i]) {
			start = i + 1
		}
	}
	return false
}

// CredentialMembers replaces, in Balanced and Strict, the string value of
// every member of a JSON document whose name means a credential
// (CredentialName) by CredentialMarker, at any depth; everything else is
// kept byte for byte. It returns doc itself when it changes nothing, in
// Off, and when doc is not valid JSON.
func (r *Redactor) CredentialMembers(doc []byte) []byte {
	if r.mode == Off || len(doc) == 0 {
		return doc
	}
	sc := r.pool.get()
	defer r.pool.put(sc)
	tz := &sc.tz
	tz.src, tz.maxStrings = doc, r.maxStrings
	if err := tz.run(); err != nil {
		return doc
	}
	sc.cuts = sc.cuts[:0]
	for i := range tz.toks {
		t := &tz.toks[i]
		if t.flags&fMember == 0 || t.v1 == t.v0 || !CredentialName(string(tz.value(&tz.toks[i-1]))) {
			continue
		}
		sc.cuts = append(sc.cuts, cut{tok: int32(i), start: 0, end: t.v1 - t.v0, typ: privacy.Credential})
	}
	if len(sc.cuts) == 0 {
		return doc
	}
	return r.rewrite(sc)
}
