package privacy

import (
	"slices"
	"testing"
)

func TestKinds(t *testing.T) {
	want := []string{"secret", "credential", "cookie", "header", "url", "host", "ip", "email", "path", "bytes", "plain"}
	if got := Kinds(); !slices.Equal(got, want) {
		t.Fatalf("Kinds() = %v, want %v", got, want)
	}
	for _, k := range want {
		if !Known(k) {
			t.Errorf("Known(%q) = false", k)
		}
	}
	for _, k := range []string{"", "URL", "password", "plain "} {
		if Known(k) {
			t.Errorf("Known(%q) = true", k)
		}
	}
	ks := Kinds()
	ks[0] = "changed"
	if Kinds()[0] != Secret {
		t.Error("Kinds returns the package's own slice")
	}
}

func TestRedacts(t *testing.T) {
	for k, want := range map[string]bool{"": false, Plain: false, Secret: true, URL: true, Bytes: true} {
		if got := Redacts(k); got != want {
			t.Errorf("Redacts(%q) = %v, want %v", k, got, want)
		}
	}
}
