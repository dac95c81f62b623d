package tool_test

// Benchmarks of the SDK layer alone, below the protocol: argument checking
// and defaulting, the handler, and shaping the result, for the same echo
// tool that mcp's protocol benchmarks serve. Run with
//
//	go test -run '^$' -bench . -benchmem -cpu 1 ./tool/

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/warden-mcp/warden/tool"
)

type echoIn struct {
	Text  string `json:"text" desc:"text to echo" maxLength:"256"`
	Times int    `json:"times,omitempty" desc:"how many times" default:"1" min:"1" max:"10"`
}

type echoOut struct {
	Text  string `json:"text"`
	Times int    `json:"times"`
}

var benchDef = tool.Def{
	Name:        "echo",
	Description: "Echo a short text back, with a repeat count.",
	Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
	Catalog:     tool.Catalog{Category: "bench", Trust: tool.TrustAuto},
}

func echoHandler(_ context.Context, _ *tool.Call, in echoIn) (echoOut, error) {
	return echoOut(in), nil
}

func newEcho(tb testing.TB, name string) *tool.Tool {
	def := benchDef
	def.Name = name
	t, err := tool.New(def, echoHandler)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// BenchmarkRun runs the typed echo tool on raw arguments: checked
// (maxLength, bounds), defaulted, handled and shaped into a Result. The
// invalid case is refused by the checks, before the handler.
func BenchmarkRun(b *testing.B) {
	t := newEcho(b, "echo")
	cases := []struct {
		name, args string
		want       string
		isError    bool
	}{
		{"args=defaulted", `{"text":"hello, warden"}`, `{"text":"hello, warden","times":1}`, false},
		{"args=given", `{"text":"hello, warden","times":3}`, `{"text":"hello, warden","times":3}`, false},
		{"args=invalid", `{"text":"hello, warden","times":11}`, "", true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			args := json.RawMessage(c.args)
			env := tool.CallEnv{}
			b.ReportAllocs()
			for b.Loop() {
				res := tool.Run(b.Context(), t, env, args).Result
				if res.IsError != c.isError || string(res.Structured) != c.want {
					b.Fatalf("result %+v", res)
				}
			}
		})
	}
}

// BenchmarkResultMarshal renders a typical result: one text block and its
// structured content.
func BenchmarkResultMarshal(b *testing.B) {
	r := &tool.Result{
		Content:    []tool.Content{tool.Text(`{"text":"hello, warden","times":1}`)},
		Structured: json.RawMessage(`{"text":"hello, warden","times":1}`),
	}
	b.ReportAllocs()
	for b.Loop() {
		out, err := r.MarshalJSON()
		if err != nil || !bytes.HasPrefix(out, []byte(`{"content":[{"type":"text"`)) {
			b.Fatalf("%s, %v", out, err)
		}
	}
}

// BenchmarkListJSON renders the tools/list array of 50 tools from their
// precomputed listings.
func BenchmarkListJSON(b *testing.B) {
	reg := tool.NewRegistry()
	for i := range 50 {
		reg.MustRegister(newEcho(b, fmt.Sprintf("echo_%02d", i)))
	}
	tools, _ := reg.Tools()
	b.ReportAllocs()
	for b.Loop() {
		out := tool.ListJSON(tools)
		if bytes.Count(out, []byte(`"inputSchema"`)) != 50 {
			b.Fatalf("listing lacks tools: %.200s", out)
		}
	}
}

// BenchmarkNew is the start-up cost of one typed tool: schema derivation
// from the struct tags, the output schema and the precomputed listing.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tool.New(benchDef, echoHandler); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBenchEcho pins what the benchmarks check, so that a change in
// behaviour fails here rather than only under -bench.
func TestBenchEcho(t *testing.T) {
	e := newEcho(t, "echo")
	tests := []struct {
		args, want string
		isError    bool
	}{
		{`{"text":"hello, warden"}`, `{"text":"hello, warden","times":1}`, false},
		{`{"text":"hello, warden","times":3}`, `{"text":"hello, warden","times":3}`, false},
		// A tool with an output schema reports errors in text only.
		{`{"text":"hello, warden","times":11}`, "", true},
		{`{"times":2}`, "", true},
		{`{"text":"` + string(bytes.Repeat([]byte("x"), 257)) + `"}`, "", true},
	}
	for _, tt := range tests {
		res := tool.Run(context.Background(), e, tool.CallEnv{}, json.RawMessage(tt.args)).Result
		if tt.isError {
			if !res.IsError || res.ErrorCode != tool.CodeInvalidParams || res.Structured != nil {
				t.Errorf("Invoke(%.40s) = %+v; want an invalid_params error without structured content", tt.args, res)
			}
			continue
		}
		if res.IsError || string(res.Structured) != tt.want {
			t.Errorf("Invoke(%.40s) = isError %v, structured %s; want %s", tt.args, res.IsError, res.Structured, tt.want)
		}
	}
}

// TestParameterNamesFastPath pins the argument-name lookup that skips
// unescaping plain names: escaped spellings of a name are the same
// parameter, including for the given-twice check, and unknown names are
// reported decoded.
func TestParameterNamesFastPath(t *testing.T) {
	e := newEcho(t, "echo")
	tests := []struct {
		args      string
		want      string // structured content, or the error text
		isError   bool
		errSubstr string
	}{
		{args: `{"text":"a"}`, want: `{"text":"a","times":1}`},
		{args: `{"te\u0078t":"a"}`, want: `{"text":"a","times":1}`},
		{args: `{"text":"a","te\u0078t":"b"}`, isError: true, errSubstr: `parameter "text" given twice`},
		{args: `{"te\u0078t":"a","text":"b"}`, isError: true, errSubstr: `parameter "text" given twice`},
		{args: `{"text":"a","bogus":1}`, isError: true, errSubstr: `unexpected parameter "bogus"`},
		{args: `{"text":"a","b\u00f6gus":1}`, isError: true, errSubstr: `unexpected parameter "bögus"`},
		{args: "{\"text\":\"a\",\"t\xffxt\":1}", isError: true, errSubstr: `unexpected parameter`},
	}
	for _, tt := range tests {
		res := tool.Run(context.Background(), e, tool.CallEnv{}, json.RawMessage(tt.args)).Result
		if res.IsError != tt.isError {
			t.Errorf("Invoke(%s): isError %v, want %v (%+v)", tt.args, res.IsError, tt.isError, res)
			continue
		}
		if !tt.isError {
			if string(res.Structured) != tt.want {
				t.Errorf("Invoke(%s) = %s, want %s", tt.args, res.Structured, tt.want)
			}
			continue
		}
		if len(res.Content) == 0 || !bytes.Contains([]byte(res.Content[0].Text), []byte(tt.errSubstr)) {
			t.Errorf("Invoke(%s) = %+v, want an error containing %q", tt.args, res.Content, tt.errSubstr)
		}
	}
}

// referenceResult is the wire form of a Result as encoding/json renders it,
// which Result.MarshalJSON must reproduce byte for byte.
type referenceResult struct {
	Content           []tool.Content  `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError"`
}

func referenceJSON(r *tool.Result) ([]byte, error) {
	c := r.Content
	if c == nil {
		c = []tool.Content{}
	}
	return json.Marshal(referenceResult{Content: c, StructuredContent: r.Structured, IsError: r.IsError})
}

// FuzzResultMarshal compares Result.MarshalJSON, which renders common
// results without reflection, with encoding/json.
func FuzzResultMarshal(f *testing.F) {
	f.Add(`{"text":"hello, warden","times":1}`, []byte(`{"text":"hello, warden","times":1}`), false, uint8(1), false)
	f.Add(`a "quoted" \ back\slash`, []byte(`{"a":"x\"y\\z","b":[1,2.5e3,true,null]}`), true, uint8(2), false)
	f.Add("<b>&amp;</b>", []byte(`{"html":"<b>"}`), false, uint8(1), false)
	f.Add("naïve \u2028 line", []byte(`{"u":"naïve\u2028"}`), false, uint8(1), false)
	f.Add("tab\there", []byte("{ \"spaced\" : [ 1 , 2 ] }"), false, uint8(3), false)
	f.Add("", []byte(`null`), false, uint8(0), false)
	f.Add("x", []byte(`{"unterminated":`), false, uint8(1), false)
	f.Add("x", []byte("\"\xff\""), false, uint8(1), false)
	f.Add("img", []byte(nil), true, uint8(1), true)
	f.Fuzz(func(t *testing.T, text string, structured []byte, isError bool, blocks uint8, image bool) {
		r := &tool.Result{IsError: isError}
		for range blocks % 4 {
			r.Content = append(r.Content, tool.Text(text))
		}
		if image {
			r.Content = append(r.Content, tool.Image("aGk=", "image/png"))
		}
		if len(structured) > 0 {
			r.Structured = structured
		}
		got, gotErr := r.MarshalJSON()
		want, wantErr := referenceJSON(r)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("MarshalJSON error %v, encoding/json error %v", gotErr, wantErr)
		}
		if gotErr == nil && !bytes.Equal(got, want) {
			t.Fatalf("MarshalJSON:\n%s\nencoding/json:\n%s", got, want)
		}
	})
}
