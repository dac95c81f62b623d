package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type leakyHeader struct {
	Name  string `json:"name" privacy:"plain"`
	Value string `json:"value" privacy:"header"`
}

type leakyOut struct {
	URL      string            `json:"url" privacy:"url"`
	Token    *string           `json:"token,omitempty" privacy:"secret"`
	Hosts    []string          `json:"hosts" privacy:"host"`
	Cookies  map[string]string `json:"cookies" privacy:"cookie"`
	Headers  []leakyHeader     `json:"headers"`
	Note     string            `json:"note" privacy:"plain"`
	Untagged string            `json:"untagged"`
}

// markAll is a redactor that shows what it was given.
func markAll(kind, name, value string) string { return "<" + kind + ":" + name + ">" }

func TestTypedRedaction(t *testing.T) {
	tok := "hunter2"
	shared := leakyOut{
		URL: "https://u:p@example.com/a?k=v", Token: &tok, Hosts: []string{"a.example", "b.example"},
		Cookies: map[string]string{"sid": "abc"}, Headers: []leakyHeader{{"Authorization", "Bearer x"}},
		Note: "keep", Untagged: "keep too",
	}
	tl, err := New(sampleDef("leaky"), func(context.Context, *Call, struct{}) (*leakyOut, error) { return &shared, nil })
	if err != nil {
		t.Fatal(err)
	}
	c := NewCall(tl, nil, CallEnv{})
	c.SetRedactor(markAll)
	r := Invoke(context.Background(), c).Result
	var got map[string]any
	if err := json.Unmarshal(r.Structured, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"url": "<url:url>", "token": "<secret:token>", "hosts": []any{"<host:hosts>", "<host:hosts>"},
		"cookies": map[string]any{"sid": "<cookie:sid>"}, "note": "keep", "untagged": "keep too",
		"headers": []any{map[string]any{"name": "Authorization", "value": "<header:value>"}},
	}
	for k, v := range want {
		if b1, b2 := mustJSON(v), mustJSON(got[k]); b1 != b2 {
			t.Errorf("%s = %s, want %s", k, b2, b1)
		}
	}
	if r.Content[0].Text != string(r.Structured) {
		t.Error("the text form is not the redacted JSON")
	}
	if shared.URL != "https://u:p@example.com/a?k=v" || *shared.Token != "hunter2" || shared.Hosts[0] != "a.example" ||
		shared.Cookies["sid"] != "abc" || shared.Headers[0].Value != "Bearer x" {
		t.Errorf("redaction changed the handler's own value: %+v", shared)
	}
	// Without a redactor nothing changes.
	r = Run(context.Background(), tl, CallEnv{}, nil).Result
	if !strings.Contains(string(r.Structured), "hunter2") {
		t.Errorf("no redactor, yet the result changed: %s", r.Structured)
	}
	// The kinds are published for clients and inventories.
	if !strings.Contains(string(tl.OutputSchema()), `"url":{"type":"string","x-warden-privacy":"url"}`) {
		t.Errorf("output schema lacks the privacy kind: %s", tl.OutputSchema())
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestPrivacyTagChecks(t *testing.T) {
	type badKind struct {
		S string `json:"s" privacy:"secretish"`
	}
	type onStruct struct {
		In struct {
			S string `json:"s"`
		} `json:"in" privacy:"secret"`
	}
	type onNumber struct {
		N int `json:"n" privacy:"plain"`
	}
	if _, err := New(sampleDef("bad1"), func(context.Context, *Call, struct{}) (badKind, error) { return badKind{}, nil }); err == nil {
		t.Error("an unknown privacy kind was accepted")
	}
	if _, err := New(sampleDef("bad2"), func(context.Context, *Call, struct{}) (onStruct, error) { return onStruct{}, nil }); err == nil {
		t.Error("a privacy kind on a struct was accepted")
	}
	if _, err := New(sampleDef("bad3"), func(context.Context, *Call, struct{}) (onNumber, error) { return onNumber{}, nil }); err == nil {
		t.Error("a privacy kind on a number was accepted")
	}
}
