package secretscan

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

func TestRulesCompile(t *testing.T) {
	rules, err := compileRules(allRules())
	if err != nil {
		t.Fatal(err)
	}
	// Patterns are compiled on first use: compile each here, so that a
	// pattern that does not compile fails the build, not a scan.
	for _, r := range rules {
		if r.Pattern == "" {
			continue
		}
		if _, err := regexp.Compile(r.Pattern); err != nil {
			t.Errorf("rule %s: %v", r.ID, err)
			continue
		}
		if r.regexp() == nil {
			t.Errorf("rule %s: no pattern compiled", r.ID)
		}
	}
	types := map[string]bool{}
	for _, r := range allRules() {
		types[r.Type] = true
		if len(r.Examples) == 0 {
			t.Errorf("rule %s has no examples", r.ID)
		}
		for _, k := range r.Keywords {
			if len(k) < 3 && r.Pre == nil && strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == "" {
				t.Errorf("rule %s: keyword %q too short for the prefilter without a Pre check", r.ID, k)
			}
		}
	}
	if len(types) < 200 {
		t.Errorf("only %d credential types, want >= 200", len(types))
	}
	t.Logf("%d rules, %d credential types", len(allRules()), len(types))
}

// TestRuleExamples runs every rule's positive and negative examples.
func TestRuleExamples(t *testing.T) {
	s := New(&Options{FingerprintKey: []byte("test")})
	for _, r := range allRules() {
		for _, ex := range r.Examples {
			res, err := s.Scan(context.Background(), ex)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			var got []string
			for _, d := range res.Detections {
				got = append(got, d.RuleID)
				if d.RuleID == r.ID {
					found = true
				}
			}
			if !found {
				t.Errorf("rule %s: example not detected (got %v): %.80q", r.ID, got, ex)
			}
		}
		for _, ex := range r.NegativeExamples {
			res, err := s.Scan(context.Background(), ex)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range res.Detections {
				if d.RuleID == r.ID {
					t.Errorf("rule %s: negative example detected: %.80q", r.ID, ex)
				}
			}
		}
	}
}

func TestRuleKeywordsInExamples(t *testing.T) {
	for _, r := range allRules() {
		for _, ex := range r.Examples {
			lx := strings.ToLower(ex)
			ok := false
			for _, k := range r.Keywords {
				if strings.Contains(lx, strings.ToLower(k)) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("rule %s: example lacks every keyword: %.60q", r.ID, ex)
			}
		}
	}
}
