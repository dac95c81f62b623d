package secretscan

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/errcode"
)

var acmeRule = CustomRule{
	ID: "acme-internal-token", Keywords: []string{"acme_tok_"}, Regex: `\b(acme_tok_[A-Za-z0-9]{32})\b`,
	Severity: SeverityHigh, Entropy: 3.5,
	Match:   []string{"ACME=acme_tok_9fK2mQ7xLp4Rz8Vn1Bc6Hd3Jw5Ts0Ya2"},
	NoMatch: []string{"acme_tok_" + strings.Repeat("a", 32)},
}

// A custom rule runs through the same engine: found in text, with its own
// id and type, and its keyword in the prefilter.
func TestCustomRuleFindsItsFormat(t *testing.T) {
	s, err := Build(&Options{CustomRules: []CustomRule{acmeRule}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Scan(context.Background(), "config:\n  token: acme_tok_Q1w2E3r4T5y6U7i8O9p0AsDfGhJkLzXc\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Detections) != 1 || res.Detections[0].RuleID != "acme-internal-token" || res.Detections[0].Family != FamilyCustom ||
		res.Detections[0].Type != "acme_internal_token" || res.Detections[0].Severity != SeverityHigh {
		t.Fatalf("detections %v", res.Detections)
	}
	// The built-in rules still run beside it.
	res, _ = s.Scan(context.Background(), "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY1\nAKIAIOSFODNN7ABCDEFG")
	if len(res.Detections) == 0 {
		t.Error("the built-in rules no longer run")
	}
}

func TestCustomRulesAreCheckedWhenTheyLoad(t *testing.T) {
	bad := func(mod func(*CustomRule)) CustomRule {
		r := acmeRule
		r.Match, r.NoMatch = append([]string(nil), acmeRule.Match...), append([]string(nil), acmeRule.NoMatch...)
		mod(&r)
		return r
	}
	for name, r := range map[string]CustomRule{
		"id not kebab":         bad(func(r *CustomRule) { r.ID = "Acme Token" }),
		"a built-in id":        bad(func(r *CustomRule) { r.ID = "github-ghp" }),
		"no keyword":           bad(func(r *CustomRule) { r.Keywords = nil }),
		"bad regex":            bad(func(r *CustomRule) { r.Regex = `acme_tok_(` }),
		"empty-string regex":   bad(func(r *CustomRule) { r.Regex = `x*` }),
		"no severity":          bad(func(r *CustomRule) { r.Severity = SeverityNone }),
		"no examples":          bad(func(r *CustomRule) { r.Match = nil }),
		"example not found":    bad(func(r *CustomRule) { r.Match = []string{"acme_tok_short"} }),
		"keyword not in match": bad(func(r *CustomRule) { r.Keywords = []string{"zzz_"} }),
		"no_match found":       bad(func(r *CustomRule) { r.NoMatch = r.Match }),
	} {
		_, err := Build(&Options{CustomRules: []CustomRule{r}})
		var ce *errcode.Error
		if err == nil || !errors.As(err, &ce) || ce.Code != CodeInvalidRule {
			t.Errorf("%s: accepted (%v)", name, err)
		}
	}
	if _, err := Build(&Options{DisabledRules: []string{"no-such-rule"}}); err == nil {
		t.Error("disabling an unknown rule id was accepted")
	}
	if _, err := Build(&Options{AllowValues: []AllowValue{{Pattern: regexp.MustCompile("x")}}}); err == nil {
		t.Error("an allowed value without a reason was accepted")
	}
}

func TestDisabledRulesAndAllowedValues(t *testing.T) {
	text := "token = ghp_R4nd0mT0kenValue1234567890abcdefABCD\n"
	s := New(nil)
	res, _ := s.Scan(context.Background(), text)
	if len(res.Detections) == 0 {
		t.Fatal("no baseline detection")
	}
	id := res.Detections[0].RuleID
	off, err := Build(&Options{DisabledRules: []string{id}})
	if err != nil {
		t.Fatal(err)
	}
	res, _ = off.Scan(context.Background(), text)
	for _, d := range res.Detections {
		if d.RuleID == id {
			t.Errorf("rule %s disabled, still found: %v", id, d)
		}
	}
	allow, err := Build(&Options{AllowValues: []AllowValue{{Pattern: regexp.MustCompile(`^ghp_R4nd0m`), Reason: "the test fixture's token"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := allow.Scan(context.Background(), text); len(res.Detections) != 0 || res.Suppressed != 1 {
		t.Errorf("allowed value: %d detections, %d suppressed", len(res.Detections), res.Suppressed)
	}
}
