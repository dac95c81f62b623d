package secretscan

import (
	"math"
	"strings"
	"sync"
)

// shannon returns the Shannon entropy of s in bits per byte.
func shannon(s string) float64 {
	if len(s) == 0 {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// placeholderMarkers are lower-case substrings that mark a value as a
// template, documentation sample or redaction rather than a credential.
var placeholderMarkers = []string{
	"xxxx", "example", "sample", "changeme", "change_me", "change-me", "changeit",
	"your_", "your-", "yourapi", "yourkey", "yoursecret", "yourtoken", "yourpass",
	"placeholder", "dummy", "redacted", "insert", "replace",
	"${", "{{", "}}", "%s", "****", "....", "…", "■",
	"notreal", "not_real", "not-real", "fake_", "_fake", "-fake", "fake-",
	"enter_", "enter-", "put-your", "secret_here", "key_here",
	"token_here", "here_", "_here", "password123", "passw0rd", "p@ssw0rd", "p@ssword",
	"process.env", "os.environ", "getenv", "env[", "env(", "secrets.", "vault:", "ref+", "var(--",
}

// placeholderAC finds any placeholder marker in one pass. It is built on
// first use, not when the package initialises: every command of the
// binary would pay for it before main.
var placeholderAC = sync.OnceValue(func() *automaton { return newAutomaton(placeholderMarkers) })

// placeholderWords are whole values (lower case) that are never secrets.
var placeholderWords = map[string]bool{
	"password": true, "passwd": true, "secret": true, "token": true, "apikey": true, "api_key": true,
	"none": true, "null": true, "nil": true, "true": true, "false": true, "undefined": true,
	"empty": true, "default": true, "required": true, "optional": true, "string": true,
	"admin": true, "root": true, "test": true, "testing": true, "pass": true,
	"password1": true, "letmein": true, "qwerty": true, "hunter2": true, "foobar": true,
	"foo": true, "bar": true, "baz": true, "value": true, "private": true, "public": true,
	"unknown": true, "unset": true, "n/a": true, "tbd": true, "masked": true, "hidden": true,
}

// knownTestValues are published documentation credentials that providers
// ship in their examples; they are never reported.
var knownTestValues = map[string]bool{
	"AKIAIOSFODNN7EXAMPLE":                                                  true,
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY":                              true,
	"sk_test_4eC39HqLyjWDarjtT1zdp7dc":                                      true,
	"pk_test_TYooMQauvdEDq54NiTphI7jx":                                      true,
	"sk_test_BQokikJOvBiI2HlWgH4olfQ2":                                      true,
	"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": true,
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c": true,
}

// isPlaceholder reports whether v looks like a template, sample,
// variable reference or redaction: marker substrings, a leading "$", runs of
// one character, or a value with almost no variety.
func isPlaceholder(v string) bool {
	if len(v) == 0 || v[0] == '$' {
		return true
	}
	lv := strings.ToLower(v)
	switch lv {
	case "password", "passwd", "pass", "pwd", "token", "changeme", "none", "null", "empty", "string":
		return true
	}
	if i := strings.IndexByte(v, '$'); i >= 0 && i+1 < len(v) {
		c := v[i+1]
		if c == '{' || c == '(' || c >= 'A' && c <= 'Z' || c == '_' && i+2 < len(v) && v[i+2] >= 'A' && v[i+2] <= 'Z' {
			return true // ${VAR}, $(cmd), $VAR, $_ENV
		}
	}
	if lt := strings.IndexByte(v, '<'); lt >= 0 && strings.IndexByte(v[lt:], '>') > 0 {
		return true // <TOKEN>, <your-key>
	}
	found := false
	placeholderAC().scan(v, func(int, int) bool { found = true; return false })
	return found || oneCharDominates(v) || fakeUUID(v)
}

// oneCharDominates reports whether a single byte makes up most of the
// alphanumeric body (after the longest run of identical bytes is taken into
// account): "AAAAAAAAAAAAAAAA", "sk_live_0000000000000000".
func oneCharDominates(v string) bool {
	var counts [256]int
	alnum := 0
	maxRun, run := 0, 0
	for i := 0; i < len(v); i++ {
		b := v[i]
		if isAlnum(b) {
			counts[b]++
			alnum++
		}
		if i > 0 && v[i] == v[i-1] {
			run++
		} else {
			run = 1
		}
		if run > maxRun {
			maxRun = run
		}
	}
	if alnum == 0 {
		return true
	}
	top := 0
	for _, c := range counts {
		if c > top {
			top = c
		}
	}
	if alnum >= 8 && top*10 >= alnum*7 {
		return true
	}
	return maxRun >= 12 && maxRun*2 >= len(v)
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// isUUID reports whether v is a canonical 8-4-4-4-12 UUID.
func isUUID(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if v[i] != '-' {
				return false
			}
		default:
			if !isHex(v[i]) {
				return false
			}
		}
	}
	return true
}

// isVersion reports whether v is a version string like "1.2.3" or "v2.0.0-rc1".
func isVersion(v string) bool {
	s := strings.TrimPrefix(strings.TrimPrefix(v, "v"), "V")
	if s == "" || !isDigit(s[0]) {
		return false
	}
	dots := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
		case c == '.':
			dots++
		case c == '-' || c == '+':
			return dots >= 1
		default:
			return false
		}
	}
	return dots >= 1
}

// charClasses counts which classes of characters v uses.
func charClasses(v string) (lower, upper, digit, other bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case isDigit(c):
			digit = true
		default:
			other = true
		}
	}
	return
}

// portLike reports whether v is a short run of digits (a port number
// mistaken for a password in "host:8080@...").
func portLike(v string) bool {
	if len(v) == 0 || len(v) > 5 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
	}
	return true
}

// fakeUUID reports whether v holds groups of 8-4-4-4-12 letters and
// digits split by '-' (the shape of a UUID) that are not all hexadecimal:
// a hand-made stand-in such as "a1b2c3d4-e5f6-g7h8-i8j0-k0l3m3n4o0p5".
func fakeUUID(v string) bool {
	if len(v) < 36 || strings.Count(v, "-") < 4 {
		return false
	}
	for i := 0; i+36 <= len(v); i++ {
		if i > 0 && isAlnum(v[i-1]) || i+36 < len(v) && isAlnum(v[i+36]) {
			continue
		}
		shape, hex := true, true
		for j := 0; j < 36 && shape; j++ {
			c := v[i+j]
			switch j {
			case 8, 13, 18, 23:
				shape = c == '-'
			default:
				shape = isAlnum(c)
				hex = hex && isHex(c)
			}
		}
		if shape && !hex {
			return true
		}
	}
	return false
}

// wordStart reports whether a keyword found at text[i] may start a word:
// it does not when it continues a run of lower-case letters
// ("AjentinaSamoa" holds no "nasa"). Case changes and other bytes are
// word starts ("myNasaKey", "-Dsonar.login", "buddynsPRIVATE").
func wordStart(text string, i int) bool {
	if i == 0 {
		return true
	}
	p, c := text[i-1], text[i]|0x20
	return !(p >= 'a' && p <= 'z' && c >= 'a' && c <= 'z' && text[i] >= 'a')
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
