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
