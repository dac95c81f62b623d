package finding

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/errcode"
)

func TestCheck(t *testing.T) {
	ok := Finding{Tenant: "acme", Title: "  Open redirect ", Severity: "HIGH"}
	if err := Check(&ok); err != nil || ok.Title != "Open redirect" || ok.Severity != "high" {
		t.Fatalf("%v %+v", err, ok)
	}
	for name, f := range map[string]Finding{
		"no title":     {Tenant: "a", Severity: "low"},
		"bad severity": {Tenant: "a", Title: "t", Severity: "urgent"},
		"no tenant":    {Title: "t", Severity: "low"},
		"long title":   {Tenant: "a", Title: strings.Repeat("é", MaxTitle+1), Severity: "low"},
		"long target":  {Tenant: "a", Title: "t", Severity: "low", Target: strings.Repeat("a", MaxTarget+1)},
		"long proof":   {Tenant: "a", Title: "t", Severity: "low", Evidence: strings.Repeat("a", MaxEvidence+1)},
		"nul":          {Tenant: "a", Title: "t\x00", Severity: "low"},
		"bad utf8":     {Tenant: "a", Title: "t", Severity: "low", Evidence: "\xff"},
		"long id":      {Tenant: "a", Title: "t", Severity: "low", SourceTool: strings.Repeat("a", MaxID+1)},
	} {
		if err := Check(&f); errcode.CodeOf(err) != CodeInvalid {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := (&Filter{}).Bound(); errcode.CodeOf(err) != CodeInvalid {
		t.Errorf("a filter without a tenant: %v", err)
	}
	f := Filter{Tenant: "a", Limit: 1e6}
	if f.Bound(); f.Limit != MaxListLimit {
		t.Errorf("limit %d", f.Limit)
	}
}

var sample = []Finding{
	{ID: "fnd_1", Tenant: "acme", Credential: "c", Title: `<script>alert("x")</script> reflected`, Severity: "high",
		Target: `https://app.example.com/?q="><img src=x>`, Evidence: "GET /?q=<svg onload=alert(1)>\nHTTP/1.1 200", SourceTool: "http_request",
		Created: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)},
	{ID: "fnd_2", Tenant: "acme", Title: "alg none accepted", Severity: "critical", Created: time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC)},
}

func TestExportHTMLIsEscapedAndSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, sample, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script>", "<img src=x>", "<svg onload", "src=\"http", "href=\"http"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;", "alg none accepted", "default-src 'none'", "1 critical", "1 high"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestExportSARIFAndJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSARIF(&b, sample, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
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
					} `json:"physicalLocation"`
				} `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0]
	if log.Version != "2.1.0" || r.Tool.Driver.Version != "1.2.3" || len(r.Results) != 2 || len(r.Tool.Driver.Rules) != 5 {
		t.Fatalf("%s", b.String())
	}
	for _, res := range r.Results {
		if r.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID || res.Level != "error" || res.PartialFingerprints["wardenFinding/v1"] == "" {
			t.Errorf("result %+v", res)
		}
	}
	if r.Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != sample[0].Target || len(r.Results[1].Locations) != 0 {
		t.Errorf("locations %+v", r.Results)
	}
	b.Reset()
	if err := WriteJSON(&b, sample); err != nil {
		t.Fatal(err)
	}
	var j struct{ Findings []JSON }
	if err := json.Unmarshal(b.Bytes(), &j); err != nil || len(j.Findings) != 2 || j.Findings[0].Evidence != sample[0].Evidence {
		t.Errorf("%v %s", err, b.String())
	}
}
