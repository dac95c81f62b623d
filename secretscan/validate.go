package secretscan

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"hash/crc32"
	"strings"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// encodeBase62 writes n in base62, left-padded with '0' to width.
func encodeBase62(n uint32, width int) string {
	b := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		b[i] = base62[n%62]
		n /= 62
	}
	return string(b)
}

// crc32Tail validates tokens whose last six characters are the base62
// CRC32-IEEE of the random body between the prefix and the checksum
// (GitHub ghp_/gho_/ghu_/ghs_/ghr_, npm npm_).
func crc32Tail(prefixLen int) validator {
	return func(secret, _ string) check {
		if len(secret) < prefixLen+7 {
			return checkInvalid
		}
		body := secret[prefixLen : len(secret)-6]
		want := encodeBase62(crc32.ChecksumIEEE([]byte(body)), 6)
		if secret[len(secret)-6:] == want {
			return checkValid
		}
		return checkInvalid
	}
}

// decodeB64Loose decodes standard or URL-safe base64, padded or not.
func decodeB64Loose(s string) ([]byte, bool) {
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		b, err := base64.RawURLEncoding.DecodeString(s)
		return b, err == nil
	}
	b, err := base64.RawStdEncoding.DecodeString(s)
	return b, err == nil
}

// validJWT checks that the header and payload are base64url JSON objects
// and that the header names an algorithm.
func validJWT(secret, _ string) check {
	parts := strings.Split(secret, ".")
	if len(parts) < 2 {
		return checkInvalid
	}
	h, ok := decodeB64Loose(parts[0])
	if !ok {
		return checkInvalid
	}
	var hdr map[string]any
	if json.Unmarshal(h, &hdr) != nil {
		return checkInvalid
	}
	if _, ok := hdr["alg"]; !ok {
		return checkInvalid
	}
	p, ok := decodeB64Loose(parts[1])
	if !ok {
		return checkInvalid
	}
	var pl map[string]any
	if json.Unmarshal(p, &pl) != nil {
		return checkInvalid
	}
	return checkValid
}

// pemBody extracts the base64 body of a PEM block, dropping the armour,
// RFC 1421 headers ("Proc-Type: ..."), whitespace and JSON "\n" escapes.
func pemBody(block string) string {
	block = strings.NewReplacer(`\r`, "\n", `\n`, "\n", `\\n`, "\n").Replace(block)
	var b strings.Builder
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(strings.Trim(line, `"',`))
		if line == "" || strings.HasPrefix(line, "-----") || strings.HasPrefix(line, "----") || strings.Contains(line, ":") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// validPEM checks that the body is base64 of a plausible key size.
func validPEM(_, match string) check {
	body := pemBody(match)
	raw, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(body, "="))
	}
	if err != nil || len(raw) < 64 {
		return checkInvalid
	}
	if strings.Contains(match, "OPENSSH PRIVATE KEY") && !bytes.HasPrefix(raw, []byte("openssh-key-v1\x00")) {
		return checkInvalid
	}
	// DER private keys start with a SEQUENCE.
	if !strings.Contains(match, "OPENSSH") && !strings.Contains(match, "PGP") && raw[0] != 0x30 {
		return checkInvalid
	}
	return checkValid
}

// validBase64Len returns a validator that accepts standard base64 decoding
// to exactly n bytes (Azure storage keys: 64).
func validBase64Len(n int) validator {
	return func(secret, _ string) check {
		raw, err := base64.StdEncoding.DecodeString(secret)
		if err != nil || len(raw) != n {
			return checkInvalid
		}
		return checkValid
	}
}

// containsMarker returns a validator that is satisfied when the secret
// contains a fixed structural marker (OpenAI's base64 "OpenAI" infix).
func containsMarker(marker string) validator {
	return func(secret, _ string) check {
		if strings.Contains(secret, marker) {
			return checkValid
		}
		return checkNone
	}
}

// validSlack checks the digit groups of xox? tokens.
func validSlack(secret, _ string) check {
	parts := strings.Split(secret, "-")
	if len(parts) < 4 {
		return checkInvalid
	}
	digits := 0
	for _, p := range parts[1:3] {
		if p != "" && strings.Trim(p, "0123456789") == "" {
			digits++
		}
	}
	if digits == 2 {
		return checkValid
	}
	return checkInvalid
}

// validPyPI checks that the macaroon body is base64url.
func validPyPI(secret, _ string) check {
	body := strings.TrimPrefix(secret, "pypi-")
	raw, ok := decodeB64Loose(body)
	if ok && bytes.Contains(raw, []byte("pypi.org")) {
		return checkValid
	}
	return checkInvalid
}

// validAWSKeyID checks the base32 alphabet of the 16-character body.
func validAWSKeyID(secret, _ string) check {
	if len(secret) != 20 {
		return checkInvalid
	}
	for i := 4; i < 20; i++ {
		c := secret[i]
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return checkInvalid
		}
	}
	return checkValid
}

// validBasicAuth checks that the secret is base64 of "user:password".
func validBasicAuth(secret, _ string) check {
	raw, err := base64.StdEncoding.DecodeString(secret)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(secret, "="))
	}
	if err != nil || !printable(raw) {
		return checkInvalid
	}
	i := bytes.IndexByte(raw, ':')
	if i < 0 || i == len(raw)-1 {
		return checkInvalid
	}
	return checkValid
}

// userinfoAhead is a prefilter for URL rules: after the "://" that
// follows the keyword, and before the first '/', blank or quote, the text
// must hold ":" and then "@" (scheme://user:password@host).
func userinfoAhead(text string, start, end int) bool {
	lim := end + 24
	if lim > len(text) {
		lim = len(text)
	}
	k := strings.Index(text[start:lim], "://")
	if k < 0 {
		return false
	}
	from := start + k + 3
	colon := false
	for i := from; i < len(text) && i-from < 400; i++ {
		switch text[i] {
		case ':':
			colon = true
		case '@':
			return colon
		case '/', ' ', '\t', '\n', '\r', '"', '\'', '<', '>', '`':
			return false
		}
	}
	return false
}

// twilioSKAhead gates the two-letter "SK" keyword: the hit must be the
// upper-case "SK" at a word start followed by 32 hex digits.
func twilioSKAhead(text string, start, end int) bool {
	if text[start] != 'S' || text[start+1] != 'K' || start > 0 && isAlnum(text[start-1]) || end+32 > len(text) {
		return false
	}
	for i := end; i < end+32; i++ {
		if !isHex(text[i]) {
			return false
		}
	}
	return end+32 == len(text) || !isAlnum(text[end+32])
}

// semicolonBefore is a prefilter for connection-string rules whose
// keyword ("password=") must follow a ';' and optional blanks, as in
// "Server=db;Password=...". It spares the pattern every other
// "password=".
func semicolonBefore(text string, start, _ int) bool {
	i := start
	for i > 0 && start-i < 16 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	return i > 0 && text[i-1] == ';'
}

// tfCredentialVariable is the prefilter of the Terraform variable rule:
// the variable's name, between the quotes after `variable "`, must name a
// credential.
func tfCredentialVariable(text string, _, end int) bool {
	i := end
	for i < len(text) && i-end < 64 && (isNameByte(text[i]) && text[i] != '.') {
		i++
	}
	if i >= len(text) || text[i] != '"' || i == end {
		return false
	}
	var buf [64]byte
	n := buf[:0]
	for j := end; j < i; j++ {
		if c := text[j]; c != '_' && c != '-' {
			n = append(n, c|0x20)
		}
	}
	name := string(n)
	for _, w := range [...]string{"token", "secret", "password", "passwd", "apikey", "accesskey", "privatekey", "credential"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// gcsAPIPath reports whether a storage.googleapis.com match stopped at a
// segment of the JSON API ("storage.googleapis.com/projects" of a bare
// resource prefix) rather than at a bucket name.
func gcsAPIPath(v string) bool {
	_, seg, ok := strings.Cut(v, "storage.googleapis.com/")
	if !ok {
		return false
	}
	switch seg {
	case "projects", "storage", "upload", "download", "batch":
		return true
	}
	return false
}
