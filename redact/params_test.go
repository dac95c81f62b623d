package redact

import "testing"

func TestCredentialName(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "Passwd": true, "pwd": true, "user_pass": true, "pass": true, "api_key": true, "apiKey": true,
		"X-CSRF-Token": true, "access_token": true, "client_secret": true, "sessionid": true, "userPin": true, "pin": true,
		"key": true, "auth": true, "otp": true, "mfa_code": true, "private_key": true, "jwt": true,
		"author": false, "keyboard": false, "spinner": false, "next": false, "theme": false, "username": false,
		"user": false, "remember": false, "passage": false, "email": false, "monkey": false, "q": false, "": false,
	} {
		if got := CredentialName(name); got != want {
			t.Errorf("CredentialName(%q) = %v", name, got)
		}
	}
}

// CredentialMembers removes the string values of credential members at any
// depth and keeps every other byte.
func TestCredentialMembers(t *testing.T) {
	r := newTest(t, Balanced)
	in := `{"user": "alice", "password": "hunter2", "n": {"api_key": "k\"1", "list": ["password"]}, "pin": 1234}`
	want := `{"user": "alice", "password": "[REDACTED:credential]", "n": {"api_key": "[REDACTED:credential]", "list": ["password"]}, "pin": 1234}`
	if got := string(r.CredentialMembers([]byte(in))); got != want {
		t.Errorf("CredentialMembers:\n got %s\nwant %s", got, want)
	}
	for _, keep := range []string{`{"user":"alice"}`, `not json`, `{"password":""}`} {
		if got := string(r.CredentialMembers([]byte(keep))); got != keep {
			t.Errorf("CredentialMembers(%s) = %s", keep, got)
		}
	}
	if got := string(newTest(t, Off).CredentialMembers([]byte(in))); got != in {
		t.Errorf("off changed %s", got)
	}
}
