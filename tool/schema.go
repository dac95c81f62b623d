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

// schemaWriter renders a node as JSON Schema (2020-12) with a fixed key
// order, so published bytes are deterministic.
type schemaWriter struct{ bytes.Buffer }

func (w *schemaWriter) key(first *bool, k string) {
	if !*first {
		w.WriteByte(',')
	}
	*first = false
	b, _ := json.Marshal(k)
	w.Write(b)
	w.WriteByte(':')
}

func (w *schemaWriter) value(v any) {
	b, _ := json.Marshal(v)
	w.Write(b)
}

func (w *schemaWriter) node(n *node, f *field) {
	first := true
	w.WriteByte('{')
	switch n.kind {
	case kString:
		w.key(&first, "type")
		w.value("string")
	case kAddress:
		w.key(&first, "type")
		w.value("string")
		w.key(&first, "x-warden-kind")
		w.value("address")
	case kIntExpr:
		w.key(&first, "type")
		w.value([]string{"integer", "string"})
		w.key(&first, "x-warden-kind")
		w.value("integer-expression")
	case kBool:
		w.key(&first, "type")
		w.value("boolean")
	case kInt, kUint:
		w.key(&first, "type")
		w.value("integer")
	case kFloat:
		w.key(&first, "type")
		w.value("number")
	case kArray:
		w.key(&first, "type")
		w.value("array")
	case kObject, kMap:
		w.key(&first, "type")
		w.value("object")
	case kRaw:
		if n.format != "" {
			w.key(&first, "type")
			w.value("string")
			w.key(&first, "format")
			w.value(n.format)
		}
	}
	if n.desc != "" {
		w.key(&first, "description")
		w.value(n.desc)
	}
	if f != nil && f.def != nil {
		w.key(&first, "default")
		w.Write(f.def)
	}
	if len(n.enum) > 0 {
		w.key(&first, "enum")
		if n.kind == kString {
			w.value(n.enum)
		} else {
			w.WriteString("[" + strings.Join(n.enum, ",") + "]")
		}
	}
	if lo, hi, ok := n.bounds(); ok {
		if lo != nil {
			w.key(&first, "minimum")
			w.value(*lo)
		}
		if hi != nil {
			w.key(&first, "maximum")
			w.value(*hi)
		}
	}
	if n.minLen >= 0 {
		w.key(&first, "minLength")
		w.value(n.minLen)
	}
	if n.maxLen >= 0 {
		w.key(&first, "maxLength")
		w.value(n.maxLen)
	}
	if n.nonEmpty {
		w.key(&first, "pattern")
		w.value(nonBlankPattern)
	}
	if n.pattern != nil {
		w.key(&first, "pattern")
		s := n.pattern.String()
		w.value(s[len("^(?:") : len(s)-len(")$")])
	}
	if n.kind == kArray {
		w.key(&first, "items")
		w.node(n.items, nil)
		if n.minItems >= 0 {
			w.key(&first, "minItems")
			w.value(n.minItems)
		}
		if n.maxItems >= 0 {
			w.key(&first, "maxItems")
			w.value(n.maxItems)
		}
	}
	if n.kind == kMap {
		w.key(&first, "additionalProperties")
		w.node(n.items, nil)
	}
	if n.kind == kObject {
		w.key(&first, "properties")
		w.WriteByte('{')
		pf := true
		var req []string
		for _, c := range n.fields {
			w.key(&pf, c.name)
			w.node(c.node, c)
			if c.required() {
				req = append(req, c.name)
			}
		}
		w.WriteByte('}')
		if len(req) > 0 {
			w.key(&first, "required")
			w.value(req)
		}
		w.key(&first, "additionalProperties")
		w.value(false)
	}
	if f != nil && f.header != "" {
		w.key(&first, "x-mcp-header")
		w.value(f.header)
	}
	w.WriteByte('}')
}

// schemaOf renders the published schema of a root node.
func schemaOf(n *node) json.RawMessage {
	var w schemaWriter
	w.node(n, nil)
	return w.Bytes()
}

// outputSchemaOf derives the output schema of a result type and adds the
// reserved warnings property. It reports ok=false when the type has no
// object schema (a string result, say).
func outputSchemaOf(t reflect.Type) (json.RawMessage, bool, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, false, nil
	}
	n, err := deriveNode(t, "", map[reflect.Type]bool{})
	if err != nil {
		return nil, false, err
	}
	if _, ok := n.byName["warnings"]; ok {
		return nil, false, fmt.Errorf("output type %s declares %q, which is reserved", t, "warnings")
	}
	var w schemaWriter
	w.node(n, nil)
	out := w.Bytes()
	// Output schemas describe, they do not restrict: drop the closing
	// additionalProperties so the reserved warnings member validates, and
	// declare warnings itself.
	out = bytes.TrimSuffix(out, []byte(`,"additionalProperties":false}`))
	out = append(out, `,"additionalProperties":false}`...)
	out = bytes.Replace(out, []byte(`"properties":{`), []byte(`"properties":{"warnings":`+warningsSchema+`,`), 1)
	// An empty struct renders "properties":{} - repair the trailing comma.
	out = bytes.Replace(out, []byte(`,}`), []byte(`}`), 1)
	return out, true, nil
}

const warningsSchema = `{"type":"array","description":"Advisory notes about the result (analysis incomplete, partial read).","items":{"type":"object","properties":{"code":{"type":"string"},"message":{"type":"string"}},"required":["code","message"],"additionalProperties":false}}`

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
