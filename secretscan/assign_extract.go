// Extraction: the "name <sep> value" around a keyword hit, for the generic
// assignment rules. What the name means is assign_names.go's business, and
// whether the value is a credential assign_values.go's.

package secretscan

import "strings"

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
	if strings.HasSuffix(text[:ns], "[REDACTED:") {
		// A redaction marker names what was removed, not what follows
		// it: redacting already redacted text changes nothing.
		return a, false
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
