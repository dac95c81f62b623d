package secretscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteSARIF(t *testing.T) {
	s := New(&Options{FingerprintKey: []byte("k")})
	env := seed(t, "env.txt")
	res := scan(t, s, env)
	if len(res.Detections) < 2 {
		t.Fatalf("detections %v", res.Detections)
	}
	files := []FileResult{{Path: "config/.env", Result: res}, {Path: "empty.txt"}}
	var b strings.Builder
	if err := WriteSARIF(&b, files, &SARIFOptions{ToolVersion: "1.2.3"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, d := range res.Detections {
		if strings.Contains(out, d.secret.v) {
			t.Fatal("SARIF output carries a secret")
		}
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name    string `json:"name"`
					Version string `json:"version"`
					Rules   []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "keysweep" || log.Runs[0].Tool.Driver.Version != "1.2.3" {
		t.Fatalf("header: %+v", log)
	}
	run := log.Runs[0]
	if len(run.Results) != len(res.Detections) {
		t.Fatalf("%d results for %d detections", len(run.Results), len(res.Detections))
	}
	type row struct {
		Rule, Level, URI, FP string
		Line, Col            int
	}
	var got, want []row
	for i, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %d: ruleIndex points at %s, not %s", i, run.Tool.Driver.Rules[r.RuleIndex].ID, r.RuleID)
		}
		loc := r.Locations[0].PhysicalLocation
		got = append(got, row{r.RuleID, r.Level, loc.ArtifactLocation.URI, r.PartialFingerprints["keysweep/v1"], loc.Region.StartLine, loc.Region.StartColumn})
	}
	for _, d := range res.Detections {
		want = append(want, row{d.RuleID, sarifLevel(d.Severity), "config/.env", d.Fingerprint, d.Line, d.Column})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}

	// Deterministic.
	var b2 strings.Builder
	WriteSARIF(&b2, files, &SARIFOptions{ToolVersion: "1.2.3"})
	if b2.String() != out {
		t.Error("SARIF output not deterministic")
	}
}

func TestSARIFEmpty(t *testing.T) {
	var b strings.Builder
	if err := WriteSARIF(&b, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"results": []`) || !strings.Contains(b.String(), `"rules": []`) {
		t.Errorf("empty log: %s", b.String())
	}
}

// The key ID of an AWS pair is the result's related location.
func TestSARIFPairRelatedLocation(t *testing.T) {
	res := scan(t, New(nil), pairText)
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, []FileResult{{Path: "creds", Result: res}}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"relatedLocations"`) || !strings.Contains(buf.String(), `"text": "key_id"`) {
		t.Errorf("no related location:\n%s", buf.String())
	}
}
