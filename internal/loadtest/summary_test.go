package loadtest

import (
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	in := `{"label":"warden","scenario":"tools_call","perSecond":100,"p50Micros":10,"p99Micros":50,"serverCPUMicrosPerRequest":40,"clientCPUMicrosPerRequest":7}
{"label":"gosdk","scenario":"tools_call","perSecond":10,"p50Micros":100,"p99Micros":900,"failures":2}
{"label":"warden","scenario":"tools_call","perSecond":300,"p50Micros":30,"p99Micros":70,"serverCPUMicrosPerRequest":20}

{"label":"warden","scenario":"tools_call","perSecond":200,"p50Micros":20,"p99Micros":60,"serverCPUMicrosPerRequest":50}
`
	var out strings.Builder
	if err := Summarize(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| tools_call | warden | 3 | 200 [100–300] | 20 | 60 | 40.0 | 25000 | 0.0 | 0 |",
		"| tools_call | gosdk | 1 | 10 [10–10] | 100 | 900 | 0.0 | – | 0.0 | 2 |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if err := Summarize(strings.NewReader("{not json"), &out); err == nil {
		t.Error("malformed record accepted")
	}
}
