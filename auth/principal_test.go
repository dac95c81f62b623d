package auth

import (
	"context"
	"errors"
	"testing"
)

func TestEntitled(t *testing.T) {
	tests := []struct {
		entitlements []string
		tool         string
		want         bool
	}{
		{[]string{"keysweep"}, "keysweep_scan_text", true},
		{[]string{"keysweep"}, "keysweep", true},
		{[]string{"keysweep_*"}, "keysweep_scan_text", true},
		{[]string{"keysweep_*"}, "keysweep", false},
		{[]string{"keysweep_scan_*"}, "keysweep_scan_text", true},
		{[]string{"keysweep_scan_*"}, "keysweep_list", false},
		{[]string{"*"}, "anything_at_all", true},
		{[]string{"keysweep_scan_text"}, "keysweep_scan_text", true},
		{[]string{"keysweep_scan"}, "keysweep_scan_text", false}, // a name with "_" is exact
		{[]string{"keysweep"}, "keysweeper_scan", false},
		{[]string{"keysweep"}, "webscan_check", false},
		{[]string{"Keysweep"}, "keysweep_scan_text", false}, // case-sensitive
		{[]string{"keysweep_"}, "keysweep_scan_text", false},
		{[]string{"_*"}, "keysweep_scan_text", false},
		{[]string{"web", "keysweep"}, "keysweep_scan_text", true},
		{nil, "keysweep_scan_text", false},
		{[]string{"*"}, "", false},
	}
	for _, tt := range tests {
		p := Principal{Entitlements: tt.entitlements}
		if got := p.Entitled(tt.tool); got != tt.want {
			t.Errorf("%v.Entitled(%q) = %v, want %v", tt.entitlements, tt.tool, got, tt.want)
		}
	}
}

func TestCheckEntitled(t *testing.T) {
	p := Principal{Entitlements: []string{"keysweep"}}
	if err := p.CheckEntitled("keysweep_scan_text"); err != nil {
		t.Fatalf("entitled tool: %v", err)
	}
	err := p.CheckEntitled("webscan_check_headers")
	var e *EntitlementError
	if !errors.As(err, &e) || e.Tool != "webscan_check_headers" || e.Code() != "forbidden" {
		t.Fatalf("CheckEntitled = %#v", err)
	}
	if got, want := err.Error(), "forbidden: credential lacks the webscan_check_headers entitlement"; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
}

func TestPrincipalContext(t *testing.T) {
	if _, ok := PrincipalFrom(context.Background()); ok {
		t.Fatal("principal in an empty context")
	}
	ctx := WithPrincipal(context.Background(), Principal{Credential: "c", Tenant: "t"})
	p, ok := PrincipalFrom(ctx)
	if !ok || p.Credential != "c" || p.Tenant != "t" {
		t.Fatalf("PrincipalFrom = %+v, %v", p, ok)
	}
}

func TestPrincipalLogValueHasNoSecrets(t *testing.T) {
	p := Principal{Credential: "c", Tenant: "t", KeyID: "k", TokenID: "j", Scopes: []string{"s"}}
	got := p.LogValue().String()
	want := "[credential=c tenant=t kid=k jti=j]"
	if got != want {
		t.Fatalf("LogValue = %s, want %s", got, want)
	}
}
