package secretscan

import (
	"strings"
	"testing"
)

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
