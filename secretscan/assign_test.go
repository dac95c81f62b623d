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

func TestAWSSecretNameShape(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"aws_secret_access_key", true}, {"AWS-SECRET-KEY", true}, {"secretaccesskey", true},
		{"aws.secret", true}, {"client_secret", false}, {"aws_access_key_id", false},
	} {
		if got := namesAWSSecretKey(strings.ToLower(tc.name)); got != tc.want {
			t.Errorf("namesAWSSecretKey(%q) = %v", tc.name, got)
		}
	}
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"kF3n7Qm1/xA9zL0pR2sT4uV6wY8bC+dE5gH7jK9m", true},
		{"kF3n7Qm1/xA9zL0pR2sT4uV6wY8bC+dE5gH7jK9", false},   // 39
		{"kF3n7Qm1/xA9zL0pR2sT4uV6wY8bC+dE5gH7jK9mz", false}, // 41
		{"kF3n7Qm1-xA9zL0pR2sT4uV6wY8bC+dE5gH7jK9m", false},  // '-' is not base64
	} {
		if got := awsSecretShape(tc.v); got != tc.want {
			t.Errorf("awsSecretShape(%q) = %v", tc.v, got)
		}
	}
}

func TestNamesNonSecret(t *testing.T) {
	for _, tc := range []struct {
		text, kw string
		want     bool
	}{
		{"AUTH0_CLIENT_ID=x", "auth0", true},
		{"auth0ClientId: x", "auth0", true},
		{"OKTA_DOMAIN=x", "okta", true},
		{"AUTH0_CLIENT_SECRET=x", "auth0", false},
		{"auth0 token: x", "auth0", false},
		{"AUTH0=x", "auth0", false},
		{"https://x.okta.com/api", "okta", false},
	} {
		i := strings.Index(strings.ToLower(tc.text), tc.kw)
		if got := namesNonSecret(tc.text, i, i+len(tc.kw)); got != tc.want {
			t.Errorf("namesNonSecret(%q) = %v", tc.text, got)
		}
	}
}

func TestAnonymousLogin(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"server->user = \"anonymous\";\nserver->password = \"ftp@\";", true},
		{"LOGIN: Anonymous\nPASSWORD: guest@", true},
		{"user = \"anonymous\"; password = \"x@\"", true},
		{"user = \"admin\";\npassword = \"Zq3!vK9#pL2w\";", false},
		{"// anonymous access is off\npassword = \"Zq3!vK9#pL2w\";", false},
		{"user = \"anonymous\"\n\n\n\n\npassword = \"Zq3!vK9#pL2w\"", false}, // more than three lines up
	} {
		i := strings.LastIndex(strings.ToLower(tc.text), "password")
		if got := anonymousLogin(tc.text, i); got != tc.want {
			t.Errorf("anonymousLogin(%q) = %v", tc.text, got)
		}
	}
}
