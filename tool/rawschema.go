package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/warden-mcp/warden/internal/jsonwalk"
)

// rawSchema is an explicit input schema, compiled for validation.
type rawSchema struct {
	published json.RawMessage
	schema    *jsonschema.Schema
	headers   []HeaderParam
	required  map[string]bool   // top-level required parameters
	props     map[string]string // top-level parameter -> its "type", when a string
	// doc is the schema as compiled, to name the properties of the
	// object an unexpected parameter was found in.
	doc map[string]any
}

// noLoader refuses every external reference: a schema is checked against
// itself only, never against a file or a URL.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("external schema references are not loaded")
}

const rawSchemaURL = "urn:warden:tool-input"

// parseObjectSchema reads a schema whose root must be an object schema.
func parseObjectSchema(raw json.RawMessage) (map[string]any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok || obj["type"] != "object" {
		return nil, errors.New(`the root must be an object schema ("type": "object")`)
	}
	return obj, nil
}

// addProperty adds a property to an object schema held as a value,
// refusing a name the schema already uses.
func addProperty(obj map[string]any, name string, prop any) error {
	props, _ := obj["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		obj["properties"] = props
	}
	if _, taken := props[name]; taken {
		return fmt.Errorf("property %q is reserved", name)
	}
	props[name] = prop
	return nil
}

func compileRawSchema(raw json.RawMessage, viewScoped bool) (*rawSchema, error) {
	obj, err := parseObjectSchema(raw)
	if err != nil {
		return nil, err
	}
	var doc any = obj
	if viewScoped {
		if err := addProperty(obj, ViewParam, map[string]any{
			"type": "string", "description": viewParamDesc, "minLength": 1, "maxLength": maxViewHandle,
		}); err != nil {
			return nil, err
		}
		if raw, err = json.Marshal(obj); err != nil {
			return nil, err
		}
		if doc, err = jsonschema.UnmarshalJSON(bytes.NewReader(raw)); err != nil {
			return nil, err
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(rawSchemaURL, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(rawSchemaURL)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	rs := &rawSchema{published: buf.Bytes(), schema: sch, required: map[string]bool{}, props: map[string]string{}, doc: obj}
	if req, ok := obj["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				rs.required[name] = true
			}
		}
	}
	props, _ := obj["properties"].(map[string]any)
	for name, p := range props {
		if pm, ok := p.(map[string]any); ok {
			rs.props[name], _ = pm["type"].(string)
		}
	}
	seen := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, _ := props[name].(map[string]any)
		h, ok := p["x-mcp-header"].(string)
		if !ok {
			continue
		}
		if !headerNameRE.MatchString(h) || seen[strings.ToLower(h)] {
			return nil, fmt.Errorf("property %q: bad or duplicate x-mcp-header %q", name, h)
		}
		seen[strings.ToLower(h)] = true
		kind, _ := p["type"].(string)
		if kind != "string" && kind != "integer" && kind != "boolean" {
			return nil, fmt.Errorf("property %q: x-mcp-header needs a string, integer or boolean type", name)
		}
		rs.headers = append(rs.headers, HeaderParam{Arg: name, Header: h, Kind: kind})
	}
	return rs, nil
}

// dropNullOptionals removes the top-level members that are null and not
// required: null for an optional parameter means absent, for raw tools as
// for typed ones. args are returned as they are when nothing is null.
func (rs *rawSchema) dropNullOptionals(args json.RawMessage) (json.RawMessage, error) {
	if !json.Valid(args) || jsonwalk.Kind(args) != "object" {
		return nil, errors.New("not an object")
	}
	found := false
	_ = jsonwalk.EachMember(args, func(rawKey, val []byte) error {
		if jsonwalk.IsNull(val) {
			if k, ok := jsonwalk.Unquote(rawKey); ok && !rs.required[k] {
				found = true
			}
		}
		return nil
	})
	if !found {
		return args, nil
	}
	obj, err := decodeObjectValue(args)
	if err != nil {
		return nil, err
	}
	kept := &ordered[json.RawMessage]{}
	for i, name := range obj.names {
		if jsonwalk.IsNull(obj.values[i]) && !rs.required[name] {
			continue
		}
		kept.set(name, obj.values[i])
	}
	return json.Marshal(kept)
}

// rawOutputSchema checks a raw tool's output schema and declares the
// reserved warnings member in it, so every result validates.
func rawOutputSchema(raw json.RawMessage) (json.RawMessage, error) {
	obj, err := parseObjectSchema(raw)
	if err != nil {
		return nil, err
	}
	ws, err := json.Marshal(warningsSchema())
	if err != nil {
		return nil, err
	}
	if err := addProperty(obj, "warnings", json.RawMessage(ws)); err != nil {
		return nil, err
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return nil, err
	}
	if err := c.AddResource(rawSchemaURL, doc); err != nil {
		return nil, err
	}
	if _, err := c.Compile(rawSchemaURL); err != nil {
		return nil, err
	}
	return out, nil
}

// propertiesAt names, sorted, the properties of the object schema at
// schemaURL (the compiled document's URL and a JSON pointer fragment).
func (rs *rawSchema) propertiesAt(schemaURL string) []string {
	ptr, ok := strings.CutPrefix(schemaURL, rawSchemaURL+"#")
	if !ok {
		return nil
	}
	var cur any = rs.doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if tok == "" {
			continue
		}
		if u, err := url.PathUnescape(tok); err == nil {
			tok = u
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			cur = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			cur = v[i]
		default:
			return nil
		}
	}
	obj, _ := cur.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
}

// validate returns "" when args are valid, else a short public message
// naming the first offending parameter.
func (rs *rawSchema) validate(args json.RawMessage) string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "arguments must be a JSON object"
	}
	if _, ok := inst.(map[string]any); !ok {
		return "arguments must be a JSON object"
	}
	err = rs.schema.Validate(inst)
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "arguments do not match the input schema"
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	loc := strings.Join(leaf.InstanceLocation, ".")
	switch k := leaf.ErrorKind.(type) {
	case *jskind.Required:
		if len(k.Missing) > 0 {
			return "missing required parameter " + displayName(join(loc, k.Missing[0]))
		}
	case *jskind.AdditionalProperties:
		if len(k.Properties) > 0 {
			return "unexpected parameter " + displayName(join(loc, k.Properties[0])) + "; " +
				paramList(loc, rs.propertiesAt(leaf.SchemaURL))
		}
	}
	// The library's message may quote the value; keep only its kind.
	msg := leaf.ErrorKind.KeywordPath()
	kw := "schema"
	if len(msg) > 0 {
		kw = msg[len(msg)-1]
	}
	if loc == "" {
		if kw == "additionalProperties" || kw == "required" {
			return "arguments do not match the input schema (" + kw + ")"
		}
		return "arguments do not match the input schema"
	}
	return fmt.Sprintf("parameter %s fails the %q constraint", displayName(loc), kw)
}
