// Context: what the lines around an assignment say about it (a constant
// declaration, a user name set beside a password, an anonymous login).

package secretscan

import "strings"

// constDeclaration reports whether the line holding text[nameStart]
// declares a constant: it starts with const, #define or var.
func constDeclaration(text string, nameStart int) bool {
	ls := strings.LastIndexByte(text[:nameStart], '\n') + 1
	line := strings.TrimLeft(text[ls:nameStart], " \t")
	return strings.HasPrefix(line, "const ") || strings.HasPrefix(line, "#define ") || strings.HasPrefix(line, "# define ") || strings.HasPrefix(line, "var ")
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
