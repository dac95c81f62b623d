package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/warden-mcp/warden/plugin"
	"strconv"
	"strings"

	"github.com/warden-mcp/warden/tool"
)

// The tools reference, docs/tools.md, is this file's output for the full
// edition: `warden tools --markdown > docs/tools.md`. TestToolsReference
// fails when the checked-in page differs, so CI catches drift.

// schemaNode is the part of a JSON Schema the reference shows.
type schemaNode struct {
	Type        any             `json:"type"`
	AnyOf       []schemaNode    `json:"anyOf"`
	Description string          `json:"description"`
	Default     json.RawMessage `json:"default"`
	Enum        []any           `json:"enum"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Pattern     string          `json:"pattern"`
	Items       json.RawMessage `json:"items"`
	Properties  json.RawMessage `json:"properties"`
	Additional  json.RawMessage `json:"additionalProperties"`
	Required    []string        `json:"required"`
	Privacy     string          `json:"x-warden-privacy"`
}

type member struct {
	name string
	raw  json.RawMessage
}

// ordered reads an object's members in their order.
func ordered(raw json.RawMessage) []member {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []member
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return out
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, member{k.(string), v})
	}
	return out
}

func typeName(n schemaNode) string {
	switch t := n.Type.(type) {
	case string:
		if t == "array" {
			var it schemaNode
			_ = json.Unmarshal(n.Items, &it)
			return typeName(it) + "[]"
		}
		if t == "object" && len(n.Properties) == 0 && len(n.Additional) > 0 {
			var it schemaNode
			_ = json.Unmarshal(n.Additional, &it)
			return "map of " + typeName(it)
		}
		return t
	case []any:
		var parts []string
		for _, p := range t {
			parts = append(parts, fmt.Sprint(p))
		}
		return strings.Join(parts, " or ")
	}
	if len(n.AnyOf) > 0 && len(n.AnyOf) < 6 { // six branches: any value
		var parts []string
		for _, b := range n.AnyOf {
			parts = append(parts, typeName(b))
		}
		return strings.Join(parts, " or ")
	}
	return "any"
}

// cell makes text safe in a table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func constraints(n schemaNode) string {
	var c []string
	if len(n.Default) > 0 {
		c = append(c, "default `"+string(n.Default)+"`")
	}
	if len(n.Enum) > 0 {
		var vs []string
		for _, v := range n.Enum {
			vs = append(vs, fmt.Sprint(v))
		}
		c = append(c, "one of `"+strings.Join(vs, "`, `")+"`")
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, b := range n.AnyOf { // an integer expression's bounds are its integer branch's
		if n.Minimum == nil && n.Maximum == nil {
			n.Minimum, n.Maximum = b.Minimum, b.Maximum
		}
	}
	if n.Minimum != nil && n.Maximum != nil {
		c = append(c, f(*n.Minimum)+" to "+f(*n.Maximum))
	} else if n.Minimum != nil {
		c = append(c, "at least "+f(*n.Minimum))
	} else if n.Maximum != nil {
		c = append(c, "at most "+f(*n.Maximum))
	}
	if n.MinLength != nil && *n.MinLength > 0 {
		c = append(c, "length ≥ "+strconv.Itoa(*n.MinLength))
	}
	if n.MaxLength != nil {
		c = append(c, "length ≤ "+strconv.Itoa(*n.MaxLength))
	}
	if n.Pattern != "" {
		c = append(c, "pattern `"+n.Pattern+"`")
	}
	return strings.Join(c, "; ")
}

// outputRows flattens an output schema: a.b for members of objects, a[]
// for array items, a{} for map values, at most four levels deep.
func outputRows(b *strings.Builder, prefix string, raw json.RawMessage, depth int) {
	for _, m := range ordered(raw) {
		if prefix == "" && m.name == "warnings" {
			continue // the SDK's reserved member, described once above
		}
		var n schemaNode
		_ = json.Unmarshal(m.raw, &n)
		name := prefix + m.name
		privacy := n.Privacy
		inner := n
		suffix := ""
		for i := 0; i < 3; i++ { // arrays and maps of arrays and maps
			var next schemaNode
			switch {
			case len(inner.Items) > 0:
				suffix += "[]"
				_ = json.Unmarshal(inner.Items, &next)
			case len(inner.Properties) == 0 && len(inner.Additional) > 0 && string(inner.Additional) != "false" && string(inner.Additional) != "true":
				suffix += "{}"
				_ = json.Unmarshal(inner.Additional, &next)
			default:
				i = 3
				continue
			}
			inner = next
			if privacy == "" {
				privacy = inner.Privacy
			}
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", name, typeName(n), privacy, cell(n.Description))
		if len(inner.Properties) > 0 && depth < 4 {
			outputRows(b, name+suffix+".", inner.Properties, depth+1)
		}
	}
}

func yes(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// toolsMarkdown renders the reference of every tool, in registration order.
func toolsMarkdown(tools []*tool.Tool) string {
	var b strings.Builder
	b.WriteString("# Tools reference\n\n")
	b.WriteString("Every tool of the full edition, generated from the registry by `warden tools --markdown` (do not edit\n" +
		"by hand: `go run ./cmd/warden tools --markdown > docs/tools.md`; a test fails when this page and the\n" +
		"registry differ). Which of them a caller may use depends on the server's configuration and the caller's\n" +
		"token: see [operations.md](operations.md), \"Gates, approvals and privacy\", or ask `warden_status`.\n\n")
	b.WriteString("Every result also carries `warnings: [{code, message}]` when there is advice about it. Output string\n" +
		"fields name their privacy kind: the server's privacy mode (`strict`, `balanced`, `off`) redacts them by it.\n\n")
	b.WriteString("| Tool | Category | Trust | Unsafe | Read-only | Summary |\n|---|---|---|---|---|---|\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s | %s |\n", t.Name, t.Name, t.Catalog.Category,
			t.Catalog.Trust, yes(t.Catalog.Unsafe), yes(t.Annotations.ReadOnly), cell(firstSentence(t.Description)))
	}
	for _, t := range tools {
		fmt.Fprintf(&b, "\n## %s\n\n", t.Name)
		if t.Title != "" {
			fmt.Fprintf(&b, "**%s.** ", t.Title)
		}
		b.WriteString(t.Description + "\n\n")
		fmt.Fprintf(&b, "- Category: %s\n- Trust: %s\n- Unsafe: %s\n- On by default: %s\n- Consumes quota: %s\n",
			t.Catalog.Category, t.Catalog.Trust, yes(t.Catalog.Unsafe), yes(!t.Catalog.DisabledByDefault), yes(t.Catalog.ConsumesQuota))
		if t.Catalog.TargetParam != "" {
			fmt.Fprintf(&b, "- Target checked against the scope: `%s`\n", t.Catalog.TargetParam)
		}
		if info, ok := plugin.InfoOf(t); ok {
			kind := "sandboxed WebAssembly"
			if info.Trusted {
				kind = "trusted child process"
			}
			caps := strings.Join(info.Capabilities, ", ")
			if caps == "" {
				caps = "none"
			}
			fmt.Fprintf(&b, "- Plugin: `%s` %s (%s, %s); capabilities: %s\n", info.Name, info.Version, info.Runtime, kind, caps)
		}
		fmt.Fprintf(&b, "- Annotations: readOnly %s, destructive %s, idempotent %s, openWorld %s\n",
			yes(t.Annotations.ReadOnly), yes(t.Annotations.Destructive), yes(t.Annotations.Idempotent), yes(t.Annotations.OpenWorld))
		var in schemaNode
		_ = json.Unmarshal(t.InputSchema(), &in)
		params := ordered(in.Properties)
		b.WriteString("\n**Parameters**\n\n")
		if len(params) == 0 {
			b.WriteString("None.\n")
		} else {
			b.WriteString("| Name | Type | Required | Constraints | Description |\n|---|---|---|---|---|\n")
			for _, p := range params {
				var n schemaNode
				_ = json.Unmarshal(p.raw, &n)
				req := "no"
				for _, r := range in.Required {
					if r == p.name {
						req = "yes"
					}
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", p.name, typeName(n), req, cell(constraints(n)), cell(n.Description))
			}
		}
		if out := t.OutputSchema(); len(out) > 0 {
			var o schemaNode
			_ = json.Unmarshal(out, &o)
			b.WriteString("\n**Output**\n\n| Field | Type | Privacy | Description |\n|---|---|---|---|\n")
			outputRows(&b, "", o.Properties, 0)
		}
	}
	return b.String()
}
