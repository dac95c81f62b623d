package policy

import "testing"

func TestScope(t *testing.T) {
	s, err := NewScope([]string{"example.com", "*.Example.ORG", "bücher.example", "10.0.0.1"}, []string{"admin.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		"https://example.com/path":       true,
		"https://EXAMPLE.com./x":         true,
		"example.com:8443":               true,
		"https://www.example.com":        false, // exact names do not cover subdomains
		"https://a.example.org":          true,
		"https://x.y.example.org:443/":   true,
		"https://example.org":            false, // *.suffix does not cover the apex
		"https://admin.example.org":      false, // excluded
		"https://ADMIN.example.org.":     false,
		"https://xn--bcher-kva.example/": true, // the IDNA form of bücher.example
		"bücher.example":                 true,
		"http://10.0.0.1/":               true,
		"http://[::1]/":                  false,
		"https://evilexample.com":        false,
		"https://example.com.evil.net":   false,
		"https://user@example.com/":      true,
	}
	for target, want := range cases {
		h, err := TargetHost(target)
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		if got := s.Allows(h); got != want {
			t.Errorf("%s (host %s): in scope %v, want %v", target, h, got, want)
		}
	}
	for _, bad := range []string{"", "https:///nohost", "not a host/path"} {
		if _, err := TargetHost(bad); err == nil {
			t.Errorf("TargetHost(%q) accepted", bad)
		}
	}
	for _, bad := range []string{"https://example.com", "*", "a*.example.com", "user@example.com"} {
		if _, err := NewScope([]string{bad}, nil); err == nil {
			t.Errorf("scope entry %q accepted", bad)
		}
	}
	open, _ := NewScope(nil, nil)
	if h, _ := TargetHost("https://anything.example"); !open.Allows(h) || open.Restricted() {
		t.Error("an empty scope must admit every target")
	}
}
