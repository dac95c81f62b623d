package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Struct tags read when deriving a schema from an arguments struct:
//
//	json:"name,omitempty"  the parameter name; omitempty (or omitzero, or a
//	                       pointer type) makes it optional
//	desc:"..."             description (published)
//	default:"..."          default value, published and applied when the
//	                       parameter is absent or null; strings verbatim,
//	                       other kinds as JSON
//	enum:"a,b,c"           allowed values (strings and integers)
//	min:"N" max:"N"        numeric bounds (inclusive)
//	minLength:"N" maxLength:"N"  string length in Unicode characters
//	pattern:"re"           regular expression (RE2) the whole string must match
//	minItems:"N" maxItems:"N"    array length
//	header:"Name"          mirror the argument into the Mcp-Param-Name HTTP header
//	relative:"param"       for IntExpr: $here is the value of that earlier parameter
//	code:"invalid_text"    the error code of every failure of this parameter,
//	                       when a tool's contract names its own (default
//	                       invalid_params)
//	maxLengthCode:"..."    the error code when the string is too long
//
// A field is required exactly when it has no default and is not optional.

type kind int

const (
	kString kind = iota
	kBool
	kInt
	kUint
	kFloat
	kObject
	kMap
	kArray
	kRaw
	kAddress
	kIntExpr
)

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	timeType        = reflect.TypeFor[time.Time]()
	addressType     = reflect.TypeFor[Address]()
	intExprType     = reflect.TypeFor[IntExpr]()
	nonEmptyType    = reflect.TypeFor[NonEmptyString]()
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// node is the checked shape of one value: what the schema advertises and
// what the decoder enforces, derived once from the same struct tags.
type node struct {
	kind     kind
	typ      reflect.Type
	desc     string
	enum     []string // string enums, or decimal integers
	min, max *float64
	minLen   int // -1: none
	maxLen   int // -1: none
	pattern  *regexp.Regexp
	nonEmpty bool // reject strings that are empty after trimming space
	minItems int  // -1: none
	maxItems int  // -1: none
	items    *node
	fields   []*field
	byName   map[string]*field
	bits     int // integer width
	// code replaces invalid_params for every failure of this value, and
	// maxLenCode for a string that is too long (tags code and
	// maxLengthCode), when a tool's contract names its own codes.
	code, maxLenCode string
	// format is published for types with a known JSON form (a time is a
	// date-time string).
	format string
	// privacy is what a string of a result holds (the privacy tag), for
	// redaction and the published x-warden-privacy keyword.
	privacy string
}

type field struct {
	name     string
	index    int  // Go struct field index
	pos      int  // position among the node's fields
	ptr      bool // the Go field is a pointer
	node     *node
	optional bool
	def      json.RawMessage // published default
	header   string
	relative string // earlier parameter that sets $here
	// reserved marks a parameter the SDK adds (view): checked, published,
	// never stored in the arguments struct.
	reserved bool
}

func (f *field) required() bool { return !f.optional && f.def == nil }

// deriveObject builds the node for an arguments struct.
func deriveObject(t reflect.Type) (*node, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("arguments type %s is not a struct", t)
	}
	return deriveNode(t, reflect.StructTag(""), map[reflect.Type]bool{})
}

func deriveNode(t reflect.Type, tag reflect.StructTag, seen map[reflect.Type]bool) (*node, error) {
	n := &node{typ: t, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, desc: tag.Get("desc")}
	switch {
	case t == rawMessageType:
		n.kind = kRaw
	case t == addressType:
		n.kind = kAddress
	case t == intExprType:
		n.kind = kIntExpr
	case t == nonEmptyType:
		n.kind = kString
		n.nonEmpty = true
		n.minLen = 1
	case t == timeType:
		n.kind = kRaw
		n.format = "date-time"
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(unmarshalerType):
		// A type with its own JSON form (time.Time, say) is published as
		// any value and decoded by its own UnmarshalJSON.
		n.kind = kRaw
	default:
		switch t.Kind() {
		case reflect.String:
			n.kind = kString
		case reflect.Bool:
			n.kind = kBool
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n.kind, n.bits = kInt, t.Bits()
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n.kind, n.bits = kUint, t.Bits()
		case reflect.Float32, reflect.Float64:
			n.kind = kFloat
		case reflect.Slice:
			n.kind = kArray
			it, err := deriveNode(t.Elem(), reflect.StructTag(""), seen)
			if err != nil {
				return nil, err
			}
			n.items = it
		case reflect.Map:
			if t.Key().Kind() != reflect.String {
				return nil, fmt.Errorf("map type %s: keys must be strings", t)
			}
			n.kind = kMap
			it, err := deriveNode(t.Elem(), reflect.StructTag(""), seen)
			if err != nil {
				return nil, err
			}
			n.items = it
		case reflect.Interface:
			if t.NumMethod() != 0 {
				return nil, fmt.Errorf("interface type %s cannot be decoded", t)
			}
			n.kind = kRaw
		case reflect.Struct:
			if seen[t] {
				return nil, fmt.Errorf("recursive type %s", t)
			}
			seen[t] = true
			defer delete(seen, t)
			n.kind = kObject
			if err := deriveFields(n, t, seen); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("type %s is not supported in arguments", t)
		}
	}
	if err := applyConstraints(n, tag); err != nil {
		return nil, err
	}
	if err := applyPrivacy(n, tag); err != nil {
		return nil, err
	}
	return n, nil
}

func deriveFields(n *node, t reflect.Type, seen map[reflect.Type]bool) error {
	n.byName = map[string]*field{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		if sf.Anonymous {
			return fmt.Errorf("%s: embedded field %s is not supported; name it", t, sf.Name)
		}
		jt := sf.Tag.Get("json")
		if jt == "-" {
			continue
		}
		name, opts, _ := strings.Cut(jt, ",")
		if name == "" {
			name = sf.Name
		}
		f := &field{name: name, index: i, header: sf.Tag.Get("header"), relative: sf.Tag.Get("relative")}
		for _, o := range strings.Split(opts, ",") {
			if o == "omitempty" || o == "omitzero" {
				f.optional = true
			}
		}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			f.ptr, f.optional = true, true
			ft = ft.Elem()
		}
		fn, err := deriveNode(ft, sf.Tag, seen)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", t, sf.Name, err)
		}
		f.node = fn
		if d, ok := sf.Tag.Lookup("default"); ok {
			raw, err := defaultJSON(fn, d)
			if err != nil {
				return fmt.Errorf("%s.%s: default: %w", t, sf.Name, err)
			}
			// The default must itself pass the checks it will bypass.
			// Expression defaults depend on the target and are checked
			// when applied.
			if fn.kind != kAddress && fn.kind != kIntExpr {
				v := reflect.New(ft).Elem()
				if err := decodeValue(fn, raw, v, name, nil); err != nil {
					return fmt.Errorf("%s.%s: default %q is invalid: %s", t, sf.Name, d, err.Message)
				}
			}
			f.def = raw
		}
		if f.header != "" {
			if !headerNameRE.MatchString(f.header) {
				return fmt.Errorf("%s.%s: header name %q is not an HTTP token", t, sf.Name, f.header)
			}
			switch fn.kind {
			case kString, kInt, kUint, kBool:
			default:
				return fmt.Errorf("%s.%s: only string, integer and boolean parameters can be mirrored into headers", t, sf.Name)
			}
		}
		if f.relative != "" {
			if fn.kind != kIntExpr {
				return fmt.Errorf("%s.%s: relative applies to IntExpr parameters only", t, sf.Name)
			}
			prev, ok := n.byName[f.relative]
			if !ok || (prev.node.kind != kAddress && prev.node.kind != kIntExpr) {
				return fmt.Errorf("%s.%s: relative must name an earlier address or integer-expression parameter", t, sf.Name)
			}
		}
		if _, dup := n.byName[name]; dup {
			return fmt.Errorf("%s: parameter name %q used twice", t, name)
		}
		if name == "" || len(name) > 64 {
			return fmt.Errorf("%s.%s: parameter name must be 1-64 bytes", t, sf.Name)
		}
		f.pos = len(n.fields)
		n.fields = append(n.fields, f)
		n.byName[name] = f
	}
	seenHeaders := map[string]bool{}
	for _, f := range n.fields {
		if f.header == "" {
			continue
		}
		k := strings.ToLower(f.header)
		if seenHeaders[k] {
			return fmt.Errorf("%s: header %q mirrored twice", t, f.header)
		}
		seenHeaders[k] = true
	}
	return nil
}

var codeRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

var headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

func applyConstraints(n *node, tag reflect.StructTag) error {
	num := func(key string) (*float64, error) {
		s, ok := tag.Lookup(key)
		if !ok {
			return nil, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: %q is not a number", key, s)
		}
		return &f, nil
	}
	count := func(key string, dst *int) error {
		s, ok := tag.Lookup(key)
		if !ok {
			return nil
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return fmt.Errorf("%s: %q is not a count", key, s)
		}
		*dst = v
		return nil
	}
	var err error
	if n.min, err = num("min"); err != nil {
		return err
	}
	if n.max, err = num("max"); err != nil {
		return err
	}
	if (n.min != nil || n.max != nil) && n.kind != kInt && n.kind != kUint && n.kind != kFloat && n.kind != kIntExpr {
		return fmt.Errorf("min/max apply to numbers only")
	}
	for _, c := range []struct {
		key string
		dst *int
	}{{"minLength", &n.minLen}, {"maxLength", &n.maxLen}, {"minItems", &n.minItems}, {"maxItems", &n.maxItems}} {
		if err := count(c.key, c.dst); err != nil {
			return err
		}
	}
	if (n.minLen >= 0 || n.maxLen >= 0) && n.kind != kString && n.kind != kAddress {
		if !(n.nonEmpty && n.minLen == 1 && n.maxLen < 0) {
			return fmt.Errorf("minLength/maxLength apply to strings only")
		}
	}
	if (n.minItems >= 0 || n.maxItems >= 0) && n.kind != kArray {
		return fmt.Errorf("minItems/maxItems apply to arrays only")
	}
	n.code, n.maxLenCode = tag.Get("code"), tag.Get("maxLengthCode")
	for _, c := range []string{n.code, n.maxLenCode} {
		if c != "" && !codeRE.MatchString(c) {
			return fmt.Errorf("error code %q is not snake_case", c)
		}
	}
	if p, ok := tag.Lookup("pattern"); ok {
		if n.nonEmpty {
			return fmt.Errorf("NonEmptyString cannot also take a pattern")
		}
		if n.kind != kString {
			return fmt.Errorf("pattern applies to strings only")
		}
		if err := portablePattern(p); err != nil {
			return fmt.Errorf("pattern: %v", err)
		}
		re, err := regexp.Compile("^(?:" + p + ")$")
		if err != nil {
			return fmt.Errorf("pattern: %v", err)
		}
		n.pattern = re
	}
	if e, ok := tag.Lookup("enum"); ok {
		n.enum = strings.Split(e, ",")
		switch n.kind {
		case kString:
		case kInt, kUint:
			for _, v := range n.enum {
				if _, err := strconv.ParseInt(v, 10, 64); err != nil {
					return fmt.Errorf("enum: %q is not an integer", v)
				}
			}
		default:
			return fmt.Errorf("enum applies to strings and integers only")
		}
	}
	return nil
}

// re2Only are spellings that Go's RE2 accepts and ECMA-262 (the dialect of
// JSON Schema patterns) does not, or reads differently. A pattern is
// published as the decoder matches it, so it must mean the same in both.
var re2Only = []struct{ spelling, why string }{
	{`(?i`, "inline flags"}, {`(?m`, "inline flags"}, {`(?s`, "inline flags"}, {`(?U`, "inline flags"},
	{`(?P<`, "(?P<name>) groups; write (?<name>)"},
	{`\A`, `\A; the whole string is matched already`}, {`\z`, `\z; the whole string is matched already`},
	{`\Q`, `\Q...\E quoting`}, {`[[:`, "POSIX classes"}, {`\C`, `\C`},
}

// portablePattern refuses RE2-only syntax.
func portablePattern(p string) error {
	for _, r := range re2Only {
		if strings.Contains(p, r.spelling) {
			return fmt.Errorf("%q uses %s, which JSON Schema's ECMA-262 patterns lack", p, r.why)
		}
	}
	// \pL and \PL (one-letter classes without braces) are RE2 only.
	for i := 0; i+2 < len(p); i++ {
		if p[i] == '\\' && (p[i+1] == 'p' || p[i+1] == 'P') && p[i+2] != '{' {
			return fmt.Errorf("%q uses \\%c without braces; write \\%c{...}", p, p[i+1], p[i+1])
		}
		if p[i] == '\\' {
			i++ // skip the escaped character
		}
	}
	return nil
}

func defaultJSON(n *node, d string) (json.RawMessage, error) {
	switch n.kind {
	case kString, kAddress:
		return json.Marshal(d)
	case kIntExpr:
		if _, err := strconv.ParseUint(d, 10, 64); err == nil {
			return json.RawMessage(d), nil
		}
		return json.Marshal(d)
	}
	if !json.Valid([]byte(d)) {
		return nil, fmt.Errorf("%q is not JSON", d)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(d)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// jsonSchema is a JSON Schema (2020-12) value. Schemas are built as values
// and marshalled once; the field order here is the published key order, so
// the bytes are deterministic.
//
// Published schemas keep to what every client accepts: each states one
// type, or is an anyOf of schemas that each state one. A list of types
// ("type": ["integer", "string"]) is valid JSON Schema, but clients that
// map tool schemas onto a single-type dialect (a model provider's function
// declarations) refuse it or drop the constraint, and a schema with no
// type at all says nothing they can map. tooltest.Check holds every tool
// to this in go test, and scripts/clients/check-schemas.mjs runs every
// published schema through the TypeScript SDK's validators in CI.
type jsonSchema struct {
	Type        string          `json:"type,omitempty"`
	AnyOf       []*jsonSchema   `json:"anyOf,omitempty"`
	Kind        string          `json:"x-warden-kind,omitempty"`
	Format      string          `json:"format,omitempty"`
	Description string          `json:"description,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	Enum        json.RawMessage `json:"enum,omitempty"`
	Minimum     *float64        `json:"minimum,omitempty"`
	Maximum     *float64        `json:"maximum,omitempty"`
	MinLength   *int            `json:"minLength,omitempty"`
	MaxLength   *int            `json:"maxLength,omitempty"`
	Pattern     string          `json:"pattern,omitempty"`
	Items       *jsonSchema     `json:"items,omitempty"`
	MinItems    *int            `json:"minItems,omitempty"`
	MaxItems    *int            `json:"maxItems,omitempty"`
	Properties  *properties     `json:"properties,omitempty"`
	Required    []string        `json:"required,omitempty"`
	// AdditionalProperties is false (a closed object) or a schema (a
	// map's values); nil leaves it out.
	AdditionalProperties any    `json:"additionalProperties,omitempty"`
	Header               string `json:"x-mcp-header,omitempty"`
	// Privacy is the privacy kind a string holds: in an output schema,
	// what the server's privacy mode does to it; in an input schema, an
	// argument the server never repeats (a secret, a request body), which
	// approval questions leave out.
	Privacy string `json:"x-warden-privacy,omitempty"`
}

// properties keeps an object's properties in declaration order.
type properties = ordered[*jsonSchema]

// schemaMode says whose schema is being built: arguments are closed
// objects (an unknown parameter is refused), results are open (fields only
// ever grow, so a client holding an older schema still validates a newer
// result).
type schemaMode int

const (
	inputSchema schemaMode = iota
	outputSchema
)

func intp(v int) *int { return &v }

// schemaValue builds the schema of a node; f is the field that holds it,
// if any (for its default and header).
func schemaValue(n *node, f *field, mode schemaMode) *jsonSchema {
	s := &jsonSchema{Description: n.desc}
	switch n.kind {
	case kString:
		s.Type = "string"
	case kAddress:
		s.Type, s.Kind = "string", "address"
	case kIntExpr:
		// An integer (bounded) or an expression string: two branches of
		// one type each.
		s.Kind = "integer-expression"
		s.AnyOf = []*jsonSchema{{Type: "integer"}, {Type: "string"}}
	case kBool:
		s.Type = "boolean"
	case kInt, kUint:
		s.Type = "integer"
	case kFloat:
		s.Type = "number"
	case kArray:
		s.Type = "array"
	case kObject, kMap:
		s.Type = "object"
	case kRaw:
		if n.format != "" {
			s.Type, s.Format = "string", n.format
		} else {
			// Any JSON value, spelt as its six types.
			s.AnyOf = anyValue(mode)
		}
	}
	if f != nil && f.def != nil {
		s.Default = f.def
	}
	if len(n.enum) > 0 {
		if n.kind == kString {
			s.Enum, _ = json.Marshal(n.enum)
		} else {
			s.Enum = json.RawMessage("[" + strings.Join(n.enum, ",") + "]")
		}
	}
	if lo, hi, ok := n.bounds(); ok {
		if n.kind == kIntExpr {
			s.AnyOf[0].Minimum, s.AnyOf[0].Maximum = lo, hi // numbers only
		} else {
			s.Minimum, s.Maximum = lo, hi
		}
	}
	if n.minLen >= 0 {
		s.MinLength = intp(n.minLen)
	}
	if n.maxLen >= 0 {
		s.MaxLength = intp(n.maxLen)
	}
	switch {
	case n.nonEmpty:
		s.Pattern = nonBlankPattern
	case n.pattern != nil:
		// Exactly what the decoder matches: the whole string.
		s.Pattern = n.pattern.String()
	}
	if n.kind == kArray {
		s.Items = schemaValue(n.items, nil, mode)
		if n.minItems >= 0 {
			s.MinItems = intp(n.minItems)
		}
		if n.maxItems >= 0 {
			s.MaxItems = intp(n.maxItems)
		}
	}
	if n.kind == kMap {
		s.AdditionalProperties = schemaValue(n.items, nil, mode)
	}
	if n.kind == kObject {
		s.Properties = &properties{}
		for _, c := range n.fields {
			s.Properties.set(c.name, schemaValue(c.node, c, mode))
			if c.required() {
				s.Required = append(s.Required, c.name)
			}
		}
		if mode == inputSchema {
			s.AdditionalProperties = false
		}
	}
	if f != nil {
		s.Header = f.header
	}
	s.Privacy = n.privacy
	return s
}

// schemaOf renders the published input schema of a root node.
func schemaOf(n *node) json.RawMessage {
	return schemaValue(n, nil, inputSchema).appendJSON(nil)
}

// outputSchemaOf derives the output schema of a result type, with the
// reserved warnings property first, and the node that redaction walks. It
// returns a nil node when the type has no object schema (a string result,
// say).
func outputSchemaOf(t reflect.Type) (json.RawMessage, *node, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, nil, nil
	}
	n, err := deriveNode(t, "", map[reflect.Type]bool{})
	if err != nil {
		return nil, nil, err
	}
	if _, ok := n.byName["warnings"]; ok {
		return nil, nil, fmt.Errorf("output type %s declares %q, which is reserved", t, "warnings")
	}
	s := schemaValue(n, nil, outputSchema)
	props := &properties{}
	props.set("warnings", warningsSchema())
	for i, name := range s.Properties.names {
		props.set(name, s.Properties.values[i])
	}
	s.Properties = props
	return s.appendJSON(nil), n, nil
}

// anyValue is the anyOf that admits any JSON value: one branch per type.
// In an input schema the array branch says what its items are, as some
// clients require of every parameter array: any value but an array, so
// the schema stays finite (the decoder still takes nested arrays). Output
// schemas admit every array, so that a client validating a result never
// refuses a valid one.
func anyValue(mode schemaMode) []*jsonSchema {
	scalars := []string{"object", "string", "number", "boolean", "null"}
	arr := &jsonSchema{Type: "array"}
	if mode == inputSchema {
		arr.Items = &jsonSchema{}
		for _, t := range scalars {
			arr.Items.AnyOf = append(arr.Items.AnyOf, &jsonSchema{Type: t})
		}
	}
	out := []*jsonSchema{{Type: "object"}, arr}
	for _, t := range scalars[1:] {
		out = append(out, &jsonSchema{Type: t})
	}
	return out
}

// warningsSchema describes the reserved warnings member of every result.
func warningsSchema() *jsonSchema {
	str := func() *jsonSchema { return &jsonSchema{Type: "string"} }
	item := &jsonSchema{Type: "object", Properties: &properties{}, Required: []string{"code", "message"}}
	item.Properties.set("code", str())
	item.Properties.set("message", str())
	return &jsonSchema{
		Type:        "array",
		Description: "Advisory notes about the result (analysis incomplete, partial read).",
		Items:       item,
	}
}

func runeCount(s string) int { return utf8.RuneCountInString(s) }

// nonBlankPattern is published for NonEmptyString: at least one character
// that is not ASCII white space, spelled so that ECMA-262 and RE2 agree.
const nonBlankPattern = "[^ \\t\\n\\r\\f\\v]"

const asciiSpace = " \t\n\r\f\v"

// bounds returns the numeric bounds published for n: the tags' bounds,
// narrowed by the range of the Go type for integers up to 32 bits, and 0
// as the floor of unsigned and expression kinds.
func (n *node) bounds() (lo, hi *float64, ok bool) {
	lo, hi = n.min, n.max
	clampLo := func(v float64) {
		if lo == nil || *lo < v {
			lo = &v
		}
	}
	clampHi := func(v float64) {
		if hi == nil || *hi > v {
			hi = &v
		}
	}
	switch n.kind {
	case kInt:
		if n.bits <= 32 {
			clampLo(-math.Ldexp(1, n.bits-1))
			clampHi(math.Ldexp(1, n.bits-1) - 1)
		}
	case kUint:
		clampLo(0)
		if n.bits <= 32 {
			clampHi(math.Ldexp(1, n.bits) - 1)
		}
	case kIntExpr:
		clampLo(0)
	case kFloat:
	default:
		return nil, nil, false
	}
	return lo, hi, true
}
