package secretscan

import (
	"strings"
	"testing"
)

// classKeywords are the keywords of the generic rules, by class.
var classKeywords = map[assignClass][]string{
	assignPassword:   {"password", "passwd", "pwd", "pass", "passphrase"},
	assignSecret:     {"secret"},
	assignToken:      {"token"},
	assignAPIKey:     {"key", "access", "private"},
	assignCredential: {"credential", "creds", "auth"},
}

// candidateIn builds the value candidate of the first assignment in text
// whose name holds a keyword of class, as runAssign would.
func candidateIn(t *testing.T, text string, class assignClass) *valueCandidate {
	t.Helper()
	lt := strings.ToLower(text)
	ks, ke := -1, -1
	for _, kw := range classKeywords[class] {
		if i := strings.Index(lt, kw); i >= 0 && (ks < 0 || i < ks) {
			ks, ke = i, i+len(kw)
		}
	}
	if ks < 0 {
		t.Fatalf("%q: no keyword of the class", text)
	}
	a, ok := extractAssignment(text, ks, ke)
	if !ok {
		t.Fatalf("%q: no assignment", text)
	}
	named, strong := classifyName(text[a.nameStart:a.nameEnd], class)
	if !named {
		t.Fatalf("%q: %q does not name a credential of the class", text, text[a.nameStart:a.nameEnd])
	}
	c := &valueCandidate{text: text}
	c.set(a, class, strong)
	return c
}

type valueCase struct {
	text  string
	class assignClass
	want  verdict
}

const (
	pw  = assignPassword
	sec = assignSecret
	tok = assignToken
	key = assignAPIKey
	crd = assignCredential
)

// valueRuleCases holds, for each value rule, assignments and the verdict
// that rule alone gives them (whatever the rules before it would say).
var valueRuleCases = map[string][]valueCase{
	"length": {
		{`password = "ab1!x"`, pw, reject},
		{`password = "ab1!xy"`, pw, pass},
	},
	"access-modifier": {
		{`private _authorizationServerUrl?;`, key, reject},
		{`api_key _authorizationServerUrl1234`, key, pass},
		{`private = "_authorizationServerUrl"`, key, pass}, // not "KEY value"
	},
	"describes-credential": {
		{`client_secret = "client_secret_basic"`, sec, reject},
		{`client_secret = "x9fK2mQ7pL4vR8sT"`, sec, pass},
		{`password = "my-idp-secret"`, pw, pass}, // a password may be words
	},
	"expression": {
		{`token = e===401?a:b`, tok, reject},
		{`token = a&&b1234`, tok, reject},
		{`TOKEN=abc==def1`, tok, pass}, // NAME=value is a literal
		{`token = "e===401?a:b"`, tok, pass},
	},
	"escaped-words": {
		{`KEY column\x00Cannot`, key, reject},
		{`KEY column_Cannot1`, key, pass},
	},
	"file-name": {
		{`password = fgetspent.c`, pw, reject},
		{`token = backup2024.db`, tok, reject},
		{`password = backup2024.db`, pw, pass}, // a password with a digit
	},
	"camel-identifier": {
		{`token: ClientCapabilities2026Schema`, tok, reject},
		{`token: "SmartCardAssociatedECDHKey"`, tok, reject},
		{`token: "ClientCapabilities2026Schema"`, tok, pass},
		{`password: WhiteHorseKnightDawn`, pw, pass},
	},
	"number-constant": {
		{`token = 2147483648`, tok, reject},
		{`password = -2146893773`, pw, reject},
		{`const LOGON_PASSWORD = 2147483648`, pw, reject},
		{`password = 2147483648`, pw, pass},
		{`token = "2147483648"`, tok, pass},
	},
	"struct-tag": {
		{"token: `json:\"token,omitempty\"`", tok, reject},
		{`token: "ghp1234abcdEFGH5678"`, tok, pass},
	},
	"urn": {
		{`token = urn:ietf:params:oauth:token-type:jwt`, tok, reject},
		{`token = "abc123def456ghi789"`, tok, pass},
	},
	"registry-path": {
		{`key = "Software\\Policies\\Microsoft"`, key, reject},
		{`password = "Software\\Policies\\Microsoft"`, pw, pass},
	},
	"member-times-number": {
		{`key = map.pc*1024`, key, reject},
		{`key = "map.pc*1024"`, key, pass},
	},
	"member-reference": {
		{`password = this._password`, pw, reject},
		{`PASSWORD=this._password`, pw, reject}, // minified code
		{`PASSWORD=Config._password`, pw, pass},
		{`password = this._hash1xyz`, pw, pass},
	},
	"password-constant": {
		{`password = PCP_CHANGEPASSWORD`, pw, reject},
		{`password = "com.lyndir.masterpassword"`, pw, reject},
		{`token = PCP_CHANGEPASSWORD`, tok, pass},
		{`password = "Masterpassword7"`, pw, pass},
	},
	"comment-or-selector": {
		{`token = "#main-nav1"`, tok, reject},
		{`password = "#selector"`, pw, reject},
		{`password = #Zq3vK9pL`, pw, reject}, // a comment
		{`password = "#Zq3vK9pL"`, pw, pass},
		{`token = abc#def123`, tok, pass},
	},
	"path-or-template": {
		{`token = "{{ .Token }}"`, tok, reject},
		{`password = "/etc/secret1"`, pw, reject},
		{`token = "ab{c}1234567"`, tok, pass},
	},
	"symbol-lead": {
		{`password = %APPDATA%`, pw, reject},
		{`password = "!vault"`, pw, reject},
		{`token = "@abc123def456"`, tok, reject},
		{`password = "!Zq3vK9#pL2w"`, pw, pass},
	},
	"blanks": {
		{`password = "open sesame"`, pw, reject},
		{"user = \"alice\"\npassword = \"open sesame\"", pw, pass},
		{`password = "Zq3vK9pL"`, pw, pass},
	},
	"variable-reference": {
		{`token = asn1.ObjectIdentifier`, tok, reject},
		{`password = testRSAPrivateKey`, pw, reject},
		{`password = "testRSAPrivateKey"`, pw, pass},
		{`password = db.pass2024`, pw, pass}, // a password with a digit
	},
	"host-or-path": {
		{`token = api.example.org`, tok, reject},
		{`token = api_example_org1`, tok, pass},
	},
	"version": {
		{`token = v2.0.0-rc1`, tok, reject},
		{`token = v2a0b0c1rc1`, tok, pass},
	},
	"non-value": {
		{`password = "undefined"`, pw, reject},
		// "secret" is no password either: see valuePlaceholderWord.
		{`password = "secret"`, pw, reject},
		{`password = "Zq3vK9pL"`, pw, pass},
	},
	"known-test-value": {
		{`key = AKIAIOSFODNN7EXAMPLE`, key, reject},
		{`key = AKIAIOSFODNN7EXAMPLF`, key, pass},
	},
	"placeholder": {
		{`token = "your_token_here"`, tok, reject},
		{`token = "gh1Zq3vK9pL2w"`, tok, pass},
	},
	"placeholder-word": {
		{`password = "letmein"`, pw, reject},
		{`password: secret`, pw, reject},
		{`token = "foobar"`, tok, reject},
		{`password = "letmein42"`, pw, pass},
	},
	"password-word": {
		{`password = "Passwordless1"`, pw, reject},
		{`token = "Passwordless1"`, tok, pass},
	},
	"arn": {
		{`key = arn:aws:iam::123456789012:role/x`, key, reject},
		{`key = "warn:abc123def"`, key, pass},
	},
	"url": {
		{`token = "https://example.com/t"`, tok, reject},
		{`token = "abc:/def123"`, tok, pass},
	},
	"repeats-name": {
		{`PGSSLPASSWORD: "sslpassword"`, pw, reject},
		{`api_key = "api_key"`, key, reject},
		{`x_service_token = "prefix_x_service_token_1"`, tok, reject},
		{`password = "Zq3vK9pL"`, pw, pass},
	},
	"aws-secret-shape": {
		{`aws_secret_access_key = "notfortyLong123"`, sec, reject},
		{`aws_secret_access_key = "kF3n7Qm1/xA9zL0pR2sT4uV6wY8bC+dE5gH7jK9m"`, sec, pass},
		{`client_secret = "notfortyLong123"`, sec, pass},
	},
	"new-relic-shape": {
		{`key = "a1b2c3d4e5NRAL"`, key, reject},
		{`key = "0123456789abcdef0123456789abcdef0123NRAL"`, key, pass},
	},
	"lowercase-path": {
		{`token = "abc/def/ghi"`, tok, reject},
		{`token = "abc/def/gh1"`, tok, pass},
		{`token = "abc/Def/ghi"`, tok, pass},
	},
	"anonymous-login": {
		{"user = \"anonymous\"\npassword = \"guest@x\"", pw, reject},
		{"user = \"admin\"\npassword = \"Zq3!vK9#\"", pw, pass},
		{"user = \"anonymous\"\ntoken = \"Zq3!vK9#\"", tok, pass},
	},
	"uuid": {
		{`api_key = "123e4567-e89b-12d3-a456-426614174000"`, key, accept},
		{`access_token = "123e4567-e89b-12d3-a456-426614174000"`, tok, accept},
		{`credential = "123e4567-e89b-12d3-a456-426614174000"`, crd, reject},
		{`api_key 123e4567-e89b-12d3-a456-426614174000`, key, reject}, // "KEY value"
		{`api_key = "123e4567"`, key, pass},
	},
	"bare-identifier": {
		{`password = openSesame`, pw, reject},
		{"user = alice\npassword = openSesame", pw, pass},
		{`password = "openSesame"`, pw, pass},
		{`password = openSesame1`, pw, pass},
	},
	"chained-assignment": {
		{`key = Key=mediumType/Elem=int32`, key, reject},
		{`key = "Key=mediumType/Elem=int32"`, key, pass},
		{`password = Key=mediumType/Elem=int32`, pw, pass},
	},
	"ambiguous-argument": {
		{`f("pass", "hostname12")`, pw, reject},
		{`f("password", "hostname12")`, pw, pass},
	},
	"low-entropy": {
		{`password = "aaaaab"`, pw, reject},
		{`password = "abcdef"`, pw, pass},
		{`token = "aaaaab"`, tok, pass}, // keys have their own floor
	},
	"weak-name-unquoted": {
		{`PASS=Zq3vK9pL`, pw, reject},
		{`PASS="Zq3vK9pL"`, pw, pass},
		{`DB_PASS=Zq3vK9pL`, pw, pass},
	},
	"short-spaced": {
		{`PASSWORD Zq3vK9pL`, pw, reject},
		{`PASSWORD ZqevKvpLxmYwab`, pw, reject}, // no digit
		{`PASSWORD Zq3vK9pLx7Yw`, pw, pass},
	},
	"word-list": {
		{`{"password", "publickey"}`, pw, reject},
		{`{"password", "publickey1"}`, pw, pass},
	},
	"bare-word": {
		{`password = opensesame`, pw, reject},
		{"user = alice\npassword = opensesame", pw, pass},
		{`password = openSesame`, pw, pass},
		{`PASSWORD=opensesame`, pw, pass},
	},
	"human-chosen": {
		{`password = "Zq3vK9pL"`, pw, accept},
		{`client_secret = "Zq3vK9pL!"`, sec, accept},
		{`client_secret = "ZqevKvpL"`, sec, pass}, // letters only: judged as a key
		{`token = "Zq3vK9pL"`, tok, pass},
	},
	"key-length": {
		{`api_key = "Zq3vK9pL2w"`, key, reject},
		{`key = "Zq3vK9pL2wXy7u"`, key, reject}, // a weak name wants 16
		{`api_key = "Zq3vK9pL2wXy7u"`, key, pass},
	},
	"key-entropy": {
		{`api_key = "abababababab12"`, key, reject},
		{`api_key = "Zq3vK9pL2wXy7u"`, key, pass},
	},
	"key-alphabet": {
		{`api_key = "abcdefghijklmnop"`, key, reject},
		{`api_key = "Zq3vK9pL2wXy7u"`, key, pass},
		{`api_key = "ZqevKvpLxmYwabTrUoPiQs"`, key, pass}, // long, mixed case, varied
	},
	"identifier-like": {
		{`token = "CLIENT_TRAFFIC_SECRET_0"`, tok, reject},
		{`token = "Zq3vK9pL2wXy7u"`, tok, pass},
	},
	"dotted-words": {
		{`token = "Config.Secret.Value"`, tok, reject},
		{`token = "Config.Secret.V4lue"`, tok, pass},
	},
	"file-suffix": {
		{`key = "service-account.json"`, key, reject},
		{`key = "service-account1"`, key, pass},
	},
}

// TestValueRules runs each value rule alone over its own table.
func TestValueRules(t *testing.T) {
	for _, r := range valueRules {
		t.Run(r.name, func(t *testing.T) {
			for _, tc := range valueRuleCases[r.name] {
				c := candidateIn(t, tc.text, tc.class)
				if got := r.check(c); got != tc.want {
					t.Errorf("%q (class %d): %s, want %s", tc.text, tc.class, verdictName(got), verdictName(tc.want))
				}
			}
		})
	}
}

// TestValueRuleCasesComplete fails when a rule has no case that it
// decides and one that it passes on, or when a case names no rule.
func TestValueRuleCasesComplete(t *testing.T) {
	names := map[string]bool{}
	for _, r := range valueRules {
		if names[r.name] {
			t.Errorf("two rules named %q", r.name)
		}
		names[r.name] = true
		decides, passes := false, false
		for _, tc := range valueRuleCases[r.name] {
			decides = decides || tc.want != pass
			passes = passes || tc.want == pass
		}
		if !decides || !passes {
			t.Errorf("rule %q: want cases it decides and cases it passes on", r.name)
		}
	}
	for name := range valueRuleCases {
		if !names[name] {
			t.Errorf("cases for %q, which is no rule", name)
		}
	}
}

// TestJudgeValue runs the whole filter: the first rule with a verdict
// decides, and a value no rule rejects is accepted.
func TestJudgeValue(t *testing.T) {
	for _, tc := range []struct {
		text  string
		class assignClass
		rule  string // the rule that decides; "" when none does
		want  verdict
	}{
		{`password = "Zq3!vK9#pL2w"`, pw, "human-chosen", accept},
		{`api_key = "123e4567-e89b-12d3-a456-426614174000"`, key, "uuid", accept},
		{`api_key = "kq3VnB7wLx0RtY2mZp5sHd8Jf4Gc1Aa9"`, key, "", accept},
		{`password = "abc"`, pw, "length", reject},
		// "secret" is rejected for every class, passwords included (the
		// first of non-value and placeholder-word to say so).
		{`password = "secret"`, pw, "non-value", reject},
		{`$mail->Password = 'secret';`, pw, "non-value", reject},
		{`password = "hunter2"`, pw, "placeholder-word", reject},
		{`token = "your_token_here"`, tok, "describes-credential", reject},
		{`token = "xxxx1234xxxx"`, tok, "placeholder", reject},
		{"user = \"anonymous\"\npassword = \"guest@host1\"", pw, "anonymous-login", reject},
		{`api_key = "abcdefghijklmnop"`, key, "key-alphabet", reject},
	} {
		c := candidateIn(t, tc.text, tc.class)
		v, i := judgeValue(c)
		rule := ""
		if i >= 0 {
			rule = valueRules[i].name
		}
		if v != tc.want || rule != tc.rule {
			t.Errorf("%q: %s by %q, want %s by %q", tc.text, verdictName(v), rule, verdictName(tc.want), tc.rule)
		}
	}
}

func verdictName(v verdict) string {
	switch v {
	case pass:
		return "pass"
	case reject:
		return "reject"
	case accept:
		return "accept"
	}
	return "?"
}
