package secretscan

import (
	"strings"
	"testing"
)

func TestExtractAssignment(t *testing.T) {
	for _, tc := range []struct {
		text, kw string
		name     string
		value    string // "" = no assignment
	}{
		{`DB_PASSWORD=s3cr3t!x`, "password", "DB_PASSWORD", "s3cr3t!x"},
		{`password: "a b"`, "password", "password", "a b"},
		{`"apiKey": "v1x"`, "key", "apiKey", "v1x"},
		{`api_key := "v2"`, "key", "api_key", "v2"},
		{`:password => 'v3'`, "password", "password", "v3"},
		{`<password>v4</password>`, "password", "password", "v4"},
		{`if password == "v5" {`, "password", "password", "v5"},
		{`the password is 'v6'`, "password", "password", "v6"},
		{`TOKEN 0123456789abcdef0123`, "token", "TOKEN", "0123456789abcdef0123"},
		{`vendor-secret-123e4567-e89b-12d3-a456-426614174000`, "secret", "vendor-secret", "123e4567-e89b-12d3-a456-426614174000"},
		{`password = getPassword()`, "password", "", ""},
		{`password == other`, "password", "", ""},
		{`https://host/password://x`, "password", "", ""},
		{`password`, "password", "", ""},
		{`"Password:",next`, "password", "", ""},
	} {
		i := strings.Index(strings.ToLower(tc.text), tc.kw)
		a, ok := extractAssignment(tc.text, i, i+len(tc.kw))
		if tc.value == "" {
			if ok {
				t.Errorf("%q: got value %q", tc.text, tc.text[a.valStart:a.valEnd])
			}
			continue
		}
		if !ok {
			t.Errorf("%q: no assignment", tc.text)
			continue
		}
		if n, v := tc.text[a.nameStart:a.nameEnd], tc.text[a.valStart:a.valEnd]; n != tc.name || v != tc.value {
			t.Errorf("%q: name %q value %q", tc.text, n, v)
		}
	}
}

func TestClassifyName(t *testing.T) {
	for _, tc := range []struct {
		name       string
		class      assignClass
		ok, strong bool
	}{
		{"DB_PASSWORD", assignPassword, true, true},
		{"dbPassword", assignPassword, true, true},
		{"password_file", assignPassword, false, false},
		{"api_key", assignAPIKey, true, true},
		{"apiKey", assignAPIKey, true, true},
		{"key", assignAPIKey, true, false},
		{"public_key", assignAPIKey, false, false},
		{"api_key_id", assignAPIKey, false, false},
		{"keyboard", assignAPIKey, false, false},
		{"monkey", assignAPIKey, false, false},
		{"client_secret", assignSecret, true, true},
		{"secret_name", assignSecret, false, false},
		{"access_token", assignToken, true, true},
		{"csrf_token", assignToken, false, false},
		{"token_type", assignToken, false, false},
		{"max_tokens", assignToken, false, false},
		{"credentials", assignCredential, true, false},
		{"author", assignCredential, false, false},
	} {
		ok, strong := classifyName(tc.name, tc.class)
		if ok != tc.ok || strong != tc.strong {
			t.Errorf("classifyName(%q) = %v,%v want %v,%v", tc.name, ok, strong, tc.ok, tc.strong)
		}
	}
}
