package secretscan

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// evidence ranks what a match of a rule's pattern proves on its own. It is
// the first input of the confidence score (see doc.go).
type evidence int

const (
	// evGeneric: a keyword-named assignment with a plausible value.
	evGeneric evidence = iota
	// evKeyword: a vendor keyword next to a value of the vendor's shape.
	evKeyword
	// evPrefix: a distinctive literal prefix plus exact length/alphabet.
	evPrefix
	// evStructure: a self-describing structure (PEM armour, JSON document,
	// URL with credentials) that only a credential has.
	evStructure
)

// check is the outcome of a structural validator.
type check int

const (
	checkNone    check = iota // the validator has nothing to say
	checkValid                // checksum or structure verified
	checkInvalid              // the checksum or structure is wrong
)

// validator inspects a secret (and the whole match) and reports whether its
// checksum or internal structure holds.
type validator func(secret, match string) check

// rule is one credential type, written as data. Rules live in the
// rules_*.go files, one family per file, and are compiled once.
type rule struct {
	ID       string   // stable kebab-case id, e.g. "github-pat-classic"
	Type     string   // snake_case credential type reported in detections
	Name     string   // human-readable description
	Family   string   // cloud, vcs, cicd, package, payment, comms, ai, observability, saas, database, key, token, identifier, generic
	Severity Severity // severity of a confirmed finding
	Evidence evidence // what a bare match proves

	// Keywords are prefilter literals, matched ASCII case-insensitively.
	// The pattern runs only in windows around their occurrences, so each
	// keyword must occur in (or just before) every match.
	Keywords []string
	// Pattern is an RE2 expression. The secret is the group named
	// "secret", else group 1, else the whole match.
	Pattern string
	// Assign, instead of Pattern, selects the hand-written
	// "name = value" extractor used by the generic rules.
	Assign *assignSpec
	// Before and After bound the window around a keyword hit in which a
	// match may start and end. Zero means 8 and 512 bytes.
	Before, After int

	MinEntropy     float64   // Shannon entropy floor of the secret in bits per char; 0: none
	MinLen, MaxLen int       // bounds on the secret's length in bytes; 0: none (keeps large counted repetitions out of patterns)
	Validate       validator // optional structural check that moves confidence
	// Exclude, when set, drops a match that the pattern cannot rule out
	// itself (RE2 has no look-ahead): an API path where a name should be.
	Exclude func(secret string) bool
	// Pre, when set, is a cheap check of a keyword hit (text, start, end)
	// that must pass before the pattern runs around it.
	Pre              func(text string, start, end int) bool
	NoBoundary       bool // do not require a non-alphanumeric byte around the secret
	KeepPlaceholders bool // skip the placeholder filter (for structured values checked otherwise)
	Priority         int  // tie-breaker when two rules claim overlapping spans
	Identifier       bool // sensitive identifier, not a secret: dropped by Options.SkipIdentifiers
	Multiline        bool // matches may span lines (implied by (?s) or \n in Pattern)

	// Examples must each produce a detection of this rule;
	// NegativeExamples must produce none. rules_test.go runs both.
	Examples         []string
	NegativeExamples []string
}

// assignSpec configures the generic assignment extractor.
type assignSpec struct {
	class assignClass
}

type compiledRule struct {
	*rule
	idx       int
	before    int
	after     int
	multiline bool // pattern can span lines: windows are not clipped to the keyword's line

	// The pattern is compiled when a keyword hit first needs it: most
	// texts name few rules' keywords, and compiling every pattern up
	// front was most of a server's start-up (TestRulesCompile compiles
	// them all).
	compile   sync.Once
	re        *regexp.Regexp
	secretIdx int // submatch index of the secret (0 = whole match)
	userIdx   int // submatch index of a "user" group (URLs), or -1
	idIdx     int // submatch index of an "id" group (the key ID of a pair), or -1
}

// regexp returns the rule's compiled pattern, compiling it on first use.
// TestRulesCompile compiles every built-in pattern, so MustCompile cannot
// fail here.
func (c *compiledRule) regexp() *regexp.Regexp {
	c.compile.Do(func() {
		re := regexp.MustCompile(c.Pattern)
		c.userIdx = re.SubexpIndex("user")
		c.idIdx = re.SubexpIndex("id")
		if k := re.SubexpIndex("secret"); k > 0 {
			c.secretIdx = k
		} else if re.NumSubexp() >= 1 {
			c.secretIdx = 1
		}
		c.re = re
	})
	return c.re
}

// RuleInfo describes a rule for documentation and for SARIF output.
type RuleInfo struct {
	ID        string   `json:"id"`
	Type      string   `json:"type"`
	Name      string   `json:"name"`
	Family    string   `json:"family"`
	Severity  Severity `json:"severity"`
	Keywords  []string `json:"keywords"`
	Validated bool     `json:"validated"` // has a checksum or structure check
	// Identifier rules report sensitive identifiers (ARNs, bucket names),
	// not secrets; Options.SkipIdentifiers drops them.
	Identifier bool `json:"identifier,omitempty"`
}

func compileRules(rs []*rule) ([]*compiledRule, error) {
	out := make([]*compiledRule, 0, len(rs))
	seen := map[string]bool{}
	for i, r := range rs {
		if r.ID == "" || r.Type == "" || len(r.Keywords) == 0 {
			return nil, fmt.Errorf("rule %d (%q): id, type and keywords are required", i, r.ID)
		}
		if seen[r.ID] {
			return nil, fmt.Errorf("rule %q: duplicate id", r.ID)
		}
		seen[r.ID] = true
		if r.Severity == SeverityNone {
			return nil, fmt.Errorf("rule %q: severity required", r.ID)
		}
		c := &compiledRule{rule: r, idx: i, before: r.Before, after: r.After}
		if c.before == 0 {
			c.before = 8
		}
		if c.after == 0 {
			c.after = 512
		}
		if (r.Pattern == "") == (r.Assign == nil) {
			return nil, fmt.Errorf("rule %q: exactly one of Pattern and Assign", r.ID)
		}
		if r.Pattern != "" {
			c.multiline = r.Multiline || strings.Contains(r.Pattern, "(?s") || strings.Contains(r.Pattern, "(?is") || strings.Contains(r.Pattern, `\n`)
		}
		out = append(out, c)
	}
	return out, nil
}

// allRules gathers the rule families in a fixed order.
func allRules() []*rule {
	var rs []*rule
	for _, fam := range [][]*rule{
		cloudRules, vcsRules, cicdRules, packageRules, paymentRules,
		commsRules, aiRules, observabilityRules, saasRules, vendorRulesAL, vendorRulesMZ,
		databaseRules, keyRules, tokenRules, identifierRules, genericRules,
	} {
		rs = append(rs, fam...)
	}
	return rs
}

// Rules lists the built-in rules, sorted by ID.
func Rules() []RuleInfo {
	rs := allRules()
	out := make([]RuleInfo, 0, len(rs))
	for _, r := range rs {
		kw := append([]string(nil), r.Keywords...)
		out = append(out, RuleInfo{ID: r.ID, Type: r.Type, Name: r.Name, Family: r.Family,
			Severity: r.Severity, Keywords: kw, Validated: r.Validate != nil, Identifier: r.Identifier})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// keywordIndex returns the deduplicated lower-cased keywords of all rules
// and, for each, the indices of the rules that use it.
func keywordIndex(rules []*compiledRule) ([]string, [][]int) {
	pos := map[string]int{}
	var kws []string
	var users [][]int
	for _, r := range rules {
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			i, ok := pos[k]
			if !ok {
				i = len(kws)
				pos[k] = i
				kws = append(kws, k)
				users = append(users, nil)
			}
			if n := len(users[i]); n == 0 || users[i][n-1] != r.idx {
				users[i] = append(users[i], r.idx)
			}
		}
	}
	return kws, users
}
