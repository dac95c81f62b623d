package secretscan

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
)

// FileResult is the result of scanning one file, as ScanDir reports it and
// WriteSARIF consumes it. Path is slash-separated and relative to the
// scanned root.
type FileResult struct {
	Path   string `json:"path"`
	Result Result `json:"result"`
	// Commit, for a scan of a repository's history, names the commit
	// that first added the findings, and how often they were added.
	// Nil for files on disk.
	Commit *Commit `json:"commit,omitempty"`
}

// Commit is where in a repository's history a finding was first added.
type Commit struct {
	Hash   string `json:"hash"`             // full commit hash; empty for staged changes
	Author string `json:"author,omitempty"` // the author's name
	Date   string `json:"date,omitempty"`   // the author date, RFC 3339
	Count  int    `json:"count"`            // how many times the value was added
}

// SARIFOptions configures WriteSARIF. The zero value is usable.
type SARIFOptions struct {
	// ToolVersion is reported as tool.driver.version. Empty: omitted.
	ToolVersion string
	// InformationURI is reported as tool.driver.informationUri. Empty: omitted.
	InformationURI string
}

// SARIF 2.1.0 subset. Field order follows the specification's examples.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           sarifRuleProps `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Tags             []string `json:"tags"`
	SecuritySeverity string   `json:"security-severity"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifRelated    `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          sarifResultProps  `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

// sarifRelated is another place of the same finding: the key ID of a pair.
type sarifRelated struct {
	ID               int           `json:"id"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          sarifText     `json:"message"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

type sarifResultProps struct {
	Type        string   `json:"type"`
	Severity    string   `json:"severity"`
	Confidence  float64  `json:"confidence"`
	ValueLength int      `json:"value_length"`
	Encoding    string   `json:"encoding,omitempty"`
	Evidence    []string `json:"evidence,omitempty"`
	Commit      string   `json:"commit,omitempty"`
	Author      string   `json:"author,omitempty"`
	Date        string   `json:"date,omitempty"`
	Count       int      `json:"count,omitempty"`
}

// sarifLevel maps a severity to a SARIF level.
func sarifLevel(s Severity) string {
	switch s {
	case SeverityCritical, SeverityHigh:
		return "error"
	case SeverityMedium:
		return "warning"
	}
	return "note"
}

// securitySeverity is the CVSS-like score GitHub code scanning reads from
// the rule properties.
func securitySeverity(s Severity) string {
	switch s {
	case SeverityCritical:
		return "9.5"
	case SeverityHigh:
		return "8.0"
	case SeverityMedium:
		return "5.5"
	}
	return "2.0"
}

// WriteSARIF writes the detections of files as one SARIF 2.1.0 run. Only
// rules that have a detection are listed. Results carry the keyed
// fingerprint as partialFingerprints["keysweep/v1"], never the value; it
// is the same in every commit, so a code-scanning service keeps one alert
// per secret. A history scan's results carry the commit, author, date and
// count as properties.
// Output is deterministic for a given input order.
func WriteSARIF(w io.Writer, files []FileResult, opts *SARIFOptions) error {
	if opts == nil {
		opts = &SARIFOptions{}
	}
	info := map[string]RuleInfo{}
	for _, r := range Rules() {
		info[r.ID] = r
	}
	used := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Result.Detections {
			used[d.RuleID] = true
		}
	}
	ids := slices.Sorted(maps.Keys(used))
	index := map[string]int{}
	rules := make([]sarifRule, 0, len(ids))
	for i, id := range ids {
		index[id] = i
		r := info[id]
		rules = append(rules, sarifRule{
			ID: id, Name: r.Type, ShortDescription: sarifText{r.Name},
			DefaultConfiguration: sarifConfig{sarifLevel(r.Severity)},
			Properties:           sarifRuleProps{Tags: []string{"security", "secret", r.Family}, SecuritySeverity: securitySeverity(r.Severity)},
		})
	}
	results := []sarifResult{}
	for _, f := range files {
		for _, d := range f.Result.Detections {
			var related []sarifRelated
			for _, p := range d.Parts {
				if p.Offset == d.Offset {
					continue // the result's own location
				}
				related = append(related, sarifRelated{ID: len(related) + 1, Message: sarifText{p.Name},
					PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: f.Path},
						Region: sarifRegion{StartLine: p.Line, StartColumn: p.Column}}})
			}
			props := sarifResultProps{Type: d.Type, Severity: d.Severity.String(), Confidence: d.Confidence,
				ValueLength: d.ValueLength, Encoding: d.Encoding, Evidence: d.Evidence}
			if c := f.Commit; c != nil {
				props.Commit, props.Author, props.Date, props.Count = c.Hash, c.Author, c.Date, c.Count
			}
			results = append(results, sarifResult{
				RelatedLocations: related,
				RuleID:           d.RuleID, RuleIndex: index[d.RuleID], Level: sarifLevel(d.Severity),
				Message: sarifText{fmt.Sprintf("%s (%s severity, confidence %.2f, %d characters)",
					info[d.RuleID].Name, d.Severity, d.Confidence, d.ValueLength)},
				Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
					ArtifactLocation: sarifArtifact{URI: f.Path},
					Region:           sarifRegion{StartLine: d.Line, StartColumn: d.Column},
				}}},
				PartialFingerprints: map[string]string{"keysweep/v1": d.Fingerprint},
				Properties:          props,
			})
		}
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{Driver: sarifDriver{Name: "keysweep", Version: opts.ToolVersion,
			InformationURI: opts.InformationURI, Rules: rules}}, Results: results}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}
