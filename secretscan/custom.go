package secretscan

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/warden-mcp/warden/errcode"
)

// CodeInvalidRule: a custom rule, a disabled rule id or an allowed-value
// pattern is not acceptable; the message says which and why.
const CodeInvalidRule = "invalid_rule"

// CustomRule is a team's own credential format, run by the same engine as
// the built-in rules: its keywords feed the prefilter, so the pattern runs
// only in windows around them, and its matches pass the same filters
// (word boundaries, placeholders, entropy) and fingerprinting.
type CustomRule struct {
	// ID names the rule in detections (kebab-case, not a built-in id).
	ID string
	// Description is shown as the rule's name. Optional.
	Description string
	// Keywords are literals, matched ASCII case-insensitively, of which
	// one occurs in (or up to 8 bytes before) every match: a fixed
	// prefix, or the name the value is assigned to.
	Keywords []string
	// Regex is an RE2 expression. The secret is its group named "secret",
	// else group 1, else the whole match.
	Regex string
	// Severity of a finding.
	Severity Severity
	// Entropy is an optional floor on the secret's Shannon entropy, in
	// bits per character (0 to 8).
	Entropy float64
	// Match must each produce a detection of this rule, and NoMatch none:
	// Build checks both, so a rule that cannot find its own examples is
	// refused when it loads.
	Match, NoMatch []string
}

// AllowValue suppresses the detections whose value matches Pattern, for
// a documented Reason (a test fixture's key, a public demo token).
type AllowValue struct {
	Pattern *regexp.Regexp
	Reason  string
}

var customIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]$`)

// Limits on custom rules, so that a repository's configuration cannot
// make a scan slow or unbounded.
const (
	maxCustomRules   = 200
	maxCustomRegex   = 4096
	maxCustomKeyword = 64
)

// Build is New for options that can be wrong: custom rules, disabled rule
// ids and allowed values are checked (each custom rule against its own
// examples) and the error, an *errcode.Error with CodeInvalidRule, names
// the rule and what is wrong with it.
func Build(opts *Options) (*Scanner, error) {
	if opts == nil {
		opts = &Options{}
	}
	for i, a := range opts.AllowValues {
		if a.Pattern == nil || strings.TrimSpace(a.Reason) == "" {
			return nil, errcode.New(CodeInvalidRule, fmt.Sprintf("allowed value %d: a pattern and a reason are required", i))
		}
	}
	if len(opts.CustomRules) == 0 && len(opts.DisabledRules) == 0 {
		s := newScanner(opts)
		s.allow = opts.AllowValues
		return s, nil
	}
	if len(opts.CustomRules) > maxCustomRules {
		return nil, errcode.New(CodeInvalidRule, fmt.Sprintf("at most %d custom rules", maxCustomRules))
	}
	builtins := allRules()
	known := map[string]bool{}
	for _, r := range builtins {
		known[r.ID] = true
	}
	disabled := map[string]bool{}
	for _, id := range opts.DisabledRules {
		if !known[id] && !slices.ContainsFunc(opts.CustomRules, func(c CustomRule) bool { return c.ID == id }) {
			return nil, errcode.New(CodeInvalidRule, fmt.Sprintf("disabled rule %q: no rule has this id", id))
		}
		disabled[id] = true
	}
	var rs []*rule
	for _, r := range builtins {
		if !disabled[r.ID] {
			rs = append(rs, r)
		}
	}
	var custom []*rule
	for _, c := range opts.CustomRules {
		r, err := c.rule(known)
		if err != nil {
			return nil, errcode.New(CodeInvalidRule, fmt.Sprintf("custom rule %q: %v", c.ID, err))
		}
		known[c.ID] = true
		if !disabled[c.ID] {
			custom = append(custom, r)
		}
	}
	// Custom rules go first, so that on the same span a team's own format
	// is what a detection names.
	compiled, err := compileRules(append(custom, rs...))
	if err != nil {
		return nil, errcode.New(CodeInvalidRule, err.Error())
	}
	kws, users := keywordIndex(compiled)
	ac := newAutomaton(kws)
	// Examples are checked by a scanner of the same rules with nothing
	// that suppresses: no baseline, allowed values or minimum confidence.
	ex := &Scanner{rules: compiled, ac: ac, kwUsers: users, key: []byte("examples"), depth: DefaultMaxDecodeDepth,
		maxDet: DefaultMaxDetections, ids: true}
	ex.pool.New = func() any { return &scratch{} }
	for _, c := range opts.CustomRules {
		if disabled[c.ID] {
			continue
		}
		if err := ex.checkExamples(c); err != nil {
			return nil, errcode.New(CodeInvalidRule, fmt.Sprintf("custom rule %q: %v", c.ID, err))
		}
	}
	s := newScanner(opts)
	s.rules, s.ac, s.kwUsers = compiled, ac, users
	s.allow = opts.AllowValues
	return s, nil
}

func (c CustomRule) rule(known map[string]bool) (*rule, error) {
	switch {
	case !customIDRE.MatchString(c.ID):
		return nil, fmt.Errorf("id must be kebab-case, 3 to 64 characters")
	case known[c.ID]:
		return nil, fmt.Errorf("id is already a rule's")
	case len(c.Keywords) == 0:
		return nil, fmt.Errorf("keywords: at least one (the prefilter runs the pattern only near them)")
	case c.Regex == "" || len(c.Regex) > maxCustomRegex:
		return nil, fmt.Errorf("regex: required, at most %d characters", maxCustomRegex)
	case c.Severity == SeverityNone:
		return nil, fmt.Errorf("severity: low, medium, high or critical")
	case c.Entropy < 0 || c.Entropy > 8:
		return nil, fmt.Errorf("entropy: between 0 and 8 bits per character")
	case len(c.Match) == 0:
		return nil, fmt.Errorf("examples.match: at least one example the rule must find")
	}
	for _, k := range c.Keywords {
		if len(k) < 2 || len(k) > maxCustomKeyword || strings.TrimSpace(k) != k {
			return nil, fmt.Errorf("keyword %q: 2 to %d characters, no surrounding spaces", k, maxCustomKeyword)
		}
	}
	re, err := regexp.Compile(c.Regex)
	if err != nil {
		return nil, fmt.Errorf("regex: %v", err)
	}
	if re.MatchString("") {
		return nil, fmt.Errorf("regex matches the empty string")
	}
	name := c.Description
	if name == "" {
		name = c.ID
	}
	return &rule{ID: c.ID, Type: strings.ReplaceAll(c.ID, "-", "_"), Name: name, Family: FamilyCustom,
		Severity: c.Severity, Evidence: evKeyword, Keywords: slices.Clone(c.Keywords), Pattern: c.Regex,
		MinEntropy: c.Entropy, Examples: c.Match, NegativeExamples: c.NoMatch}, nil
}

// checkExamples runs the rule's examples through the scanner.
func (s *Scanner) checkExamples(c CustomRule) error {
	found := func(text string) (bool, error) {
		res, err := s.Scan(context.Background(), text)
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(res.Detections, func(d Detection) bool { return d.RuleID == c.ID }), nil
	}
	for i, ex := range c.Match {
		ok, err := found(ex)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("examples.match[%d] is not found (does it hold a keyword, and pass the placeholder and entropy filters?)", i)
		}
	}
	for i, ex := range c.NoMatch {
		ok, err := found(ex)
		if err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("examples.no_match[%d] is found", i)
		}
	}
	return nil
}

// allowed reports whether an allowed-value pattern matches value.
func (s *Scanner) allowed(value string) bool {
	for _, a := range s.allow {
		if a.Pattern.MatchString(value) {
			return true
		}
	}
	return false
}
