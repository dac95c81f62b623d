package secretscan

import (
	"strings"
	"testing"
)

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

func TestNamesAWSSecretKey(t *testing.T) {
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
