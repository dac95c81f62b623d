package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/warden-mcp/warden/internal/jsonwalk"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Address is an address parameter: a string that is an address expression
// (0x401000, main, .text + 0x10) evaluated against the active target before
// the handler runs. It is published as {"type":"string"} and marshals as a
// hex string, so 64-bit values keep their precision in JSON.
type Address uint64

// MarshalJSON writes the address as a hex string.
func (a Address) MarshalJSON() ([]byte, error) {
	return []byte(`"0x` + strconv.FormatUint(uint64(a), 16) + `"`), nil
}

// String formats the address as hex.
func (a Address) String() string { return "0x" + strconv.FormatUint(uint64(a), 16) }

// IntExpr is an integer parameter that accepts a JSON integer or an
// expression string ("0x40", "$here + 0n64"). With the relative tag,
// $here is the value of an earlier address parameter, so a length can be
// written as an end address minus $here.
type IntExpr uint64

// NonEmptyString is a string parameter that must contain something other
// than white space.
type NonEmptyString string

// paramError is an argument-checking failure. Its message names the
// parameter but never repeats its value.
type paramError struct {
	Code    string // "" means invalid_params
	Message string
}

func (e *paramError) Error() string { return e.Message }

func perr(format string, args ...any) *paramError {
	return &paramError{Message: fmt.Sprintf(format, args...)}
}

// displayName bounds a client-chosen name before it enters a message.
func displayName(s string) string {
	const max = 64
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strconv.Quote(s)
}

// paramList names the parameters an object takes, for the message that
// refuses one it does not take: a model that misspelt a name or guessed
// one reads the right names in the same answer. At most maxListed names
// and maxListBytes bytes are listed, so a tool with many parameters does
// not flood the context; the rest are counted.
func paramList(path string, names []string) string {
	const maxListed, maxListBytes = 16, 400
	if len(names) == 0 {
		if path == "" {
			return "this tool takes no parameters"
		}
		return displayName(path) + " takes no parameters"
	}
	var b strings.Builder
	if path == "" {
		b.WriteString("the parameters are ")
	} else {
		b.WriteString("the parameters of " + displayName(path) + " are ")
	}
	start, shown := b.Len(), 0
	for _, name := range names {
		if len(name) > 64 {
			name = name[:64] + "…"
		}
		if shown == maxListed || b.Len()-start+len(name) > maxListBytes {
			break
		}
		if shown > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		shown++
	}
	if rest := len(names) - shown; rest > 0 {
		fmt.Fprintf(&b, " and %d more", rest)
	}
	return b.String()
}

// decodeEnv is what argument checking needs from the call: a way to
// evaluate expressions, and the values decoded so far (for relative).
type decodeEnv struct {
	eval   func(expr string, integer bool, base uint64) (uint64, error)
	values map[string]uint64
}

// decodeArgs checks raw arguments against the root node and stores them in
// dst (a pointer to the arguments struct). Absent or null arguments are {}.
func decodeArgs(n *node, raw []byte, dst reflect.Value, env *decodeEnv) *paramError {
	if len(raw) == 0 || jsonwalk.IsNull(raw) {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return perr("arguments must be a JSON object")
	}
	return decodeObject(n, raw, dst, "", env)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func decodeObject(n *node, raw []byte, v reflect.Value, path string, env *decodeEnv) *paramError {
	// First pass: match members to fields, refusing unknown and repeated
	// names. Second pass, in declaration order so that a relative
	// parameter sees the one it is relative to: decode, default, require.
	var small [8][]byte
	vals := small[:0]
	if len(n.fields) <= len(small) {
		vals = small[:len(n.fields)]
	} else {
		vals = make([][]byte, len(n.fields))
	}
	err := jsonwalk.EachMember(raw, func(rawKey, val []byte) error {
		var f *field
		if body, ok := plainKey(rawKey); ok {
			f = n.byName[string(body)] // a map index: the conversion does not allocate
		}
		key := ""
		if f == nil || vals[f.pos] != nil { // escaped, unknown or repeated: decode it for the check and message
			var ok bool
			if key, ok = jsonwalk.Unquote(rawKey); !ok {
				return perr("arguments must be a JSON object")
			}
			f = n.byName[key]
		}
		if f == nil {
			names := make([]string, len(n.fields))
			for i, f := range n.fields {
				names[i] = f.name
			}
			return perr("unexpected parameter %s; %s", displayName(join(path, key)), paramList(path, names))
		}
		i := f.pos
		if vals[i] != nil {
			return perr("parameter %s given twice", displayName(join(path, key)))
		}
		vals[i] = val
		return nil
	})
	if err != nil {
		return err.(*paramError)
	}
	for i, f := range n.fields {
		val := vals[i]
		if val != nil && jsonwalk.IsNull(val) {
			if f.required() {
				return withCode(f.node.code, perr("parameter %s is required and cannot be null", displayName(join(path, f.name))))
			}
			val = nil // null means absent
		}
		if f.reserved {
			if val != nil {
				var s string
				if err := decodeValue(f.node, val, reflect.ValueOf(&s).Elem(), join(path, f.name), env); err != nil {
					return err
				}
			}
			continue
		}
		switch {
		case val != nil:
		case f.def != nil:
			val = f.def
		case f.required():
			return withCode(f.node.code, perr("missing required parameter %s", displayName(join(path, f.name))))
		default:
			continue
		}
		if err := decodeField(f, val, v, path, env); err != nil {
			return err
		}
	}
	return nil
}

// plainKey returns the body of a quoted member name that needs no
// unescaping: no backslash, no control character, valid UTF-8. Such a
// name is its own decoded form.
func plainKey(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' || c < 0x20 {
			return nil, false
		}
	}
	return body, utf8.Valid(body)
}

func decodeField(f *field, val []byte, v reflect.Value, path string, env *decodeEnv) *paramError {
	fv := v.Field(f.index)
	if f.ptr {
		p := reflect.New(fv.Type().Elem())
		fv.Set(p)
		fv = p.Elem()
	}
	name := join(path, f.name)
	if f.node.kind == kAddress || f.node.kind == kIntExpr {
		var base uint64
		if f.relative != "" && env != nil {
			base = env.values[f.relative] // 0 when absent
		}
		u, err := decodeExpr(f.node, val, name, env, base)
		if err != nil {
			return err
		}
		fv.SetUint(u)
		if env != nil {
			if env.values == nil {
				env.values = map[string]uint64{}
			}
			env.values[f.name] = u
		}
		return checkBounds(f.node, float64(u), name)
	}
	return decodeValue(f.node, val, fv, name, env)
}

func decodeExpr(n *node, val []byte, name string, env *decodeEnv, base uint64) (uint64, *paramError) {
	k := jsonwalk.Kind(val)
	if n.kind == kIntExpr && k == "number" {
		u, err := strconv.ParseUint(string(val), 10, 64)
		if err != nil {
			return 0, perr("parameter %s must be a non-negative integer or an expression string", displayName(name))
		}
		return u, nil
	}
	if k != "string" {
		if n.kind == kAddress {
			return 0, perr("parameter %s must be a string (an address expression)", displayName(name))
		}
		return 0, perr("parameter %s must be an integer or an expression string", displayName(name))
	}
	s, ok := jsonwalk.Unquote(val)
	if !ok {
		return 0, perr("parameter %s must be a string", displayName(name))
	}
	if strings.TrimSpace(s) == "" {
		return 0, perr("parameter %s must not be empty", displayName(name))
	}
	eval := viewEvaluator(context.Background(), nil)
	if env != nil && env.eval != nil {
		eval = env.eval
	}
	u, err := eval(s, n.kind == kIntExpr, base)
	if err != nil {
		what := "address"
		if n.kind == kIntExpr {
			what = "integer"
		}
		return 0, perr("invalid %s expression parameter %s: %s", what, displayName(name), publicExprError(err))
	}
	return u, nil
}

func checkBounds(n *node, f float64, name string) *paramError {
	if n.min != nil && f < *n.min {
		return perr("parameter %s must be at least %s", displayName(name), fmtNum(*n.min))
	}
	if n.max != nil && f > *n.max {
		return perr("parameter %s must be at most %s", displayName(name), fmtNum(*n.max))
	}
	return nil
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func typeError(name, want string) *paramError {
	return perr("parameter %s must be %s", displayName(name), want)
}

// withCode sets a tool-chosen error code on a parameter failure.
func withCode(code string, e *paramError) *paramError {
	if e != nil && e.Code == "" && code != "" {
		e.Code = code
	}
	return e
}

func decodeValue(n *node, val []byte, v reflect.Value, name string, env *decodeEnv) *paramError {
	return withCode(n.code, decodeValueInner(n, val, v, name, env))
}

func decodeValueInner(n *node, val []byte, v reflect.Value, name string, env *decodeEnv) *paramError {
	switch n.kind {
	case kString:
		return decodeString(n, val, v, name)
	case kBool:
		switch string(val) {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			return typeError(name, "a boolean")
		}
	case kInt, kUint:
		return decodeInteger(n, val, v, name)
	case kFloat:
		if jsonwalk.Kind(val) != "number" {
			return typeError(name, "a number")
		}
		f, _, ok := parseNumber(val)
		if !ok {
			return typeError(name, "a number")
		}
		if err := checkBounds(n, f, name); err != nil {
			return err
		}
		v.SetFloat(f)
	case kArray:
		return decodeArray(n, val, v, name, env)
	case kObject:
		if jsonwalk.Kind(val) != "object" {
			return typeError(name, "an object")
		}
		return decodeObject(n, val, v, name, env)
	case kMap:
		return decodeMap(n, val, v, name, env)
	case kRaw:
		if v.Type() == rawMessageType {
			v.SetBytes(append(json.RawMessage(nil), val...))
			return nil
		}
		if err := json.Unmarshal(val, v.Addr().Interface()); err != nil {
			return perr("parameter %s has the wrong shape", displayName(name))
		}
	case kAddress, kIntExpr:
		u, err := decodeExpr(n, val, name, env, 0)
		if err != nil {
			return err
		}
		v.SetUint(u)
	}
	return nil
}

// decodeString checks a string against the parameter's length, enum and
// pattern.
func decodeString(n *node, val []byte, v reflect.Value, name string) *paramError {
	if jsonwalk.Kind(val) != "string" {
		return typeError(name, "a string")
	}
	s, ok := jsonwalk.Unquote(val)
	if !ok {
		return typeError(name, "a string")
	}
	if n.nonEmpty && strings.Trim(s, asciiSpace) == "" {
		return perr("parameter %s must not be empty", displayName(name))
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		c := runeCount(s)
		if n.minLen >= 0 && c < n.minLen {
			return perr("parameter %s must be at least %d characters long", displayName(name), n.minLen)
		}
		if n.maxLen >= 0 && c > n.maxLen {
			return withCode(n.maxLenCode, perr("parameter %s must be at most %d characters long", displayName(name), n.maxLen))
		}
	}
	if len(n.enum) > 0 && !contains(n.enum, s) {
		return perr("parameter %s must be one of: %s", displayName(name), strings.Join(n.enum, ", "))
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		return perr("parameter %s does not match the required pattern", displayName(name))
	}
	v.SetString(s)
	return nil
}

// decodeInteger reads a signed or unsigned integer, written as JSON
// Schema's "integer" allows (1, 1.0, 1e2), within its bounds and width.
func decodeInteger(n *node, val []byte, v reflect.Value, name string) *paramError {
	if jsonwalk.Kind(val) != "number" {
		return typeError(name, "an integer")
	}
	f, isInt, ok := parseNumber(val)
	if !ok || !isInt {
		return typeError(name, "an integer")
	}
	if len(n.enum) > 0 && !contains(n.enum, strconv.FormatFloat(f, 'f', -1, 64)) {
		return perr("parameter %s must be one of: %s", displayName(name), strings.Join(n.enum, ", "))
	}
	if err := checkBounds(n, f, name); err != nil {
		return err
	}
	if n.kind == kInt {
		i, err := strconv.ParseInt(string(val), 10, n.bits)
		if err != nil {
			if f != math.Trunc(f) || f < math.MinInt64 || f > math.MaxInt64 {
				return perr("parameter %s is out of range", displayName(name))
			}
			i = int64(f)
			if v.OverflowInt(i) {
				return perr("parameter %s is out of range", displayName(name))
			}
		}
		v.SetInt(i)
	} else {
		u, err := strconv.ParseUint(string(val), 10, n.bits)
		if err != nil {
			if f < 0 {
				return perr("parameter %s must be at least 0", displayName(name))
			}
			if f > math.MaxUint64 || v.OverflowUint(uint64(f)) {
				return perr("parameter %s is out of range", displayName(name))
			}
			u = uint64(f)
		}
		v.SetUint(u)
	}
	return nil
}

// decodeArray checks the number of items, then decodes each; a null item
// is refused.
func decodeArray(n *node, val []byte, v reflect.Value, name string, env *decodeEnv) *paramError {
	if jsonwalk.Kind(val) != "array" {
		return typeError(name, "an array")
	}
	count := 0
	_ = jsonwalk.EachElement(val, func(int, []byte) error { count++; return nil })
	if n.minItems >= 0 && count < n.minItems {
		return perr("parameter %s must have at least %d items", displayName(name), n.minItems)
	}
	if n.maxItems >= 0 && count > n.maxItems {
		return perr("parameter %s must have at most %d items", displayName(name), n.maxItems)
	}
	s := reflect.MakeSlice(v.Type(), count, count)
	err := jsonwalk.EachElement(val, func(i int, el []byte) error {
		en := name + "[" + strconv.Itoa(i) + "]"
		if jsonwalk.IsNull(el) {
			return perr("parameter %s must not be null", displayName(en))
		}
		if e := decodeValue(n.items, el, s.Index(i), en, env); e != nil {
			return e
		}
		return nil
	})
	if err != nil {
		return err.(*paramError)
	}
	v.Set(s)
	return nil
}

// decodeMap decodes an object of any keys into a map.
func decodeMap(n *node, val []byte, v reflect.Value, name string, env *decodeEnv) *paramError {
	if jsonwalk.Kind(val) != "object" {
		return typeError(name, "an object")
	}
	m := reflect.MakeMap(v.Type())
	err := jsonwalk.EachMember(val, func(rawKey, el []byte) error {
		key, ok := jsonwalk.Unquote(rawKey)
		if !ok {
			return typeError(name, "an object")
		}
		ev := reflect.New(v.Type().Elem()).Elem()
		if e := decodeValue(n.items, el, ev, join(name, key), env); e != nil {
			return e
		}
		m.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), ev)
		return nil
	})
	if err != nil {
		return err.(*paramError)
	}
	v.Set(m)
	return nil
}

// parseNumber reads a JSON number. isInt reports an integral value, which
// JSON Schema's "integer" accepts even when written 1.0 or 1e2.
func parseNumber(val []byte) (f float64, isInt, ok bool) {
	f, err := strconv.ParseFloat(string(val), 64)
	if err != nil && !isRangeErr(err) {
		return 0, false, false
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false, false
	}
	return f, f == math.Trunc(f), true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
