package secretscan

import (
	"math"
	"testing"
)

func TestFilters(t *testing.T) {
	for _, tc := range []struct {
		v                          string
		placeholder, uuid, version bool
	}{
		{"ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", true, false, false},
		{"<YOUR_TOKEN>", true, false, false},
		{"your_api_key_here", true, false, false},
		{"changeme", true, false, false},
		{"${DB_PASSWORD}", true, false, false},
		{"$PASSWORD", true, false, false},
		{"super$ecret", false, false, false},
		{"{{ .Values.x }}", true, false, false},
		{"********", true, false, false},
		{"AKIAIOSFODNN7EXAMPLE", true, false, false},
		{"sk_live_000000000000000000000000", true, false, false},
		{"AAAAAAAAAAAAAAAAAAAAAAAA", true, false, false},
		{"Zq3!vK9#pL2wXy", false, false, false},
		{"550e8400-e29b-41d4-a716-446655440000", false, true, false},
		{"a1b2c3d4-e5f6-g7h8-i8j0-k0l3m3n4o0p5", true, false, false},        // UUID shape, not hex
		{"px-dep-d4c3b2a1-f6e5-h8g7-j1i8-p5o0n5m3l2k1", true, false, false}, // inside a prefix
		{"px-api-550e8400-e29b-41d4-a716-446655440000", false, false, false},
		{"1.2.3", false, false, true},
		{"v10.4.0-rc1", false, false, true},
		{"1.2", false, false, true},
		{"12", false, false, false},
	} {
		if got := isPlaceholder(tc.v); got != tc.placeholder {
			t.Errorf("isPlaceholder(%q) = %v", tc.v, got)
		}
		if got := isUUID(tc.v); got != tc.uuid {
			t.Errorf("isUUID(%q) = %v", tc.v, got)
		}
		if got := isVersion(tc.v); got != tc.version {
			t.Errorf("isVersion(%q) = %v", tc.v, got)
		}
	}
}

func TestShannon(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want float64
	}{{"", 0}, {"aaaa", 0}, {"ab", 1}, {"abcd", 2}, {"0123456789abcdef", 4}} {
		if got := shannon(tc.s); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("shannon(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestPortLikeAndRuneCount(t *testing.T) {
	if !portLike("8080") || portLike("80800a") || portLike("") || portLike("123456") {
		t.Error("portLike")
	}
	for _, s := range []string{"", "abc", "héllo wörld", "\xff\xfe", "0123456789abcdefé"} {
		if got, want := runeCount(s), len([]rune(s)); got != want {
			t.Errorf("runeCount(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestFakeUUID(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"550e8400-e29b-41d4-a716-446655440000", false},
		{"550E8400-E29B-41D4-A716-446655440000", false},
		{"550e8400-e29b-41d4-a716-44665544000g", true},
		{"x-550e8400-e29b-41d4-a716-44665544000g-y", true},
		{"550e8400-e29b-41d4-a716-44665544000gz", false}, // 13 characters in the last group
		{"550e8400_e29b_41d4_a716_44665544000g", false},  // not dashes
		{"ghijklmn-opqr-stuv-wxyz-ghijklmnopqr", true},
		{"short-1-2-3-4", false},
		{"", false},
	} {
		if got := fakeUUID(tc.v); got != tc.want {
			t.Errorf("fakeUUID(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
