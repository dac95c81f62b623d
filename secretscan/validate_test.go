package secretscan

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestValidators(t *testing.T) {
	jwtOK := "eyJhbGciOiJIUzI1NiJ9." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"x"}`)) + ".c2ln"
	pemBody := base64.StdEncoding.EncodeToString(append([]byte{0x30, 0x82}, make([]byte, 100)...))
	for _, tc := range []struct {
		name   string
		v      validator
		secret string
		match  string
		want   check
	}{
		{"github valid", crc32Tail(4), validGitHub, "", checkValid},
		{"github altered", crc32Tail(4), validGitHub[:39] + "Q", "", checkInvalid},
		{"github short", crc32Tail(4), "ghp_abc", "", checkInvalid},
		{"jwt valid", validJWT, jwtOK, "", checkValid},
		{"jwt bad header", validJWT, "eyJub3QganNvbg.eyJ4IjoxfQ.c2ln", "", checkInvalid},
		{"pem der", validPEM, "", "-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "\n-----END RSA PRIVATE KEY-----", checkValid},
		{"pem json escapes", validPEM, "", `-----BEGIN PRIVATE KEY-----\n` + pemBody + `\n-----END PRIVATE KEY-----`, checkValid},
		{"pem random", validPEM, "", "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("Zm9v", 30) + "\n-----END RSA PRIVATE KEY-----", checkInvalid},
		{"basic auth", validBasicAuth, base64.StdEncoding.EncodeToString([]byte("u:p")), "", checkValid},
		{"basic no colon", validBasicAuth, base64.StdEncoding.EncodeToString([]byte("nocolon")), "", checkInvalid},
		{"azure 64 bytes", validBase64Len(64), base64.StdEncoding.EncodeToString(make([]byte, 64)), "", checkValid},
		{"azure 63 bytes", validBase64Len(64), base64.StdEncoding.EncodeToString(make([]byte, 63)), "", checkInvalid},
		{"aws id", validAWSKeyID, "AKIAQWERTYUIOPASDF23", "", checkValid},
		{"aws id bad alphabet", validAWSKeyID, "AKIAQWERTYUIOPASDF19", "", checkInvalid},
		{"slack", validSlack, "xoxb-123-456-abc", "", checkValid},
		{"slack old", validSlack, "xoxb-123-abc", "", checkInvalid},
		{"openai marker", containsMarker("T3BlbkFJ"), "sk-xT3BlbkFJy", "", checkValid},
	} {
		if got := tc.v(tc.secret, tc.match); got != tc.want {
			t.Errorf("%s: got %v want %v", tc.name, got, tc.want)
		}
	}
}

func TestUserinfoAhead(t *testing.T) {
	for text, want := range map[string]bool{
		"postgres://u:p@h":        true,
		"mongodb+srv://u:p@h":     true,
		"https://example.com/a@b": false,
		"https://u@h":             false,
		"postgres is great":       false,
	} {
		if got := userinfoAhead(text, 0, 4); got != want {
			t.Errorf("%q: %v", text, got)
		}
	}
}

func TestPrefilters(t *testing.T) {
	for _, tc := range []struct {
		name string
		pre  func(string, int, int) bool
		text string
		kw   string
		want bool
	}{
		{"semicolon", semicolonBefore, "Server=db;Password=x", "Password=", true},
		{"semicolon blanks", semicolonBefore, "Server=db; \tPwd=x", "Pwd=", true},
		{"no semicolon", semicolonBefore, "password=x", "password=", false},
		{"comma", semicolonBefore, "a=1,password=x", "password=", false},
		{"tf token", tfCredentialVariable, `variable "ops_api_token" {`, `variable "`, true},
		{"tf key", tfCredentialVariable, `variable "Stripe-API-Key" {`, `variable "`, true},
		{"tf region", tfCredentialVariable, `variable "region" {`, `variable "`, false},
		{"tf unterminated", tfCredentialVariable, `variable "token`, `variable "`, false},
		{"tf empty", tfCredentialVariable, `variable "" {`, `variable "`, false},
	} {
		i := strings.Index(tc.text, tc.kw)
		if got := tc.pre(tc.text, i, i+len(tc.kw)); got != tc.want {
			t.Errorf("%s: %q = %v", tc.name, tc.text, got)
		}
	}
}
