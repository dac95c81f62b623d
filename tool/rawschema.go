package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// rawSchema is an explicit input schema, compiled for validation.
type rawSchema struct {
	published json.RawMessage
	schema    *jsonschema.Schema
	headers   []HeaderParam
}

// noLoader refuses every external reference: a schema is checked against
// itself only, never against a file or a URL.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("external schema references are not loaded")
}

const rawSchemaURL = "urn:warden:tool-input"

func compileRawSchema(raw json.RawMessage) (*rawSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok || obj["type"] != "object" {
		return nil, errors.New(`the root must be an object schema ("type": "object")`)
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
	rs := &rawSchema{published: buf.Bytes(), schema: sch}
	props, _ := obj["properties"].(map[string]any)
	seen := map[string]bool{}
	for _, name := range sortedKeys(props) {
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
			return "unexpected parameter " + displayName(join(loc, k.Properties[0]))
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
