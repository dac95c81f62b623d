package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/warden-mcp/warden/secretscan"
)

// keysweepConfigName is the repository configuration `warden scan secrets`
// reads from the root of what it scans.
const keysweepConfigName = ".keysweep.yaml"

// maxKeysweepConfig bounds the configuration file.
const maxKeysweepConfig = 1 << 20

// keysweepConfig is .keysweep.yaml. Unknown keys are refused.
type keysweepConfig struct {
	// Exclude are globs in .gitignore syntax, as --exclude.
	Exclude []string `yaml:"exclude"`
	// Disable are rule ids that do not run.
	Disable []string `yaml:"disable"`
	// Allow suppresses values matching a regular expression, each with
	// its reason.
	Allow []keysweepAllow `yaml:"allow"`
	// Baseline is a baseline file, relative to the configuration, used
	// when --baseline is not given.
	Baseline string `yaml:"baseline"`
	// Rules are the team's own formats.
	Rules []keysweepRule `yaml:"rules"`
}

type keysweepAllow struct {
	Regex  string `yaml:"regex"`
	Reason string `yaml:"reason"`
}

type keysweepRule struct {
	ID          string   `yaml:"id"`
	Description string   `yaml:"description"`
	Keywords    []string `yaml:"keywords"`
	Regex       string   `yaml:"regex"`
	Severity    string   `yaml:"severity"`
	Entropy     float64  `yaml:"entropy"`
	Examples    struct {
		Match   []string `yaml:"match"`
		NoMatch []string `yaml:"no_match"`
	} `yaml:"examples"`
}

// loadKeysweepConfig reads the configuration: path when given (--config),
// else .keysweep.yaml in root when it exists. It returns nil without one.
func loadKeysweepConfig(path, root string) (*keysweepConfig, string, error) {
	if path == "" {
		if root == "" {
			return nil, "", nil
		}
		path = filepath.Join(root, keysweepConfigName)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, "", nil
		}
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxKeysweepConfig+1))
	if err != nil {
		return nil, "", err
	}
	if len(data) > maxKeysweepConfig {
		return nil, "", fmt.Errorf("%s: larger than 1 MiB", path)
	}
	var c keysweepConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true) // a misspelt key is an error, not a silent default
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return &c, path, nil
}

// apply adds the configuration to the scanner's options and the path
// exclusions, naming the file and the entry in any error.
func (c *keysweepConfig) apply(file string, opts *secretscan.Options, exclude *[]string) error {
	*exclude = append(*exclude, c.Exclude...)
	opts.DisabledRules = append(opts.DisabledRules, c.Disable...)
	for i, a := range c.Allow {
		if strings.TrimSpace(a.Reason) == "" {
			return fmt.Errorf("%s: allow[%d]: a reason is required", file, i)
		}
		re, err := regexp.Compile(a.Regex)
		if err != nil || a.Regex == "" {
			return fmt.Errorf("%s: allow[%d]: regex: %v", file, i, errOr(err, "required"))
		}
		opts.AllowValues = append(opts.AllowValues, secretscan.AllowValue{Pattern: re, Reason: a.Reason})
	}
	for i, r := range c.Rules {
		sev, err := secretscan.ParseSeverity(r.Severity)
		if err != nil || sev == secretscan.SeverityNone {
			return fmt.Errorf("%s: rules[%d] (%s): severity: want low, medium, high or critical", file, i, r.ID)
		}
		opts.CustomRules = append(opts.CustomRules, secretscan.CustomRule{ID: r.ID, Description: r.Description,
			Keywords: r.Keywords, Regex: r.Regex, Severity: sev, Entropy: r.Entropy,
			Match: r.Examples.Match, NoMatch: r.Examples.NoMatch})
	}
	return nil
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}
