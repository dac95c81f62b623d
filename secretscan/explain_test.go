package secretscan

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExplainFilters(t *testing.T) {
	s := New(&Options{ExplainFilters: true})
	text := "x = 1\n" +
		"db_password = \"letmein\"\n" + // a stand-in password
		"password_file = \"/etc/pw\"\n" + // not a credential's name
		"api_key = \"Zq3vK9pL2w\"\n" + // too short for a key
		"token: ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n" // a GitHub token of one character
	res, err := s.Scan(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Filter, RuleID, Type string
		Line, Column, Length int
	}
	var got []row
	for _, r := range res.Rejected {
		if text[r.Offset:r.End] == "" || r.End-r.Offset < r.ValueLength {
			t.Errorf("%+v: span does not hold the value", r)
		}
		got = append(got, row{r.Filter, r.RuleID, r.Type, r.Line, r.Column, r.ValueLength})
	}
	want := []row{
		{"placeholder-word", "generic-password", "password", 2, 16, 7},
		{"name", "generic-password", "password", 3, 18, 7},
		{"key-length", "generic-api-key", "generic_api_key", 4, 12, 10},
	}
	// The GitHub token is turned down by the GitHub rule and by the
	// generic token rule; only their presence is checked here.
	var rest []row
	for _, r := range got {
		if r.Line == 5 {
			if r.Filter != "placeholder" {
				t.Errorf("line 5: %+v, want the placeholder filter", r)
			}
			continue
		}
		rest = append(rest, r)
	}
	if diff := cmp.Diff(want, rest); diff != "" {
		t.Errorf("rejections (-want +got):\n%s", diff)
	}
	if len(rest) == len(got) {
		t.Error("nothing rejected on line 5")
	}
	if len(res.Detections) != 0 {
		t.Errorf("detections: %v", res.Detections)
	}

	// Off: nothing recorded.
	res, err = New(nil).Scan(context.Background(), text)
	if err != nil || res.Rejected != nil {
		t.Errorf("without the option: %v, %v", res.Rejected, err)
	}
}

// TestExplainFiltersEncoded: a candidate found in a decoded layer is
// located at the encoded span, with the encoding named.
func TestExplainFiltersEncoded(t *testing.T) {
	inner := "db_password = \"letmein\"\nuser = \"Alice\"\n"
	enc := base64.StdEncoding.EncodeToString([]byte(inner))
	text := "blob: " + enc + "\n"
	res, err := New(&Options{ExplainFilters: true}).Scan(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rejected {
		if r.Filter == "placeholder-word" && r.RuleID == "generic-password" {
			if r.Encoding != "base64" || r.Offset != 6 || r.End != 6+len(enc) || r.Line != 1 || r.Column != 7 || r.ValueLength != 7 {
				t.Errorf("%+v, want base64 at the encoded span", r)
			}
			return
		}
	}
	t.Errorf("no rejection from the decoded layer in %+v", res.Rejected)
}

// TestExplainFiltersMinConfidence: a detection dropped by MinConfidence
// is explained too.
func TestExplainFiltersMinConfidence(t *testing.T) {
	text := "password = \"Zq3!vK9#pL2w\"\n"
	res, err := New(&Options{ExplainFilters: true, MinConfidence: 0.99}).Scan(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rejected) != 1 || res.Rejected[0].Filter != "min-confidence" || res.Rejected[0].RuleID != "generic-password" {
		t.Errorf("%+v", res.Rejected)
	}
}

// TestExplainFiltersBounded: at most MaxDetections rejections per scan.
func TestExplainFiltersBounded(t *testing.T) {
	text := strings.Repeat("password = \"letmein\"\n", 50)
	res, err := New(&Options{ExplainFilters: true, MaxDetections: 20}).Scan(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rejected) != 20 {
		t.Errorf("%d rejections, want 20", len(res.Rejected))
	}
}

// TestExplainFiltersNoValue: a rejection carries no part of the value,
// however the result is printed.
func TestExplainFiltersNoValue(t *testing.T) {
	const value = "Zq3!vK9#pL2wX7"
	text := "api_key = \"" + value + "\"\npassword = %" + value + "%\n"
	res, err := New(&Options{ExplainFilters: true}).Scan(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rejected) == 0 {
		t.Fatal("nothing rejected")
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	vocab := metadataVocabulary() + " rejected filter name key-length symbol-lead"
	if l := leaks(value, string(b), vocab); len(l) > 0 {
		t.Errorf("value in %s: %v", b, l)
	}
}

// TestExplainFiltersOffAllocations: with the option off, a rejected
// candidate costs no allocation: a text with a hundred of them allocates
// as much as one with one.
func TestExplainFiltersOffAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops sync.Pool entries at random, so allocation counts vary")
	}
	s := New(nil)
	one := "db_password = \"letmein\"\napi_key = \"zq3vk9pl2w\"\ntoken = cfg.token\n"
	many := strings.Repeat(one, 100)
	allocs := func(text string) float64 {
		return testing.AllocsPerRun(20, func() {
			if _, err := s.Scan(context.Background(), text); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a1, a100 := allocs(one), allocs(many); a100 > a1 {
		t.Errorf("%v allocations for 300 rejected candidates, %v for 3", a100, a1)
	}
}
