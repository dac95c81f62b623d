// The value filter of the generic assignment rules: an ordered table of
// named rules, each a small predicate over one candidate value.

package secretscan

import "strings"

// verdict is what a value rule says about a candidate.
type verdict uint8

const (
	pass   verdict = iota // no opinion: the next rule decides
	reject                // not a credential
	accept                // a credential: the rules after this one are not consulted
)

// valueRule is one named step of the value filter. Its name is what
// Options.ExplainFilters reports when it rejects a candidate.
type valueRule struct {
	name  string
	check func(*valueCandidate) verdict
}

// valueRules is the value filter of the generic assignment rules. The first
// rule with a verdict decides; a value that no rule rejects is accepted.
// Passwords (and quoted secrets) have a lower bar, since weak human-chosen
// values are still leaks; keys and tokens must look machine-generated.
//
// Every rule before the first that can accept (uuid) only rejects, so their
// order changes which rule is named for a value, never the outcome. They
// run cheapest and most often decisive first: in code, most candidates
// are a variable or a member ("password = cfg.Password"), so the two
// reference rules lead; the placeholder automaton and the entropy come
// late. From uuid on, order matters: the rules after an accepting rule
// never see what it accepted.
var valueRules = [...]valueRule{
	{filterLength, valueLength},
	{"variable-reference", valueVariableReference},
	{"member-reference", valueMemberReference},
	{"access-modifier", valueAccessModifier},
	{"describes-credential", valueDescribesCredential},
	{"expression", valueExpression},
	{"escaped-words", valueEscapedWords},
	{"file-name", valueFileName},
	{"camel-identifier", valueCamelIdentifier},
	{"number-constant", valueNumberConstant},
	{"struct-tag", valueStructTag},
	{"urn", valueURN},
	{"registry-path", valueRegistryPath},
	{"member-times-number", valueMemberTimesNumber},
	{"password-constant", valuePasswordConstant},
	{"comment-or-selector", valueCommentOrSelector},
	{"path-or-template", valuePathOrTemplate},
	{"symbol-lead", valueSymbolLead},
	{"blanks", valueBlanks},
	{"host-or-path", valueHostOrPath},
	{"version", valueVersion},
	{"non-value", valueNonValue},
	{filterKnownTest, valueKnownTestValue},
	{filterPlaceholder, valuePlaceholder},
	{"placeholder-word", valuePlaceholderWord},
	{"password-word", valuePasswordWord},
	{"arn", valueARN},
	{"url", valueURL},
	{"repeats-name", valueRepeatsName},
	{"aws-secret-shape", valueAWSSecretShape},
	{"new-relic-shape", valueNewRelicShape},
	{"lowercase-path", valueLowercasePath},
	{"anonymous-login", valueAnonymousLogin},
	{"uuid", valueUUID},
	{"bare-identifier", valueBareIdentifier},
	{"chained-assignment", valueChainedAssignment},
	{"ambiguous-argument", valueAmbiguousArgument},
	// The lower bar: passwords and quoted secrets with a digit or a symbol.
	{"low-entropy", valueLowEntropy},
	{"weak-name-unquoted", valueWeakNameUnquoted},
	{"short-spaced", valueShortSpaced},
	{"word-list", valueWordList},
	{"bare-word", valueBareWord},
	{"human-chosen", valueHumanChosen},
	// Keys, tokens and other secrets: machine-generated values.
	{"key-length", valueKeyLength},
	{"key-entropy", valueKeyEntropy},
	{"key-alphabet", valueKeyAlphabet},
	{"identifier-like", valueIdentifierLike},
	{"dotted-words", valueDottedWords},
	{"file-suffix", valueFileSuffix},
}

// judgeValue runs the value rules over c in order. It returns the verdict
// and the index in valueRules of the rule that gave it, or -1 when no rule
// had one (the value is then accepted).
func judgeValue(c *valueCandidate) (verdict, int) {
	for i := range valueRules {
		if v := valueRules[i].check(c); v != pass {
			return v, i
		}
	}
	return accept, -1
}

// valueCandidate is the value of one generic assignment under test, and
// what the rules compute from it at most once, on first use. Between the
// candidates of one text only the value and scalar fields change:
// runAssign keeps one candidate per scan in its scratch space, where
// storing a pointer costs a write barrier while the collector runs.
type valueCandidate struct {
	text   string
	v      string // text[a.valStart:a.valEnd]
	a      assignment
	class  assignClass
	strong bool // the name alone is strong evidence (classifyName)

	known                      uint8 // which of the fields below are computed
	lv, lname                  string
	lower, upper, digit, other bool
	h                          float64
	login                      bool
}

const (
	knowLower uint8 = 1 << iota
	knowName
	knowShape
	knowLogin
)

// set makes c the candidate of assignment a in c.text.
func (c *valueCandidate) set(a assignment, class assignClass, strong bool) {
	c.a, c.class, c.strong, c.known = a, class, strong, 0
	c.v = c.text[a.valStart:a.valEnd]
}

// name is the assigned name as written.
func (c *valueCandidate) name() string { return c.text[c.a.nameStart:c.a.nameEnd] }

// lowerValue is the value in lower case.
func (c *valueCandidate) lowerValue() string {
	if c.known&knowLower == 0 {
		c.lv = strings.ToLower(c.v)
		c.known |= knowLower
	}
	return c.lv
}

// lowerName is the name in lower case.
func (c *valueCandidate) lowerName() string {
	if c.known&knowName == 0 {
		c.lname = strings.ToLower(c.name())
		c.known |= knowName
	}
	return c.lname
}

func (c *valueCandidate) shape() {
	if c.known&knowShape == 0 {
		c.lower, c.upper, c.digit, c.other = charClasses(c.v)
		c.h = shannon(c.v)
		c.known |= knowShape
	}
}

// entropy is the value's Shannon entropy in bits per byte.
func (c *valueCandidate) entropy() float64 { c.shape(); return c.h }

// hasDigit reports whether the value holds a digit.
func (c *valueCandidate) hasDigit() bool { c.shape(); return c.digit }

// lettersOnly reports whether the value holds letters only.
func (c *valueCandidate) lettersOnly() bool { c.shape(); return !c.digit && !c.other }

// loginNear reports whether a user name is set beside a strongly named
// password ("user = alice" / "password = open_sesame"): a login, even when
// the value is a bare word or a short passphrase. It reads up to 400
// bytes, so the rules ask only for values that need it.
func (c *valueCandidate) loginNear() bool {
	if c.known&knowLogin == 0 {
		c.login = c.class == assignPassword && c.strong && userAssignedNear(c.text, c.a.nameStart)
		c.known |= knowLogin
	}
	return c.login
}

// literal reports whether the value is written as a literal: quoted, or
// NAME=value with no blanks (.env, INI), which counts as quoted.
func (c *valueCandidate) literal() bool { return c.a.quoted || c.a.tight }

// password reports whether the candidate is of the password class.
func (c *valueCandidate) password() bool { return c.class == assignPassword }

func rejectIf(b bool) verdict {
	if b {
		return reject
	}
	return pass
}

// valueLength: shorter than 6 bytes, or longer than 512.
func valueLength(c *valueCandidate) verdict {
	return rejectIf(len(c.v) < 6 || len(c.v) > 512)
}

// valueAccessModifier: a declaration read as "KEY value", such as "private
// _authorizationServerUrl?;" under a name that is an access modifier.
func valueAccessModifier(c *valueCandidate) verdict {
	if !c.a.wsSep || c.class != assignAPIKey {
		return pass
	}
	switch c.name() {
	case "private", "access", "protected":
		return reject
	}
	return pass
}

// valueDescribesCredential: words about a credential, not one:
// "my-idp-secret", "client_secret_basic".
func valueDescribesCredential(c *valueCandidate) verdict {
	return rejectIf(!c.password() && describesCredential(c.v))
}

// valueExpression: an unquoted expression, "e===401?...", "a&&b" (NAME=value
// lines are literals).
func valueExpression(c *valueCandidate) verdict {
	return rejectIf(!c.literal() && (comparison(c.v) || strings.Contains(c.v, "&&") || strings.Contains(c.v, "||") || strings.Contains(c.v, "=>")))
}

// valueEscapedWords: words of a string with escapes read as "KEY value":
// "KEY column\x00Cannot".
func valueEscapedWords(c *valueCandidate) verdict {
	return rejectIf(c.a.wsSep && strings.IndexByte(c.v, '\\') >= 0)
}

// valueFileName: a file name ("fgetspent.c"; a password may have a digit),
// or a name that is a source file ("pwd.h:108:1:").
func valueFileName(c *valueCandidate) verdict {
	return rejectIf(fileName(c.v) && (!c.password() || !strings.ContainsAny(c.v, "0123456789")) || sourceFileName(c.name()))
}

// valueCamelIdentifier: a code reference, "ClientCapabilities2026Schema",
// or a quoted constant about a key, "SmartCardAssociatedECDHKey".
func valueCamelIdentifier(c *valueCandidate) verdict {
	return rejectIf(!c.password() && camelIdentifier(c.v) && (!c.literal() || c.a.compare || camelNamesCredential(c.v)))
}

// valueNumberConstant: an unquoted integer constant, "-2146893773",
// "LOGON_ZERO_PASSWORD_BUFFER = 2147483648".
func valueNumberConstant(c *valueCandidate) verdict {
	return rejectIf(!c.literal() && numberLiteral(c.v) && (!c.password() || c.v[0] == '-' || constDeclaration(c.text, c.a.nameStart)))
}

// valueStructTag: a Go struct tag, `json:"token,omitempty"`.
func valueStructTag(c *valueCandidate) verdict { return rejectIf(structTag(c.v)) }

// valueURN: "urn:ietf:params:oauth:token-type:jwt".
func valueURN(c *valueCandidate) verdict { return rejectIf(strings.HasPrefix(c.v, "urn:")) }

// valueRegistryPath: a Windows registry path, "Software\\Policies".
func valueRegistryPath(c *valueCandidate) verdict {
	return rejectIf(!c.password() && registryPath(c.v))
}

// valueMemberTimesNumber: an unquoted product, "map.pc*1024".
func valueMemberTimesNumber(c *valueCandidate) verdict {
	return rejectIf(!c.password() && !c.literal() && memberTimesNumber(c.v))
}

// valueMemberReference: a member whose last part names a credential,
// "this._password=s._password"; in minified code even as NAME=value when
// the first part is a lower-case word.
func valueMemberReference(c *valueCandidate) verdict {
	v := c.v
	i := strings.LastIndexByte(v, '.')
	return rejectIf(i > 0 && qualifiedName(v) && namesCredential(v[i+1:]) && (!c.a.tight || lowerWord(v[:strings.IndexByte(v, '.')])))
}

// valuePasswordConstant: a name about a password given as a password:
// "PCP_CHANGEPASSWORD", "com.lyndir.masterpassword".
func valuePasswordConstant(c *valueCandidate) verdict {
	v := c.v
	return rejectIf(c.password() && (indexFold(v, "password") >= 0 || indexFold(v, "passwd") >= 0) && (constantName(v) || strings.Count(v, ".") >= 2))
}

// valueCommentOrSelector: a value starting with '#' or '.': a comment or a
// path when unquoted, a CSS selector ("#id", ".class") when quoted unless
// it is a password with a digit.
func valueCommentOrSelector(c *valueCandidate) verdict {
	v := c.v
	if v[0] != '#' && v[0] != '.' {
		return pass
	}
	return rejectIf(!c.password() || !c.literal() || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || !strings.ContainsAny(v, "0123456789"))
}

// valuePathOrTemplate: a path, template or reference: a value starting
// with / { [ ( < or $.
func valuePathOrTemplate(c *valueCandidate) verdict {
	switch c.v[0] {
	case '/', '{', '[', '(', '<', '$':
		return reject
	}
	return pass
}

// valueSymbolLead: a value starting with % ~ @ & * ! ; or ?. A password
// may; a reference, path, YAML tag or anchor may too: "%APPDATA%",
// "~/.key", "!vault", "&default".
func valueSymbolLead(c *valueCandidate) verdict {
	switch c.v[0] {
	case '%', '~', '@', '&', '*', '!', ';', '?':
		return rejectIf(!c.password() || !symbolLeadOK(c.v))
	}
	return pass
}

// valueBlanks: a value with a blank, unless it is a quoted short
// passphrase set beside a user name; alone, such a value reads as prose.
func valueBlanks(c *valueCandidate) verdict {
	return rejectIf(strings.IndexByte(c.v, ' ') >= 0 && !(c.a.quoted && passphrase(c.v) && c.loginNear()))
}

// valueVariableReference: an unquoted variable or field reference,
// "asn1.ObjectIdentifier", "testRSAPrivateKey".
func valueVariableReference(c *valueCandidate) verdict {
	v := c.v
	return rejectIf(!c.literal() && !c.a.embedded && (qualifiedName(v) && (!c.password() || !strings.ContainsAny(v, "0123456789")) || namesCredential(v)))
}

// valueHostOrPath: a host name or a path below one, "api.example.org".
func valueHostOrPath(c *valueCandidate) verdict { return rejectIf(hostOrPath(c.v)) }

// valueVersion: a version number, "1.2.3-beta".
func valueVersion(c *valueCandidate) verdict { return rejectIf(isVersion(c.v)) }

// nonValues are whole values (lower case) of code or settings that hold no
// credential: keywords, type names, the names of credentials themselves.
var nonValues = map[string]bool{"true": true, "false": true, "null": true, "nil": true, "none": true,
	"undefined": true, "yes": true, "no": true, "on": true, "off": true, "required": true, "optional": true,
	"string": true, "str": true, "int": true, "bool": true, "boolean": true, "object": true, "any": true,
	"secret": true, "password": true, "token": true, "bearer": true, "basic": true, "self": true, "this": true}

// valueNonValue: a keyword or type name, "undefined", "boolean", "bearer".
func valueNonValue(c *valueCandidate) verdict { return rejectIf(nonValues[c.lowerValue()]) }

// valueKnownTestValue: a credential published in a provider's
// documentation.
func valueKnownTestValue(c *valueCandidate) verdict { return rejectIf(knownTestValues[c.v]) }

// valuePlaceholder: a template, sample or redaction (isPlaceholder).
func valuePlaceholder(c *valueCandidate) verdict { return rejectIf(isPlaceholder(c.v)) }

// valuePlaceholderWord: a stand-in word, for every class, passwords
// included: "letmein", "hunter2", "admin", "secret".
func valuePlaceholderWord(c *valueCandidate) verdict {
	return rejectIf(placeholderWords[c.lowerValue()])
}

// valuePasswordWord: a password that starts with "password":
// "password_here", "PasswordHash".
func valuePasswordWord(c *valueCandidate) verdict {
	return rejectIf(c.password() && strings.HasPrefix(c.lowerValue(), "password"))
}

// valueARN: an Amazon resource name, not a secret.
func valueARN(c *valueCandidate) verdict {
	return rejectIf(strings.HasPrefix(c.lowerValue(), "arn:"))
}

// valueURL: a URL; the URL rules find the credentials in one.
func valueURL(c *valueCandidate) verdict { return rejectIf(strings.Contains(c.v, "://")) }

// valueRepeatsName: a value that repeats its own name or a part of it:
// "PGSSLPASSWORD": "sslpassword".
func valueRepeatsName(c *valueCandidate) verdict {
	lv, name := c.lowerValue(), c.lowerName()
	return rejectIf(lv == name || len(name) >= 10 && strings.Contains(lv, name) || len(lv) >= 6 && strings.Contains(name, lv))
}

// valueAWSSecretShape: the name says AWS secret access key, whose format
// is fixed, and the value is not of it.
func valueAWSSecretShape(c *valueCandidate) verdict {
	return rejectIf(namesAWSSecretKey(c.lowerName()) && !awsSecretShape(c.v))
}

// valueNewRelicShape: New Relic's NRAL suffix fixes the format, and the
// value is not of it: "a1b2c3...NRAL" is a stand-in.
func valueNewRelicShape(c *valueCandidate) verdict {
	return rejectIf(strings.HasSuffix(c.v, "NRAL") && !newRelicLicenseShape(c.v))
}

// valueLowercasePath: a path, "/" with neither digits nor capitals.
func valueLowercasePath(c *valueCandidate) verdict {
	c.shape()
	return rejectIf(strings.IndexByte(c.v, '/') >= 0 && !c.digit && !c.upper)
}

// valueAnonymousLogin: the password of an anonymous (FTP) login, which is
// by convention an e-mail address or any word (RFC 1635).
func valueAnonymousLogin(c *valueCandidate) verdict {
	return rejectIf(c.password() && anonymousLogin(c.text, c.a.nameStart))
}

// valueUUID: many APIs issue UUID keys and tokens. A UUID counts under a
// strong name or an API-key name set with a separator; under a plain
// identifier name (request_id, trace_id) it never gets here.
func valueUUID(c *valueCandidate) verdict {
	if !isUUID(c.v) {
		return pass
	}
	if !(c.strong || c.class == assignAPIKey) || c.class == assignCredential || c.a.wsSep {
		return reject
	}
	return accept
}

// valueBareIdentifier: an unquoted identifier of letters, '_' and '.'
// ("config.dbPassword"), unless it is a password set beside a user name.
func valueBareIdentifier(c *valueCandidate) verdict {
	return rejectIf(!c.hasDigit() && !c.literal() && lettersDotsUnderscores(c.v) && !c.loginNear())
}

// valueChainedAssignment: more assignments, not a value:
// "Key=mediumType/Elem=int32".
func valueChainedAssignment(c *valueCandidate) verdict {
	if c.password() || c.a.quoted {
		return pass
	}
	v := c.v
	i := strings.IndexByte(v, '=')
	return rejectIf(i >= 0 && strings.Trim(v[i:], "=") != "" && strings.IndexByte(v, '/') >= 0)
}

// valueAmbiguousArgument: ("pass", "host") argument lists need an
// unambiguous name.
func valueAmbiguousArgument(c *valueCandidate) verdict {
	return rejectIf(c.a.commaSep && !c.strong)
}

// lowBar reports whether the candidate is judged as a human-chosen value:
// a password, or a quoted secret with a digit or a symbol.
func (c *valueCandidate) lowBar() bool {
	if c.password() {
		return true
	}
	c.shape()
	return c.class == assignSecret && c.a.quoted && (c.digit || c.other)
}

// valueLowEntropy: a human-chosen value with almost no variety.
func valueLowEntropy(c *valueCandidate) verdict {
	return rejectIf(c.lowBar() && c.entropy() < 1.5)
}

// valueWeakNameUnquoted: an unquoted password under a weak name (a bare
// PASS).
func valueWeakNameUnquoted(c *valueCandidate) verdict {
	return rejectIf(c.password() && !c.strong && !c.a.quoted)
}

// valueShortSpaced: a human-chosen value read as "KEY value" must be long
// and have a digit.
func valueShortSpaced(c *valueCandidate) verdict {
	return rejectIf(c.lowBar() && c.a.wsSep && (len(c.v) < 12 || !c.hasDigit()))
}

// valueWordList: {"password", "publickey"}: a list of words, not a login.
func valueWordList(c *valueCandidate) verdict {
	return rejectIf(c.lowBar() && c.a.commaSep && c.lettersOnly())
}

// valueBareWord: an unquoted word in one case reads as a variable or
// prose, unless it is a password set beside a user name.
func valueBareWord(c *valueCandidate) verdict {
	if !c.lowBar() || !c.lettersOnly() || c.literal() {
		return pass
	}
	return rejectIf(!(c.lower && c.upper) && !c.loginNear())
}

// valueHumanChosen accepts what is left of the human-chosen values.
func valueHumanChosen(c *valueCandidate) verdict {
	if c.lowBar() {
		return accept
	}
	return pass
}

// valueKeyLength: a key or token shorter than 12 bytes, or 16 under a
// weak name or as "KEY value".
func valueKeyLength(c *valueCandidate) verdict {
	minLen := 12
	if !c.strong || c.a.wsSep {
		minLen = 16
	}
	return rejectIf(len(c.v) < minLen)
}

// valueKeyEntropy: a key or token below 3 bits per byte.
func valueKeyEntropy(c *valueCandidate) verdict { return rejectIf(c.entropy() < 3.0) }

// valueKeyAlphabet: a machine-generated value mixes letters and digits,
// or is long and very varied.
func valueKeyAlphabet(c *valueCandidate) verdict {
	c.shape()
	switch n, h := len(c.v), c.h; {
	case c.digit && (c.lower || c.upper):
	case n >= 20 && h >= 4.0:
	case n >= 20 && c.lower && c.upper && h >= 3.8:
	default:
		return reject
	}
	return pass
}

// valueIdentifierLike: a compound identifier such as
// "CLIENT_TRAFFIC_SECRET_0".
func valueIdentifierLike(c *valueCandidate) verdict {
	return rejectIf(identifierLike(c.v, c.entropy()))
}

// valueDottedWords: dotted words without a digit, "Config.Secret.Value".
func valueDottedWords(c *valueCandidate) verdict {
	return rejectIf(strings.IndexByte(c.v, '.') >= 0 && !c.hasDigit())
}

// valueFileSuffix: a file name, "service-account.json", "tls.key".
func valueFileSuffix(c *valueCandidate) verdict {
	lv := c.lowerValue()
	return rejectIf(strings.HasSuffix(lv, ".json") || strings.HasSuffix(lv, ".pem") || strings.HasSuffix(lv, ".key") || strings.HasSuffix(lv, ".txt"))
}
