package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/warden-mcp/warden/internal/corpusgen/gen"
)

// finding is a scanner finding reduced to what the evaluation needs.
type finding struct {
	File string
	Line int
	Rule string
}

// Report is the outcome of an evaluation.
type Report struct {
	Secrets, Found   int
	Decoys, Flagged  int
	Unplanted        int // findings on lines where nothing was planted
	Findings         int
	ByType           map[string][2]int // type -> {found, planted}
	FlaggedDecoyKind map[string]int
	MissedExamples   []string
}

// Recall is the share of planted secrets with a finding on their line.
func (r Report) Recall() float64 {
	if r.Secrets == 0 {
		return 0
	}
	return float64(r.Found) / float64(r.Secrets)
}

func lineKey(file string, line int) string { return fmt.Sprintf("%s:%d", path.Clean(file), line) }

// evaluate matches findings to the ground truth by file and line. A
// multi-line secret (PEM) counts as found when a finding starts on its
// first line.
func evaluate(truth []gen.Truth, findings []finding) Report {
	rep := Report{ByType: map[string][2]int{}, FlaggedDecoyKind: map[string]int{}, Findings: len(findings)}
	at := map[string]bool{}
	for _, f := range findings {
		at[lineKey(f.File, f.Line)] = true
	}
	planted := map[string]bool{}
	for _, t := range truth {
		k := lineKey(t.File, t.Line)
		planted[k] = true
		if t.IsDecoy {
			rep.Decoys++
			if at[k] {
				rep.Flagged++
				rep.FlaggedDecoyKind[t.Kind]++
			}
			continue
		}
		rep.Secrets++
		c := rep.ByType[t.Type]
		c[1]++
		if at[k] {
			rep.Found++
			c[0]++
		} else if len(rep.MissedExamples) < 20 {
			rep.MissedExamples = append(rep.MissedExamples, k+" "+t.Type)
		}
		rep.ByType[t.Type] = c
	}
	for _, f := range findings {
		if !planted[lineKey(f.File, f.Line)] {
			rep.Unplanted++
		}
	}
	return rep
}

func (r Report) write(w io.Writer, name string) {
	fmt.Fprintf(w, "%s: recall %d/%d = %.1f%%; decoys flagged %d/%d; findings on unplanted lines %d; total findings %d\n",
		name, r.Found, r.Secrets, 100*r.Recall(), r.Flagged, r.Decoys, r.Unplanted, r.Findings)
	var types []string
	for t := range r.ByType {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		c := r.ByType[t]
		fmt.Fprintf(w, "  %-36s %4d/%-4d %5.1f%%\n", t, c[0], c[1], 100*float64(c[0])/float64(c[1]))
	}
	for k, n := range r.FlaggedDecoyKind {
		fmt.Fprintf(w, "  flagged decoy %-24s %d\n", k, n)
	}
}

func readTruth(p string) ([]gen.Truth, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []gen.Truth
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var t gen.Truth
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, sc.Err()
}

// readFindings parses keysweep JSONL ({"file","line","rule_id"}) or a
// gitleaks JSON report ([{"File","StartLine","RuleID"}]). Paths are made
// relative to root when they start with it.
func readFindings(p, format, root string) ([]finding, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	rel := func(f string) string {
		f = strings.TrimPrefix(f, strings.TrimRight(root, "/")+"/")
		return strings.TrimPrefix(f, "./")
	}
	var out []finding
	switch format {
	case "keysweep":
		for _, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var f struct {
				File   string `json:"file"`
				Line   int    `json:"line"`
				RuleID string `json:"rule_id"`
			}
			if err := json.Unmarshal([]byte(line), &f); err != nil {
				return nil, err
			}
			out = append(out, finding{rel(f.File), f.Line, f.RuleID})
		}
	case "gitleaks":
		var fs []struct {
			File      string
			StartLine int
			RuleID    string
		}
		if err := json.Unmarshal(data, &fs); err != nil {
			return nil, err
		}
		for _, f := range fs {
			out = append(out, finding{rel(f.File), f.StartLine, f.RuleID})
		}
	default:
		return nil, errors.New("format must be keysweep or gitleaks")
	}
	return out, nil
}

func runEval(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	truthPath := fs.String("truth", "", "ground-truth JSONL written by corpusgen")
	format := fs.String("format", "keysweep", "findings format: keysweep (JSONL) or gitleaks (JSON report)")
	root := fs.String("root", "", "corpus directory prefix to strip from finding paths")
	name := fs.String("name", "", "label for the report line")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *truthPath == "" || fs.NArg() != 1 {
		return errors.New("usage: corpusgen eval -truth FILE [-format keysweep|gitleaks] [-root DIR] FINDINGS")
	}
	truth, err := readTruth(*truthPath)
	if err != nil {
		return err
	}
	fnd, err := readFindings(fs.Arg(0), *format, *root)
	if err != nil {
		return err
	}
	if *name == "" {
		*name = *format
	}
	evaluate(truth, fnd).write(stdout, *name)
	return nil
}
