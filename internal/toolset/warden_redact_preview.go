package toolset

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/tool"
)

type redactPreviewArgs struct {
	Text string `json:"text" maxLength:"1048576" maxLengthCode:"input_too_large" desc:"The text, or JSON value (as kind json), to preview. At most 1 MiB."`
	Kind string `json:"kind" default:"text" enum:"text,json,url,header,cookie,host,ip,email,path,bytes,secret,credential" desc:"What text is: free text (the credential pass), a JSON value (the credential pass over every member name and string), or one value of a result field's privacy kind (url, header, cookie, bytes...: the typed pass, then the credential pass)."`
	Name string `json:"name,omitempty" maxLength:"256" desc:"For kind header or cookie: the header or cookie name (Authorization, Set-Cookie...)."`
}

// RedactPreviewResult is warden_redact_preview's result. It names what
// would be removed by kind and position, never the removed value.
type RedactPreviewResult struct {
	Mode     string        `json:"mode" privacy:"plain" desc:"The privacy mode applied to this caller: strict, balanced or off."`
	Changed  bool          `json:"changed"`
	Removed  []PreviewSpan `json:"removed" desc:"What would be removed, in order."`
	Redacted string        `json:"redacted" privacy:"plain" desc:"The text as a client would receive it: what would be removed replaced by its marker."`
}

// PreviewSpan is one removal.
type PreviewSpan struct {
	Kind   string `json:"kind" privacy:"plain" desc:"The credential type (github_personal_access_token, password...), or the privacy kind of a typed value (url, header, cookie...)."`
	Path   string `json:"path,omitempty" privacy:"plain" desc:"For kind json: the JSON Pointer of the string, with /~key for a member name."`
	Start  int    `json:"start" desc:"Byte offset in the text (in the string, for json)."`
	End    int    `json:"end"`
	Length int    `json:"length" desc:"Length of what would be removed, in Unicode characters."`
}

// maxPreviewStrings bounds the strings of a JSON value previewed.
const maxPreviewStrings = 10000

func wardenRedactPreviewTool(n *Native, _ *tool.Registry) (*tool.Tool, error) {
	return tool.New(tool.Def{
		Name:  "warden_redact_preview",
		Title: "Preview what the privacy mode removes",
		Description: "Show what the current privacy mode would remove from a supplied text or JSON value (or one value of " +
			"a result field kind: URL, header, cookie...), as spans with their kind, and the text as a client would " +
			"receive it. Removed values are never echoed.",
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     wardenCatalog,
	}, func(ctx context.Context, call *tool.Call, in redactPreviewArgs) (RedactPreviewResult, error) {
		r := n.privacy(ctx)
		out := RedactPreviewResult{Mode: string(r.Mode()), Removed: []PreviewSpan{}}
		switch in.Kind {
		case "text":
			red, spans := r.Text(in.Text)
			out.Redacted = red
			for _, s := range spans {
				out.Removed = append(out.Removed, PreviewSpan{Kind: s.Type, Start: s.Start, End: s.End, Length: s.Length})
			}
		case "json":
			red, spans, err := previewJSON(r, []byte(in.Text))
			if err != nil {
				return RedactPreviewResult{}, err
			}
			out.Redacted, out.Removed = red, spans
		default:
			typed := r.Field(in.Kind, in.Name, in.Text)
			if typed != in.Text {
				p, s := diffSpan(in.Text, typed)
				out.Removed = append(out.Removed, PreviewSpan{Kind: in.Kind, Start: p, End: len(in.Text) - s, Length: len([]rune(in.Text[p : len(in.Text)-s]))})
			}
			red, spans := r.Text(typed)
			out.Redacted = red
			for _, sp := range spans {
				out.Removed = append(out.Removed, PreviewSpan{Kind: sp.Type, Start: -1, End: -1, Length: sp.Length})
			}
		}
		out.Changed = len(out.Removed) > 0
		return out, nil
	})
}

// diffSpan returns the lengths of the common prefix and suffix of a and b.
func diffSpan(a, b string) (prefix, suffix int) {
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	for prefix > 0 && prefix < len(a) && a[prefix]&0xC0 == 0x80 { // whole characters only
		prefix--
	}
	for suffix > 0 && len(a)-suffix < len(a) && a[len(a)-suffix]&0xC0 == 0x80 {
		suffix--
	}
	return prefix, suffix
}

// previewJSON runs the credential pass over every member name and string
// of a JSON value and re-encodes it.
func previewJSON(r *redact.Redactor, b []byte) (string, []PreviewSpan, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return "", nil, &tool.Error{Code: "invalid_json", Message: "text is not one JSON value"}
	}
	var spans []PreviewSpan
	count := 0
	var walk func(path string, v any) (any, error)
	walk = func(path string, v any) (any, error) {
		count++
		if count > maxPreviewStrings {
			return nil, &tool.Error{Code: "input_too_large", Message: "the JSON value holds more than 10,000 values"}
		}
		text := func(p, s string) string {
			red, ss := r.Text(s)
			for _, sp := range ss {
				spans = append(spans, PreviewSpan{Kind: sp.Type, Path: p, Start: sp.Start, End: sp.End, Length: sp.Length})
			}
			return red
		}
		switch x := v.(type) {
		case string:
			return text(path, x), nil
		case []any:
			for i := range x {
				var err error
				if x[i], err = walk(path+"/"+strconv.Itoa(i), x[i]); err != nil {
					return nil, err
				}
			}
			return x, nil
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, val := range x {
				esc := strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
				nk := text(path+"/~"+esc, k)
				if sv, ok := val.(string); ok {
					// A string member reads as the assignment it is
					// ("password": "..."), as the server's result pass
					// reads it.
					count++
					out[nk] = member(r, k, sv, path+"/"+esc, &spans)
					continue
				}
				nv, err := walk(path+"/"+esc, val)
				if err != nil {
					return nil, err
				}
				out[nk] = nv
			}
			return out, nil
		}
		return v, nil
	}
	red, err := walk("", v)
	if err != nil {
		return "", nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(red)
	if spans == nil {
		spans = []PreviewSpan{}
	}
	return strings.TrimSuffix(buf.String(), "\n"), spans, nil
}

// member runs the credential pass over a string member in the context of
// its name, and reports the spans within the value.
func member(r *redact.Redactor, name, value, path string, spans *[]PreviewSpan) string {
	prefix := name + ": "
	red, ss := r.Text(prefix + value)
	if !strings.HasPrefix(red, prefix) {
		red, ss = r.Text(value) // the name itself held something: the value alone
		prefix = ""
	}
	for _, sp := range ss {
		start, end := max(sp.Start-len(prefix), 0), sp.End-len(prefix)
		if end <= 0 {
			continue
		}
		*spans = append(*spans, PreviewSpan{Kind: sp.Type, Path: path, Start: start, End: end, Length: sp.Length})
	}
	return strings.TrimPrefix(red, prefix)
}
